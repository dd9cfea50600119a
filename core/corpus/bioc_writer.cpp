#include "corpus/bioc_writer.h"

#include <pugixml.hpp>

#include <chrono>
#include <cstdio>
#include <sstream>

#include "corpus/link_column.h"
#include "corpus/pubtator_lines.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace linkscope {
namespace {

using pubtator::quoteForMessage;

[[noreturn]] void refuse(const Document& document, const std::string& what) {
    throw Error("cannot write document " + document.pmid() + " as BioC: " + what);
}

// XML 1.0 has no place for control characters other than tab, line feed and carriage return,
// and a parser turns a carriage return into a line feed: refuse them rather than write a file
// that other tools reject or read back differently.
void requireXmlText(std::string_view text, const Document& document, std::string_view what) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n')
            refuse(document, std::string(what) + " " + quoteForMessage(text) + " holds a control character");
}

std::string todayUtc() {
    const auto today =
        std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now()));
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%04d%02u%02u", static_cast<int>(today.year()),
                  static_cast<unsigned>(today.month()), static_cast<unsigned>(today.day()));
    return buffer;
}

void appendInfon(pugi::xml_node parent, const char* key, const std::string& value) {
    pugi::xml_node infon = parent.append_child("infon");
    infon.append_attribute("key") = key;
    infon.text().set(value.c_str());
}

void appendText(pugi::xml_node parent, const char* name, const std::string& value) {
    parent.append_child(name).text().set(value.c_str());
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

void appendMention(pugi::xml_node passage, const Document& document, const Mention& mention, std::size_t number,
                   const BioCInfons& extra) {
    if (!mention.offsetsValid)
        refuse(document, "mention " + quoteForMessage(mention.text) + " at offsets " + std::to_string(mention.start) +
                             "-" + std::to_string(mention.end) + " failed validation when it was read");
    if (mention.type.empty()) refuse(document, "a mention has an empty type");
    requireXmlText(mention.text, document, "mention text");
    requireXmlText(mention.type, document, "mention type");
    pugi::xml_node annotation = passage.append_child("annotation");
    annotation.append_attribute("id") = std::to_string(number).c_str();
    appendInfon(annotation, "type", mention.type);
    const std::string link = linkColumnOf(mention);
    requireXmlText(link, document, "identifier");
    if (!isUnlinked(mention)) appendInfon(annotation, "identifier", link);
    if (!mention.individualMentions.empty()) {
        std::string parts;
        for (const auto& part : mention.individualMentions) {
            if (part.find('|') != std::string::npos)
                refuse(document, "individual mention " + quoteForMessage(part) + " holds a '|'");
            requireXmlText(part, document, "individual mention");
            if (!parts.empty()) parts += '|';
            parts += part;
        }
        appendInfon(annotation, "individual_mentions", parts);
    }
    for (const auto& [key, value] : extra) {
        requireXmlText(key, document, "infon key");
        requireXmlText(value, document, "infon " + key);
        appendInfon(annotation, key.c_str(), value);
    }
    pugi::xml_node location = annotation.append_child("location");
    location.append_attribute("offset") = std::to_string(mention.start).c_str();
    location.append_attribute("length") = std::to_string(mention.end - mention.start).c_str();
    appendText(annotation, "text", mention.text);
}

void appendRelation(pugi::xml_node parent, const Document& document, const Relation& relation, std::size_t number) {
    if (relation.type.empty()) refuse(document, "a relation has an empty type");
    if (relation.arguments.size() < 2) refuse(document, "a relation needs at least two arguments");
    requireXmlText(relation.type, document, "relation type");
    pugi::xml_node node = parent.append_child("relation");
    node.append_attribute("id") = ("R" + std::to_string(number)).c_str();
    appendInfon(node, "type", relation.type);
    for (std::size_t i = 0; i < relation.arguments.size(); ++i) {
        const std::string argument = argumentOf(relation, i);
        requireXmlText(argument, document, "relation argument");
        appendInfon(node, ("argument" + std::to_string(i + 1)).c_str(), argument);
    }
}

pugi::xml_node appendPassage(pugi::xml_node document, const char* type, std::size_t offset, const std::string& text) {
    pugi::xml_node passage = document.append_child("passage");
    appendInfon(passage, "type", type);
    appendText(passage, "offset", std::to_string(offset));
    appendText(passage, "text", text);
    return passage;
}

void appendDocument(pugi::xml_node collection, const Document& document, std::size_t documentIndex,
                    const BioCWriteOptions& options) {
    if (!pubtator::isValidPmid(document.pmid())) refuse(document, "malformed PMID");
    if (!document.hasAbstract && !document.abstract.empty())
        refuse(document, "an abstract is set but hasAbstract is false");
    requireXmlText(document.title, document, "the title");
    requireXmlText(document.abstract, document, "the abstract");
    pugi::xml_node node = collection.append_child("document");
    appendText(node, "id", document.pmid());
    const pugi::xml_node title = appendPassage(node, "title", 0, document.title);
    const pugi::xml_node abstract = document.hasAbstract
                                        ? appendPassage(node, "abstract", document.abstractStart(), document.abstract)
                                        : pugi::xml_node();
    const std::size_t abstractStart = document.abstractStart();
    for (std::size_t i = 0; i < document.mentions.size(); ++i) {
        const Mention& mention = document.mentions[i];
        const bool inAbstract = abstract && mention.start >= abstractStart;
        appendMention(inAbstract ? abstract : title, document, mention, i + 1,
                      options.extraInfons ? options.extraInfons(documentIndex, i) : BioCInfons{});
    }
    for (std::size_t i = 0; i < document.relations.size(); ++i)
        appendRelation(node, document, document.relations[i], i + 1);
}

pugi::xml_document buildCollection(const Corpus& corpus, const BioCWriteOptions& options) {
    pugi::xml_document xml;
    pugi::xml_node declaration = xml.append_child(pugi::node_declaration);
    declaration.append_attribute("version") = "1.0";
    declaration.append_attribute("encoding") = "UTF-8";
    xml.append_child(pugi::node_doctype).set_value("collection SYSTEM \"BioC.dtd\"");
    pugi::xml_node collection = xml.append_child("collection");
    appendText(collection, "source", options.source.empty() ? "Linkscope export of " + corpus.name : options.source);
    appendText(collection, "date", options.date.empty() ? todayUtc() : options.date);
    appendText(collection, "key", options.key);
    const auto documents = corpus.documents();
    for (std::size_t d = 0; d < documents.size(); ++d) appendDocument(collection, documents[d], d, options);
    return xml;
}

constexpr unsigned kSaveFlags = pugi::format_indent;

}  // namespace

std::string formatBioC(const Corpus& corpus, const BioCWriteOptions& options) {
    const pugi::xml_document xml = buildCollection(corpus, options);
    std::ostringstream out;
    xml.save(out, "  ", kSaveFlags, pugi::encoding_utf8);
    return std::move(out).str();
}

void writeBioC(const Corpus& corpus, const std::filesystem::path& path, const BioCWriteOptions& options) {
    const pugi::xml_document xml = buildCollection(corpus, options);
    AtomicFileWriter writer(path);
    xml.save(writer.stream(), "  ", kSaveFlags, pugi::encoding_utf8);
    writer.commit();
}

}  // namespace linkscope
