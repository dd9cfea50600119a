#include "corpus/bioc_reader.h"

#include <pugixml.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "corpus/bioc_annotation.h"
#include "corpus/document_text.h"
#include "corpus/duplicate_documents.h"
#include "corpus/pubtator_lines.h"
#include "corpus/xml_prescan.h"
#include "util/error.h"
#include "util/newline_index.h"
#include "util/text_file.h"

namespace linkscope {
namespace {

using pubtator::quoteForMessage;

// No parse_eol: LineReader already removed the "\r" of "\r\n", and a lone carriage return in
// a text is content (offsets count it). parse_ws_pcdata_single keeps a text of spaces only.
// A BioC file is read whole (XML is parsed as a tree); more than this once decompressed is
// refused before it is held. PubTator Central's largest BioC exports of abstracts are far below
// it. A gzip file is also held to readTextBuffer's expansion bound (kMaxGzipExpansion times its
// compressed size), so that a small gzip cannot expand into all of the memory.
constexpr std::size_t kMaxBioCBytes = std::size_t{2} << 30;

// The tree pugixml builds is refused beyond this many bytes per byte of text (xml::Prescan
// counts it before parsing). A BioC file of abstracts needs far fewer: its elements carry
// words, offsets and ids. With the text itself, its newline index and the documents read,
// this keeps the reader within 16 times its text.
constexpr std::size_t kMaxTreeBytesPerTextByte = 12;
constexpr std::size_t kTreeBytesAlwaysAllowed = std::size_t{1} << 20;

constexpr unsigned kParseOptions =
    pugi::parse_cdata | pugi::parse_escapes | pugi::parse_wconv_attribute | pugi::parse_ws_pcdata_single;

std::string stemOf(const std::filesystem::path& path) {
    auto name = path.filename();
    if (name.extension() == ".gz") name = name.stem();
    return name.stem().string();
}

bool named(pugi::xml_node node, std::string_view name) {
    return node.type() == pugi::node_element && name == node.name();
}

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
               return lower(x) == lower(y);
           });
}

std::optional<std::size_t> parseCount(std::string_view text) {
    std::size_t value = 0;
    const auto* last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(text.data(), last, value);
    if (text.empty() || ec != std::errc() || end != last || text.front() < '0' || text.front() > '9')
        return std::nullopt;
    return value;
}

// One annotation as read, before ordering.
struct ReadMention {
    std::optional<std::size_t> number;  // the id attribute, when it is a number
    Mention mention;
};

class BioCFileReader {
public:
    BioCFileReader(Corpus& corpus, const std::filesystem::path& path) : corpus_(corpus), file_(path.string()) {}

    void read(const std::filesystem::path& path) {
        // Through LineReader (gzip, UTF-8 check with a line number); lines are joined with "\n",
        // so byte positions of the joined text still fall on the file's lines. The text is held
        // once: pugixml parses it in place (load_buffer would copy it first).
        text_ = readTextBuffer(path, kMaxBioCBytes);
        if (text_.view().find_first_not_of(" \t\n") == std::string_view::npos)
            throw ParseError(file_, 0, "empty file (no BioC collection)");
        lines_.emplace(text_.view());  // before the parse writes over the text
        checkBeforeParsing();
        pugi::xml_document xml;
        const pugi::xml_parse_result parsed =
            xml.load_buffer_inplace(text_.data(), text_.size(), kParseOptions, pugi::encoding_utf8);
        if (!parsed)
            throw ParseError(file_, lineOfByte(parsed.offset),
                             std::string("not well-formed XML: ") + parsed.description());
        const pugi::xml_node collection = xml.document_element();
        if (!named(collection, "collection"))
            fail(collection, std::string("expected a BioC <collection> element, found <") + collection.name() + ">");
        std::size_t documents = 0;
        for (const pugi::xml_node child : collection.children()) {
            if (named(child, "document")) {
                readDocument(child);
                ++documents;
            } else if (named(child, "infon")) {
                noteLeftOut(child, "collection infon \"" + std::string(child.attribute("key").value()) + "\"");
            }
        }
        if (documents == 0) fail(collection, "the collection holds no <document>");
        for (const auto& [what, seen] : leftOut_)
            corpus_.diagnostics.push_back(
                Diagnostic{file_, seen.firstLine,
                           what + " (" + std::to_string(seen.count) +
                               " in the file): a Linkscope document has no place for it; kept out"});
    }

private:
    struct LeftOut {
        std::size_t count = 0;
        std::size_t firstLine = 0;
    };

