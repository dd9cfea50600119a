#include "corpus/pubtator_writer.h"

#include "corpus/pubtator_lines.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace linkscope {
namespace {

using pubtator::quoteForMessage;

void require(bool ok, const Document& document, const std::string& what) {
    if (!ok) throw Error("cannot write document " + document.pmid() + " as PubTator: " + what);
}

bool hasLineBreak(std::string_view text) noexcept { return text.find_first_of("\r\n") != std::string_view::npos; }
bool fitsColumn(std::string_view text) noexcept { return text.find_first_of("\t\r\n") == std::string_view::npos; }

// The id column as read, as long as it still says what `ids` says (an editor may have changed
// the ids since); otherwise the ids in the short form the NCBI and BC5CDR files use.
std::string idColumnOf(const Mention& mention) {
    try {
        if (sameIds(parseConceptIdList(mention.idColumn), mention.ids)) return mention.idColumn;
    } catch (const Error&) {
        // a column that no longer parses is rewritten from the ids below
    }
    if (mention.ids.cuiLess || mention.ids.ids.empty()) return "-1";
    const char separator = mention.ids.join == IdJoin::Conjunction ? '+' : '|';
    std::string column;
    for (const auto& id : mention.ids.ids) {
        if (!column.empty()) column += separator;
        column += shortConceptId(id);
    }
    return column;
}

std::string_view argumentOf(const Relation& relation, std::size_t i) {
    const auto& id = relation.arguments[i];
    if (relation.rawArguments.size() == relation.arguments.size()) {
        const auto& raw = relation.rawArguments[i];
        const auto canonical = canonicalConceptId(raw);
        if (canonical ? *canonical == id : pubtator::trimmed(raw) == id) return raw;
    }
    return shortConceptId(id);
}

void appendMention(std::string& out, const Document& document, const Mention& mention) {
    const std::string& text = mention.paddedText && pubtator::trimmed(*mention.paddedText) == mention.text
                                  ? *mention.paddedText
                                  : mention.text;
    const auto ids = idColumnOf(mention);
    require(fitsColumn(text), document, "mention text " + quoteForMessage(text) + " holds a tab or line break");
    require(fitsColumn(mention.type) && !mention.type.empty(), document,
            "mention type " + quoteForMessage(mention.type) + " is empty or holds a tab or line break");
    require(fitsColumn(ids), document, "id column " + quoteForMessage(ids) + " holds a tab or line break");
    out.append(document.pmid()).append(1, '\t');
    out.append(std::to_string(mention.start)).append(1, '\t');
    out.append(std::to_string(mention.end)).append(1, '\t');
    out.append(text).append(1, '\t').append(mention.type).append(1, '\t').append(ids);
    if (mention.hasIndividualMentionColumn || !mention.individualMentions.empty()) {
        out.append(1, '\t');
        for (std::size_t i = 0; i < mention.individualMentions.size(); ++i) {
            const auto& part = mention.individualMentions[i];
            require(fitsColumn(part) && part.find('|') == std::string::npos, document,
                    "individual mention " + quoteForMessage(part) + " holds a '|', tab or line break");
            if (i > 0) out.append(1, '|');
            out.append(part);
        }
    }
    out.append(1, '\n');
}

void appendRelation(std::string& out, const Document& document, const Relation& relation) {
    require(fitsColumn(relation.type) && !relation.type.empty(), document,
            "relation type " + quoteForMessage(relation.type) + " is empty or holds a tab or line break");
    require(relation.arguments.size() >= 2, document, "a relation needs at least two arguments");
    out.append(document.pmid()).append(1, '\t').append(relation.type);
    for (std::size_t i = 0; i < relation.arguments.size(); ++i) {
        const auto argument = argumentOf(relation, i);
        require(fitsColumn(argument) && !argument.empty(), document,
                "relation argument " + quoteForMessage(argument) + " is empty or holds a tab or line break");
        out.append(1, '\t').append(argument);
    }
    out.append(1, '\n');
}

}  // namespace

void appendPubTator(std::string& out, const Document& document) {
    require(pubtator::isValidPmid(document.pmid()), document, "malformed PMID");
    require(!hasLineBreak(document.title), document, "the title holds a line break");
    require(!hasLineBreak(document.abstract), document, "the abstract holds a line break");
    require(document.hasAbstract || document.abstract.empty(), document, "an abstract is set but hasAbstract is false");
    out.append(document.pmid()).append("|t|").append(document.title).append(1, '\n');
    if (document.hasAbstract) out.append(document.pmid()).append("|a|").append(document.abstract).append(1, '\n');
    for (const auto& mention : document.mentions) appendMention(out, document, mention);
    for (const auto& relation : document.relations) appendRelation(out, document, relation);
}

namespace {
// Leading blank lines, documents separated by one blank line, trailing blank lines; `afterDocument`
// sees the buffer after each document and may drain it.
template <typename AfterDocument>
void formatCorpus(const Corpus& corpus, std::string& out, AfterDocument&& afterDocument) {
    out.append(corpus.layout.leadingBlankLines, '\n');
    bool first = true;
    for (const auto& document : corpus.documents()) {
        if (!first) out.append(1, '\n');
        appendPubTator(out, document);
        first = false;
        afterDocument(out);
    }
    out.append(corpus.layout.trailingBlankLines, '\n');
}
}  // namespace

std::string formatPubTator(const Document& document) {
    std::string out;
    appendPubTator(out, document);
    return out;
}

std::string formatPubTator(const Corpus& corpus) {
    std::string out;
    formatCorpus(corpus, out, [](std::string&) {});
    return out;
}

void writePubTator(const Corpus& corpus, const std::filesystem::path& path) {
    AtomicFileWriter writer(path);
    auto& stream = writer.stream();
    const auto write = [&stream](std::string& buffer) {
        stream.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        buffer.clear();
    };
    std::string buffer;
    formatCorpus(corpus, buffer, [&write](std::string& full) {
        // Write in pieces of about a megabyte: a big corpus need not be held twice in memory.
        if (full.size() >= (std::size_t{1} << 20)) write(full);
    });
    write(buffer);
    writer.commit();
}

}  // namespace linkscope
