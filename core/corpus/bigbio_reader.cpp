#include "corpus/bigbio_reader.h"

#include <algorithm>
#include <map>
#include <utility>

#include "corpus/document_reader_corpus.h"
#include "corpus/document_text.h"
#include "corpus/json_fields.h"
#include "corpus/pubtator_lines.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/line_reader.h"
#include "util/utf8.h"

namespace linkscope {
namespace {

using Json = nlohmann::json;
using pubtator::quoteForMessage;

bool startsWithIgnoringCase(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), text.begin(), [](char x, char y) {
               const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
               return lower(x) == lower(y);
           });
}

struct CharSpan {
    std::size_t start = 0;
    std::size_t end = 0;
};

class LineParser : JsonFields {
public:
    LineParser(const std::string& file, std::size_t line, LeftOutTally& leftOut)
        : JsonFields(file, line), leftOut_(leftOut) {}

    Document parse(std::string_view text) {
        Json value;
        try {
            value = parseJson(std::string(text), file_);
        } catch (const ParseError& e) {
            throw ParseError(file_, line_, e.message());
        }
        if (!value.is_object()) fail("a BigBio document must be a JSON object, found " + briefJson(value));
        for (const auto& [key, member] : value.items()) {
            if (key == "events" || key == "coreferences") {
                if (!array(member, "\"" + key + "\"").empty()) leftOut_.note(key + " (BigBio " + key + ")", line_);
            } else if (key != "id" && key != "document_id" && key != "passages" && key != "entities" &&
                       key != "relations") {
                leftOut_.note("document key \"" + key + "\"", line_);
            }
        }
        std::string pmid;
        if (const Json* id = member(value, "document_id"); id && !id->is_null())
            pmid = std::string(pubtator::trimmed(scalarText(*id, "\"document_id\"")));
        if (pmid.empty())
            if (const Json* id = member(value, "id"); id && !id->is_null())
                pmid = std::string(pubtator::trimmed(scalarText(*id, "\"id\"")));
        if (pmid.empty()) fail("document without a \"document_id\" or \"id\"");
        if (!pubtator::isValidPmid(pmid))
            fail("malformed document id " + quoteForMessage(pmid) + " (expected letters, digits, '_', '.' or '-')");
        where_ = "document " + pmid + ": ";
        Document document(pmid);
        document.sourceFile = file_;
        document.sourceLine = line_;
        const Json* passages = member(value, "passages");
        if (!passages) fail("document without \"passages\"");
        readPassages(array(*passages, "\"passages\""), document);

        const DocumentText documentText(document);
        std::map<std::string, std::size_t, std::less<>> entityIndex;
        if (const Json* entities = member(value, "entities"))
            for (const Json& entity : array(*entities, "\"entities\"")) {
                auto [id, mention] = readEntity(entity, document, documentText);
                if (!id.empty() && !entityIndex.emplace(id, document.mentions.size()).second)
                    fail("two entities with the id " + quoteForMessage(id));
                document.mentions.push_back(std::move(mention));
            }
        if (const Json* relations = member(value, "relations"))
            for (const Json& relation : array(*relations, "\"relations\""))
                if (auto read = readRelation(relation, document, entityIndex))
                    document.relations.push_back(std::move(*read));
        return document;
    }

private:
    // "offsets": [[start, end], ...] with start <= end.
    std::vector<CharSpan> spans(const Json* value, const std::string& what) const {
        if (!value) fail(what + " without \"offsets\"");
        std::vector<CharSpan> out;
        for (const Json& pair : array(*value, what + " \"offsets\"")) {
            if (!pair.is_array() || pair.size() != 2)
                fail(what + " offsets must be [start, end] pairs, not " + briefJson(pair));
            const CharSpan span{count(pair[0], what + " start offset"), count(pair[1], what + " end offset")};
            if (span.start > span.end)
                fail(what + " offsets [" + std::to_string(span.start) + ", " + std::to_string(span.end) +
                     "] end before they start");
            out.push_back(span);
        }
        return out;
    }

    std::vector<std::string> texts(const Json* value, const std::string& what) const {
        if (!value) fail(what + " without \"text\"");
        std::vector<std::string> out;
        for (const Json& text : array(*value, what + " \"text\"")) out.push_back(string(text, what + " text"));
        return out;
    }