    std::size_t lineOfByte(std::ptrdiff_t byte) const {
        return byte < 0 ? 0 : lines_->lineOf(static_cast<std::size_t>(byte));
    }

    // Character references are decoded by pugixml only once xml::prescan has checked every one
    // of them (pugixml's own decoding wraps large numbers to 32 bits and lets through characters
    // XML forbids); the tree's size is bounded before pugixml allocates it.
    void checkBeforeParsing() const {
        const xml::Prescan scan = xml::prescan(text_.view());
        if (scan.problem)
            throw ParseError(file_, lineOfByte(static_cast<std::ptrdiff_t>(scan.problem->first)), scan.problem->second);
        const std::size_t allowed = kMaxTreeBytesPerTextByte * text_.size() + kTreeBytesAlwaysAllowed;
        if (scan.treeBytes() > allowed)
            throw ParseError(file_, 0,
                             "the file holds " + std::to_string(scan.elements) + " XML elements and " +
                                 std::to_string(scan.textRuns) + " texts in " + std::to_string(text_.size()) +
                                 " bytes: a tree of more than " + std::to_string(kMaxTreeBytesPerTextByte) +
                                 " bytes per byte of text, more than this reader holds in memory (a BioC file of "
                                 "abstracts needs far fewer)");
    }

    std::size_t lineOf(pugi::xml_node node) const { return lineOfByte(node.offset_debug()); }

    [[noreturn]] void fail(pugi::xml_node node, const std::string& message) const {
        throw ParseError(file_, lineOf(node), message);
    }

    void noteLeftOut(pugi::xml_node node, const std::string& what) {
        auto& seen = leftOut_[what];
        if (seen.count++ == 0) seen.firstLine = lineOf(node);
    }

    // The text of a child element; nullopt when there is no such child.
    static std::optional<std::string> childText(pugi::xml_node node, const char* name) {
        const pugi::xml_node child = node.child(name);
        if (!child) return std::nullopt;
        return std::string(child.child_value());
    }

    std::size_t countOf(pugi::xml_node node, const char* childName, const char* what) const {
        const pugi::xml_node child = node.child(childName);
        if (!child) fail(node, std::string(what) + " without <" + childName + ">");
        const std::string_view value = pubtator::trimmed(child.child_value());
        const auto count = parseCount(value);
        if (!count)
            fail(child, std::string(what) + " <" + childName + "> " + quoteForMessage(value) +
                            " is not a non-negative integer");
        return *count;
    }

    std::size_t attributeCount(pugi::xml_node node, const char* name, const char* what) const {
        const pugi::xml_attribute attribute = node.attribute(name);
        if (!attribute) fail(node, std::string(what) + " without a \"" + name + "\" attribute");
        const auto count = parseCount(pubtator::trimmed(attribute.value()));
        if (!count)
            fail(node, std::string(what) + " \"" + name + "\" " + quoteForMessage(attribute.value()) +
                           " is not a non-negative integer");
        return *count;
    }

