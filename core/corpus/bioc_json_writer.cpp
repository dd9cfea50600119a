#include "corpus/bioc_json_writer.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>

#include "corpus/link_column.h"
#include "corpus/pubtator_lines.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace linkscope {
namespace {

using Json = nlohmann::ordered_json;
using pubtator::quoteForMessage;

[[noreturn]] void refuse(const Document& document, const std::string& what) {
    throw Error("cannot write document " + document.pmid() + " as BioC JSON: " + what);
}

// JSON can hold a NUL ("\u0000"), but most BioC tools cut a string there: refuse it.
const std::string& checked(const std::string& text, const Document& document, std::string_view what) {
    if (text.find('\0') != std::string::npos) refuse(document, std::string(what) + " holds a NUL character");
    return text;
}

std::string todayUtc() {
    const auto today =
        std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now()));
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%04d%02u%02u", static_cast<int>(today.year()),
                  static_cast<unsigned>(today.month()), static_cast<unsigned>(today.day()));
    return buffer;
}

// A relation argument as read when it still names the same concept, else the short form.
std::string argumentOf(const Relation& relation, std::size_t i) {
    const auto& id = relation.arguments[i];
    if (relation.rawArguments.size() == relation.arguments.size()) {
        const auto raw = pubtator::trimmed(relation.rawArguments[i]);
        const auto canonical = canonicalConceptId(raw);
        if (canonical ? *canonical == id : raw == id) return std::string(raw);
    }
    return std::string(shortConceptId(id));
}

Json annotationOf(const Document& document, const Mention& mention, std::size_t number, const BioCInfons& extra) {
    if (!mention.offsetsValid)
        refuse(document, "mention " + quoteForMessage(mention.text) + " at offsets " + std::to_string(mention.start) +
                             "-" + std::to_string(mention.end) + " failed validation when it was read");
    if (mention.type.empty()) refuse(document, "a mention has an empty type");
    Json infons = Json::object();
    infons["type"] = checked(mention.type, document, "mention type");
    if (!isUnlinked(mention)) infons["identifier"] = linkColumnOf(mention);
    if (!mention.individualMentions.empty()) {
        std::string parts;
        for (const auto& part : mention.individualMentions) {
            if (part.find('|') != std::string::npos)
                refuse(document, "individual mention " + quoteForMessage(part) + " holds a '|'");
            if (!parts.empty()) parts += '|';
            parts += checked(part, document, "individual mention");
        }
        infons["individual_mentions"] = parts;
    }
    for (const auto& [key, value] : extra)
        infons[checked(key, document, "infon key")] = checked(value, document, "infon");
    Json annotation = Json::object();
    annotation["id"] = std::to_string(number);
    annotation["infons"] = std::move(infons);
    annotation["text"] = checked(mention.text, document, "mention text");
    annotation["locations"] = Json::array({Json{{"offset", mention.start}, {"length", mention.end - mention.start}}});
    return annotation;
}

Json relationOf(const Document& document, const Relation& relation, std::size_t number) {
    if (relation.type.empty()) refuse(document, "a relation has an empty type");
    if (relation.arguments.size() < 2) refuse(document, "a relation needs at least two arguments");
    Json infons = Json::object();
    infons["type"] = checked(relation.type, document, "relation type");
    for (std::size_t i = 0; i < relation.arguments.size(); ++i)
        infons["argument" + std::to_string(i + 1)] = argumentOf(relation, i);
    Json node = Json::object();
    node["id"] = "R" + std::to_string(number);
    node["infons"] = std::move(infons);
    node["nodes"] = Json::array();
    return node;
}

Json passageOf(const char* type, std::size_t offset, const std::string& text, const Document& document) {
    Json passage = Json::object();
    passage["infons"] = Json{{"type", type}};
    passage["offset"] = offset;
    passage["text"] = checked(text, document, type);
    passage["sentences"] = Json::array();
    passage["annotations"] = Json::array();
    passage["relations"] = Json::array();
    return passage;
}

std::string dumped(const Json& json) {
    try {
        return json.dump(-1, ' ', false, Json::error_handler_t::strict);
    } catch (const nlohmann::json::exception&) {
        throw Error("cannot write BioC JSON: a text is not valid UTF-8");
    }
}

}  // namespace

std::string bioCJsonHeader(std::string_view corpusName, const BioCWriteOptions& options) {
    Json header = Json::object();
    header["source"] = options.source.empty() ? "Linkscope export of " + std::string(corpusName) : options.source;
    header["date"] = options.date.empty() ? todayUtc() : options.date;
    header["key"] = options.key;
    header["infons"] = Json::object();
    std::string text = dumped(header);
    text.pop_back();  // the closing brace: the documents follow
    return text + ",\"documents\":[\n";
}

std::string formatBioCJsonDocument(const Document& document,
                                   const std::function<BioCInfons(std::size_t mention)>& extraInfons) {
    if (!pubtator::isValidPmid(document.pmid())) refuse(document, "malformed PMID");
    if (!document.hasAbstract && !document.abstract.empty())
        refuse(document, "an abstract is set but hasAbstract is false");
    Json passages = Json::array();
    passages.push_back(passageOf("title", 0, document.title, document));
    if (document.hasAbstract)
        passages.push_back(passageOf("abstract", document.abstractStart(), document.abstract, document));
    const std::size_t abstractStart = document.abstractStart();
    for (std::size_t i = 0; i < document.mentions.size(); ++i) {
        const Mention& mention = document.mentions[i];
        const bool inAbstract = document.hasAbstract && mention.start >= abstractStart;
        passages[inAbstract ? 1 : 0]["annotations"].push_back(
            annotationOf(document, mention, i + 1, extraInfons ? extraInfons(i) : BioCInfons{}));
    }
    Json relations = Json::array();
    for (std::size_t i = 0; i < document.relations.size(); ++i)
        relations.push_back(relationOf(document, document.relations[i], i + 1));
    Json node = Json::object();
    node["id"] = document.pmid();
    node["infons"] = Json::object();
    node["passages"] = std::move(passages);
    node["annotations"] = Json::array();
    node["relations"] = std::move(relations);
    return dumped(node);
}

namespace {

template <typename Out>
void writeCollection(const Corpus& corpus, const BioCWriteOptions& options, Out&& out) {
    out(bioCJsonHeader(corpus.name, options));
    const auto documents = corpus.documents();
    for (std::size_t d = 0; d < documents.size(); ++d) {
        if (d > 0) out(kBioCJsonDocumentSeparator);
        std::function<BioCInfons(std::size_t)> extra;
        if (options.extraInfons) extra = [&, d](std::size_t mention) { return options.extraInfons(d, mention); };
        out(formatBioCJsonDocument(documents[d], extra));
    }
    out(kBioCJsonFooter);
}

}  // namespace

std::string formatBioCJson(const Corpus& corpus, const BioCWriteOptions& options) {
    std::string text;
    writeCollection(corpus, options, [&](std::string_view part) { text += part; });
    return text;
}

void writeBioCJson(const Corpus& corpus, const std::filesystem::path& path, const BioCWriteOptions& options) {
    AtomicFileWriter writer(path);
    writeCollection(corpus, options, [&](std::string_view part) { writer.stream() << part; });
    writer.commit();
}

}  // namespace linkscope