    void readPassages(const Json& passages, Document& document) {
        if (passages.empty()) fail("no passage");
        if (passages.size() > 2)
            fail(std::to_string(passages.size()) +
                 " passages: only title + abstract documents (two passages) can be read");
        for (std::size_t i = 0; i < passages.size(); ++i) {
            const Json& passage = object(passages[i], "a passage");
            for (const auto& [key, ignored] : passage.items())
                if (key != "id" && key != "type" && key != "text" && key != "offsets")
                    leftOut_.note("passage key \"" + key + "\"", line_);
            const std::string what = i == 0 ? "the first passage (the title)" : "the second passage (the abstract)";
            const auto text = texts(member(passage, "text"), what);
            const auto offsets = spans(member(passage, "offsets"), what);
            if (text.size() != 1 || offsets.size() != 1)
                fail(what + " has " + std::to_string(text.size()) + " texts and " + std::to_string(offsets.size()) +
                     " offset pairs: only one of each can be read");
            const std::size_t expected = i == 0 ? 0 : document.abstractStart();
            const std::size_t length = utf8::length(text[0]);
            if (offsets[0].start != expected || offsets[0].end - offsets[0].start != length)
                fail(what + " is at offsets [" + std::to_string(offsets[0].start) + ", " +
                     std::to_string(offsets[0].end) + "], expected [" + std::to_string(expected) + ", " +
                     std::to_string(expected + length) + "] (" + (i == 0 ? "from 0" : "from the title's length + 1") +
                     ", as long as its text)");
            if (i == 0) {
                document.title = text[0];
                document.hasAbstract = false;
            } else {
                document.abstract = text[0];
                document.hasAbstract = true;
            }
        }
    }

    // The id column of "normalized".
    std::string linkColumn(const Json* normalized, const Json& entity, const std::string& label) const {
        if (!normalized || normalized->is_null()) return {};
        std::string column;
        const Json* join = member(entity, "linkscope_join");
        const bool conjunction = join && join->is_string() && *join == "+";
        for (const Json& item : array(*normalized, label + " \"normalized\"")) {
            const Json& entry = object(item, label + " normalized entry");
            const Json* name = member(entry, "db_name");
            const Json* id = member(entry, "db_id");
            if (!id) fail(label + " normalized entry without a \"db_id\"");
            const std::string dbName(
                pubtator::trimmed(name && !name->is_null() ? scalarText(*name, "\"db_name\"") : ""));
            const std::string dbId(pubtator::trimmed(scalarText(*id, "\"db_id\"")));
            std::string part;
            if (dbId == "-1") {
                part = "-1";
            } else {
                const std::string raw =
                    dbName.empty() || startsWithIgnoringCase(dbId, dbName + ":") ? dbId : dbName + ":" + dbId;
                const auto canonical = canonicalConceptId(raw);
                if (!canonical) fail(label + " has an empty \"db_id\"");
                part = std::string(shortConceptId(*canonical));
            }
            if (part.find_first_of("|+") != std::string::npos)
                fail(label + " id " + quoteForMessage(part) + " holds '|' or '+'");
            if (!column.empty()) column += conjunction ? '+' : '|';
            column += part;
        }
        return column;
    }