    void readDocument(pugi::xml_node node) {
        const auto id = childText(node, "id");
        if (!id || pubtator::trimmed(*id).empty()) fail(node, "document without an <id>");
        const std::string pmid(pubtator::trimmed(*id));
        if (!pubtator::isValidPmid(pmid))
            fail(node.child("id"),
                 "malformed document id " + quoteForMessage(pmid) + " (expected letters, digits, '_', '.' or '-')");

        std::vector<pugi::xml_node> passages, annotations, relations;
        for (const pugi::xml_node child : node.children()) {
            if (named(child, "passage"))
                passages.push_back(child);
            else if (named(child, "annotation"))
                annotations.push_back(child);
            else if (named(child, "relation"))
                relations.push_back(child);
            else if (named(child, "infon"))
                noteLeftOut(child, "document infon \"" + std::string(child.attribute("key").value()) + "\"");
        }
        Document document(pmid);
        document.sourceFile = file_;
        document.sourceLine = lineOf(node);
        readPassages(node, passages, document);
        for (const pugi::xml_node passage : passages)
            for (const pugi::xml_node child : passage.children()) {
                if (named(child, "annotation"))
                    annotations.push_back(child);
                else if (named(child, "relation"))
                    relations.push_back(child);
            }

        const DocumentText text(document);
        std::vector<ReadMention> mentions;
        for (const pugi::xml_node annotation : annotations)
            mentions.push_back(readAnnotation(annotation, document, text));
        orderMentions(mentions);
        for (auto& read : mentions) document.mentions.push_back(std::move(read.mention));
        for (const pugi::xml_node relation : relations)
            if (auto read = readRelation(relation, pmid)) document.relations.push_back(std::move(*read));
        addDocument(std::move(document));
    }

    // Title at offset 0, abstract (when there is one) at len(title) + 1.
    void readPassages(pugi::xml_node node, const std::vector<pugi::xml_node>& passages, Document& document) {
        if (passages.empty()) fail(node, "document " + document.pmid() + " has no <passage>");
        if (passages.size() > 2)
            fail(passages[2], "document " + document.pmid() + " has " + std::to_string(passages.size()) +
                                  " passages: only title + abstract documents (two passages) can be read");
        for (std::size_t i = 0; i < passages.size(); ++i) {
            const pugi::xml_node passage = passages[i];
            if (passage.child("sentence"))
                fail(passage.child("sentence"),
                     "sentence-level passages are not supported (expected the passage's <text>)");
            for (const pugi::xml_node infon : passage.children("infon"))
                if (std::string_view(infon.attribute("key").value()) != "type")
                    noteLeftOut(infon, "passage infon \"" + std::string(infon.attribute("key").value()) + "\"");
            const std::size_t offset = countOf(passage, "offset", "passage");
            std::string content = childText(passage, "text").value_or(std::string());
            if (i == 0) {
                if (offset != 0)
                    fail(passage, "the first passage (the title) of document " + document.pmid() + " is at offset " +
                                      std::to_string(offset) + ", expected 0");
                document.title = std::move(content);
                document.hasAbstract = false;
            } else {
                const std::size_t expected = document.abstractStart();
                if (offset != expected)
                    fail(passage, "the second passage (the abstract) of document " + document.pmid() +
                                      " is at offset " + std::to_string(offset) + ", expected " +
                                      std::to_string(expected) + " (the title's length + 1)");
                document.abstract = std::move(content);
                document.hasAbstract = true;
            }
        }
    }

    ReadMention readAnnotation(pugi::xml_node node, const Document& document, const DocumentText& text) {
        std::optional<std::string> type, link, individual;
        for (const pugi::xml_node infon : node.children("infon")) {
            const std::string_view key = infon.attribute("key").value();
            std::optional<std::string>* slot = nullptr;
            if (key == "type")
                slot = &type;
            else if (equalsIgnoringCase(key, "identifier") || key == "MESH")
                slot = &link;
            else if (key == "individual_mentions")
                slot = &individual;
            if (!slot) {
                noteLeftOut(infon, "annotation infon \"" + std::string(key) + "\"");
                continue;
            }
            if (*slot) fail(infon, "annotation with a second \"" + std::string(key) + "\" infon");
            *slot = infon.child_value();
        }
        if (!type || type->empty()) fail(node, "annotation without a \"type\" infon");

        std::vector<pugi::xml_node> locations;
        for (const pugi::xml_node location : node.children("location")) locations.push_back(location);
        if (locations.empty()) fail(node, "annotation without a <location>");
        if (locations.size() > 1)
            fail(locations[1], "annotation with " + std::to_string(locations.size()) +
                                   " locations: a discontinuous mention has no place in a Linkscope mention");
        const std::size_t start = attributeCount(locations[0], "offset", "location");
        const std::size_t length = attributeCount(locations[0], "length", "location");
        if (length == 0) fail(locations[0], "location of length 0 (a mention covers at least one character)");
        if (start > text.characterCount() || length > text.characterCount() - start)
            fail(locations[0], "location offset " + std::to_string(start) + " length " + std::to_string(length) +
                                   " lies outside the text of document " + document.pmid() + " (" +
                                   std::to_string(text.characterCount()) + " characters)");
        const auto mentionText = childText(node, "text");
        if (!mentionText) fail(node, "annotation without a <text>");

        ReadMention read;
        try {
            read.mention = bioCAnnotationMention(document.pmid(), start, length, *mentionText, *type, link, individual);
        } catch (const Error& e) {
            fail(node, e.what());
        }
        read.mention.sourceLine = lineOf(node);
        const auto actual = text.slice({start, start + length});
        if (!actual || *actual != *mentionText)
            fail(node, "annotation text " + quoteForMessage(*mentionText) + " does not match the document text " +
                           quoteForMessage(actual.value_or("")) + " at offsets " + std::to_string(start) + "-" +
                           std::to_string(start + length));
        read.number = parseCount(node.attribute("id").value());
        return read;
    }