    std::pair<std::string, Mention> readEntity(const Json& value, const Document& document, const DocumentText& text) {
        const Json& entity = object(value, "an entity");
        std::string id;
        if (const Json* written = member(entity, "id"); written && !written->is_null())
            id = scalarText(*written, "entity \"id\"");
        const std::string label = "entity " + quoteForMessage(id);
        for (const auto& [key, ignored] : entity.items())
            if (key != "id" && key != "type" && key != "text" && key != "offsets" && key != "normalized" &&
                key != "linkscope_join")
                leftOut_.note("entity key \"" + key + "\"", line_);
        const Json* typeMember = member(entity, "type");
        if (!typeMember) fail(label + " without a \"type\"");
        const std::string type = string(*typeMember, label + " \"type\"");
        const auto written = texts(member(entity, "text"), label);
        const auto offsets = spans(member(entity, "offsets"), label);
        if (offsets.size() != 1)
            fail(label + " with " + std::to_string(offsets.size()) +
                 " offset pairs: a discontinuous mention has no place in a Linkscope mention");
        if (written.size() != 1) fail(label + " with " + std::to_string(written.size()) + " texts for one offset pair");
        const CharSpan span = offsets[0];
        if (span.start == span.end) fail(label + " is empty (a mention covers at least one character)");
        if (span.end > text.characterCount())
            fail(label + " offsets [" + std::to_string(span.start) + ", " + std::to_string(span.end) +
                 "] lie outside the text (" + std::to_string(text.characterCount()) + " characters)");
        const std::string startColumn = std::to_string(span.start);
        const std::string endColumn = std::to_string(span.end);
        const std::string ids = linkColumn(member(entity, "normalized"), entity, label);
        pubtator::Columns columns;
        columns.items = {document.pmid(), startColumn, endColumn, written[0], type, ids};
        columns.count = 6;
        Mention mention;
        try {
            mention = pubtator::parseMention(columns);
        } catch (const Error& e) {
            fail(label + ": " + e.what());
        }
        mention.sourceLine = line_;
        const auto actual = text.slice({span.start, span.end});
        if (!actual || *actual != written[0])
            fail(label + " text " + quoteForMessage(written[0]) + " does not match the document text " +
                 quoteForMessage(actual.value_or("")) + " at offsets " + startColumn + "-" + endColumn);
        return {id, std::move(mention)};
    }

    std::optional<Relation> readRelation(const Json& value, const Document& document,
                                         const std::map<std::string, std::size_t, std::less<>>& entities) {
        const Json& relation = object(value, "a relation");
        const Json* typeMember = member(relation, "type");
        if (!typeMember) fail("relation without a \"type\"");
        const std::string type = string(*typeMember, "relation \"type\"");
        std::string arguments[2];
        for (int i = 0; i < 2; ++i) {
            const char* key = i == 0 ? "arg1_id" : "arg2_id";
            const Json* argument = member(relation, key);
            if (!argument) fail("relation " + quoteForMessage(type) + " without \"" + key + "\"");
            const std::string id = scalarText(*argument, std::string("relation \"") + key + "\"");
            const auto found = entities.find(id);
            if (found == entities.end())
                fail("relation " + quoteForMessage(type) + " names the entity " + quoteForMessage(id) +
                     ", which the document does not have");
            const Mention& mention = document.mentions[found->second];
            if (mention.ids.ids.size() != 1) {
                leftOut_.note("relation between entities that are not linked to one id each", line_);
                return std::nullopt;
            }
            arguments[i] = std::string(shortConceptId(mention.ids.ids[0]));
        }
        if (const Json* normalized = member(relation, "normalized");
            normalized && normalized->is_array() && !normalized->empty())
            leftOut_.note("relation \"normalized\"", line_);
        pubtator::Columns columns;
        columns.items[0] = document.pmid();
        columns.items[1] = type;
        columns.items[2] = arguments[0];
        columns.items[3] = arguments[1];
        columns.count = 4;
        try {
            Relation read = pubtator::parseRelation(columns);
            read.sourceLine = line_;
            return read;
        } catch (const Error& e) {
            fail("relation: " + std::string(e.what()));
        }
    }

    LeftOutTally& leftOut_;
};

}  // namespace

Document parseBigBioDocument(std::string_view json, const std::string& file, std::size_t line, LeftOutTally& leftOut) {
    return LineParser(file, line, leftOut).parse(json);
}

BigBioDocumentReader::BigBioDocumentReader(const std::filesystem::path& path)
    : lines_(std::make_unique<LineReader>(path, LineReaderOptions{kMaxBigBioLineBytes, true})) {}

BigBioDocumentReader::~BigBioDocumentReader() = default;

const std::string& BigBioDocumentReader::fileName() const noexcept { return lines_->fileName(); }

std::optional<Document> BigBioDocumentReader::next() {
    std::string line;
    while (lines_->next(line)) {
        if (pubtator::trimmed(line).empty()) continue;
        ++documents_;
        return parseBigBioDocument(line, fileName(), lines_->lineNumber(), leftOut_);
    }
    if (documents_ == 0) throw ParseError(fileName(), 0, "empty file (no BigBio document)");
    return std::nullopt;
}

std::vector<Diagnostic> BigBioDocumentReader::diagnostics() const { return leftOut_.diagnostics(fileName()); }

Corpus readBigBio(const std::filesystem::path& path) { return readAllDocuments<BigBioDocumentReader>(path); }

}  // namespace linkscope