    // The writer numbers annotations in Document::mentions order and places them by passage;
    // numbering restores that order. Files with other ids keep their file order.
    static void orderMentions(std::vector<ReadMention>& mentions) {
        std::vector<std::size_t> numbers;
        for (const auto& read : mentions) {
            if (!read.number) return;
            numbers.push_back(*read.number);
        }
        std::sort(numbers.begin(), numbers.end());
        if (std::adjacent_find(numbers.begin(), numbers.end()) != numbers.end()) return;
        std::stable_sort(mentions.begin(), mentions.end(),
                         [](const ReadMention& a, const ReadMention& b) { return *a.number < *b.number; });
    }

    std::optional<Relation> readRelation(pugi::xml_node node, const std::string& pmid) {
        std::optional<std::string> type;
        std::vector<std::string> arguments;
        for (const pugi::xml_node infon : node.children("infon")) {
            const std::string_view key = infon.attribute("key").value();
            if ((key == "type" || key == "relation") && !type)
                type = infon.child_value();
            else
                arguments.emplace_back(infon.child_value());
        }
        if (node.child("node")) {
            // BioC relations between annotations: ours are between concepts, so such a relation
            // has no place unless it also names its concepts in infons.
            noteLeftOut(node.child("node"), "relation node (a relation between annotations)");
            if (arguments.size() < 2) return std::nullopt;
        }
        if (!type || type->empty()) fail(node, "relation without a \"type\" infon");
        if (arguments.size() < 2)
            fail(node, "relation " + quoteForMessage(*type) + " with fewer than two argument infons");
        if (arguments.size() > pubtator::Columns::kMaxColumns - 2)
            fail(node, "relation with " + std::to_string(arguments.size()) + " arguments (at most " +
                           std::to_string(pubtator::Columns::kMaxColumns - 2) + ")");
        pubtator::Columns columns;
        columns.items[0] = pmid;
        columns.items[1] = *type;
        for (std::size_t i = 0; i < arguments.size(); ++i) columns.items[i + 2] = arguments[i];
        columns.count = arguments.size() + 2;
        try {
            Relation relation = pubtator::parseRelation(columns);
            relation.sourceLine = lineOf(node);
            return relation;
        } catch (const Error& e) {
            fail(node, e.what());
        }
    }

    void addDocument(Document document) { addKeepingFirstCopy(corpus_, std::move(document)); }

    Corpus& corpus_;
    std::string file_;
    TextBuffer text_;                    // parsed in place: the tree's strings point into it
    std::optional<NewlineIndex> lines_;  // of the text as read, before the parse changed it
    std::map<std::string, LeftOut> leftOut_;
};

}  // namespace

Corpus readBioC(const std::filesystem::path& path) {
    Corpus corpus(stemOf(path));
    corpus.sourceFiles.push_back(path.string());
    BioCFileReader(corpus, path).read(path);
    return corpus;
}

}  // namespace linkscope
