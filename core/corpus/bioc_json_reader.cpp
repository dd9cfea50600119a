#include "corpus/bioc_json_reader.h"

#include <zlib.h>

#include <algorithm>
#include <limits>
#include <system_error>
#include <utility>

#include "corpus/bioc_annotation.h"
#include "corpus/bioc_json_scanner.h"
#include "corpus/document_reader_corpus.h"
#include "corpus/document_text.h"
#include "corpus/json_fields.h"
#include "corpus/pubtator_lines.h"
#include "util/error.h"
#include "util/json_file.h"

namespace linkscope {
namespace {

using Json = nlohmann::json;
using pubtator::quoteForMessage;

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
               return lower(x) == lower(y);
           });
}

// Reads one document object; every error names the file, the document's line and what in it.
class DocumentParser : JsonFields {
public:
    DocumentParser(const std::string& file, std::size_t line, LeftOutTally& leftOut)
        : JsonFields(file, line), leftOut_(leftOut) {}

    Document parse(std::string_view json) {
        Json value;
        try {
            value = parseJson(std::string(json), file_);
        } catch (const ParseError& e) {
            throw ParseError(file_, e.line() == 0 ? line_ : line_ + e.line() - 1, e.message());
        }
        if (!value.is_object()) fail("a document must be a JSON object, found " + briefJson(value));
        const Json* id = nullptr;
        const Json* passages = nullptr;
        std::vector<const Json*> annotations, relations;
        for (const auto& [key, member] : value.items()) {
            if (key == "id")
                id = &member;
            else if (key == "passages")
                passages = &member;
            else if (key == "annotations")
                annotations.push_back(&member);
            else if (key == "relations")
                relations.push_back(&member);
            else if (key == "infons")
                noteInfons(member, "document");
            else
                leftOut_.note("document key \"" + key + "\"", line_);
        }
        if (!id) fail("document without an \"id\"");
        const std::string pmid(pubtator::trimmed(scalarText(*id, "document \"id\"")));
        if (pmid.empty()) fail("document with an empty \"id\"");
        if (!pubtator::isValidPmid(pmid))
            fail("malformed document id " + quoteForMessage(pmid) + " (expected letters, digits, '_', '.' or '-')");
        where_ = "document " + pmid + ": ";
        Document document(pmid);
        document.sourceFile = file_;
        document.sourceLine = line_;
        if (!passages) fail("document without \"passages\"");
        const Json& passageList = array(*passages, "\"passages\"");
        readPassages(passageList, document);
        for (const Json& passage : passageList) {
            if (const auto it = passage.find("annotations"); it != passage.end()) annotations.push_back(&*it);
            if (const auto it = passage.find("relations"); it != passage.end()) relations.push_back(&*it);
        }
        const DocumentText text(document);
        std::vector<std::pair<std::optional<std::size_t>, Mention>> mentions;
        for (const Json* list : annotations)
            for (const Json& annotation : array(*list, "\"annotations\""))
                mentions.push_back(readAnnotation(annotation, document, text));
        orderMentions(mentions);
        for (auto& [number, mention] : mentions) document.mentions.push_back(std::move(mention));
        for (const Json* list : relations)
            for (const Json& relation : array(*list, "\"relations\""))
                if (auto read = readRelation(relation, pmid)) document.relations.push_back(std::move(*read));
        return document;
    }

private:
    void noteInfons(const Json& infons, const std::string& owner, std::string_view kept = {}) {
        for (const auto& [key, value] : object(infons, owner + " \"infons\"").items())
            if (key != kept) leftOut_.note(owner + " infon \"" + key + "\"", line_);
    }

    void readPassages(const Json& passages, Document& document) {
        if (passages.empty()) fail("no passage");
        if (passages.size() > 2)
            fail(std::to_string(passages.size()) +
                 " passages: only title + abstract documents (two passages) can be read");
        for (std::size_t i = 0; i < passages.size(); ++i) {
            const Json& passage = object(passages[i], "a passage");
            for (const auto& [key, value] : passage.items()) {
                if (key == "infons")
                    noteInfons(value, "passage", "type");
                else if (key == "sentences") {
                    if (!array(value, "\"sentences\"").empty())
                        fail("sentence-level passages are not supported (expected the passage's \"text\")");
                } else if (key != "offset" && key != "text" && key != "annotations" && key != "relations")
                    leftOut_.note("passage key \"" + key + "\"", line_);
            }
            const std::size_t offset = count(member(passage, "offset"), "passage \"offset\"");
            const Json* textMember = member(passage, "text");
            std::string content =
                textMember && !textMember->is_null() ? string(*textMember, "passage \"text\"") : std::string();
            if (i == 0) {
                if (offset != 0)
                    fail("the first passage (the title) is at offset " + std::to_string(offset) + ", expected 0");
                document.title = std::move(content);
                document.hasAbstract = false;
            } else {
                const std::size_t expected = document.abstractStart();
                if (offset != expected)
                    fail("the second passage (the abstract) is at offset " + std::to_string(offset) + ", expected " +
                         std::to_string(expected) + " (the title's length + 1)");
                document.abstract = std::move(content);
                document.hasAbstract = true;
            }
        }
    }

    std::pair<std::optional<std::size_t>, Mention> readAnnotation(const Json& value, const Document& document,
                                                                  const DocumentText& text) {
        const Json& annotation = object(value, "an annotation");
        std::optional<std::size_t> number;
        std::string label = "annotation";
        if (const Json* id = member(annotation, "id")) {
            const std::string written = scalarText(*id, "annotation \"id\"");
            label = "annotation " + quoteForMessage(written);
            if (id->is_number_unsigned())
                number = id->get<std::size_t>();
            else if (!written.empty() && written.find_first_not_of("0123456789") == std::string::npos &&
                     written.size() < 19)
                number = std::stoull(written);
        }
        for (const auto& [key, member] : annotation.items())
            if (key != "id" && key != "infons" && key != "text" && key != "locations")
                leftOut_.note("annotation key \"" + key + "\"", line_);
        std::optional<std::string> type, link, individual;
        const Json* infons = member(annotation, "infons");
        if (!infons) fail(label + " without \"infons\" (its type)");
        for (const auto& [key, infon] : object(*infons, label + " \"infons\"").items()) {
            std::optional<std::string>* slot = nullptr;
            if (key == "type")
                slot = &type;
            else if (equalsIgnoringCase(key, "identifier") || key == "MESH")
                slot = &link;
            else if (key == "individual_mentions")
                slot = &individual;
            if (!slot) {
                leftOut_.note("annotation infon \"" + key + "\"", line_);
                continue;
            }
            if (*slot) fail(label + " with a second \"" + key + "\" infon (they differ only in case)");
            if (infon.is_null()) continue;  // PubTator3 writes a null identifier for an unlinked mention
            *slot = scalarText(infon, label + " infon \"" + key + "\"");
        }
        if (!type || type->empty()) fail(label + " without a \"type\" infon");
        const Json* locations = member(annotation, "locations");
        if (!locations) fail(label + " without \"locations\"");
        const Json& list = array(*locations, label + " \"locations\"");
        if (list.empty()) fail(label + " without a location");
        if (list.size() > 1)
            fail(label + " with " + std::to_string(list.size()) +
                 " locations: a discontinuous mention has no place in a Linkscope mention");
        const Json& location = object(list[0], label + " location");
        const std::size_t start = count(member(location, "offset"), label + " location \"offset\"");
        const std::size_t length = count(member(location, "length"), label + " location \"length\"");
        if (length == 0) fail(label + " has a location of length 0 (a mention covers at least one character)");
        if (start > text.characterCount() || length > text.characterCount() - start)
            fail(label + " location offset " + std::to_string(start) + " length " + std::to_string(length) +
                 " lies outside the text (" + std::to_string(text.characterCount()) + " characters)");
        const Json* mentionText = member(annotation, "text");
        if (!mentionText) fail(label + " without a \"text\"");
        const std::string written = string(*mentionText, label + " \"text\"");

        Mention mention;
        try {
            mention = bioCAnnotationMention(document.pmid(), start, length, written, *type, link, individual);
        } catch (const Error& e) {
            fail(label + ": " + e.what());
        }
        mention.sourceLine = line_;
        const auto actual = text.slice({start, start + length});
        if (!actual || *actual != written)
            fail(label + " text " + quoteForMessage(written) + " does not match the document text " +
                 quoteForMessage(actual.value_or("")) + " at offsets " + std::to_string(start) + "-" +
                 std::to_string(start + length));
        return {number, std::move(mention)};
    }

    // Numbered annotations (the writer numbers them in Document::mentions order) are put back in
    // that order; any other ids keep the file order.
    static void orderMentions(std::vector<std::pair<std::optional<std::size_t>, Mention>>& mentions) {
        std::vector<std::size_t> numbers;
        for (const auto& [number, mention] : mentions) {
            if (!number) return;
            numbers.push_back(*number);
        }
        std::sort(numbers.begin(), numbers.end());
        if (std::adjacent_find(numbers.begin(), numbers.end()) != numbers.end()) return;
        std::stable_sort(mentions.begin(), mentions.end(),
                         [](const auto& a, const auto& b) { return *a.first < *b.first; });
    }

    std::optional<Relation> readRelation(const Json& value, const std::string& pmid) {
        const Json& relation = object(value, "a relation");
        std::optional<std::string> type;
        std::vector<std::string> arguments;
        if (const Json* infons = member(relation, "infons"))
            for (const auto& [key, infon] : object(*infons, "relation \"infons\"").items()) {
                if (infon.is_object() || infon.is_array()) {
                    // PubTator3 names its arguments in role objects ("role1": {"identifier": ...})
                    // whose accessions are no concept ids: such a relation is left out, counted.
                    leftOut_.note("relation with an infon that is an object or a list (\"" + key + "\")", line_);
                    return std::nullopt;
                }
                const std::string text = scalarText(infon, "relation infon \"" + key + "\"");
                if ((key == "type" || key == "relation") && !type)
                    type = text;
                else
                    arguments.push_back(text);
            }
        for (const auto& [key, member] : relation.items())
            if (key != "id" && key != "infons" && key != "nodes") leftOut_.note("relation key \"" + key + "\"", line_);
        if (const Json* nodes = member(relation, "nodes"); nodes && !array(*nodes, "relation \"nodes\"").empty()) {
            // BioC relations between annotations: ours are between concepts, so such a relation
            // has no place unless it also names its concepts in infons.
            leftOut_.note("relation node (a relation between annotations)", line_);
            if (arguments.size() < 2) return std::nullopt;
        }
        if (!type || type->empty()) fail("relation without a \"type\" infon");
        if (arguments.size() < 2) fail("relation " + quoteForMessage(*type) + " with fewer than two argument infons");
        if (arguments.size() > pubtator::Columns::kMaxColumns - 2)
            fail("relation with " + std::to_string(arguments.size()) + " arguments (at most " +
                 std::to_string(pubtator::Columns::kMaxColumns - 2) + ")");
        pubtator::Columns columns;
        columns.items[0] = pmid;
        columns.items[1] = *type;
        for (std::size_t i = 0; i < arguments.size(); ++i) columns.items[i + 2] = arguments[i];
        columns.count = arguments.size() + 2;
        try {
            Relation read = pubtator::parseRelation(columns);
            read.sourceLine = line_;
            return read;
        } catch (const Error& e) {
            fail(std::string("relation: ") + e.what());
        }
    }

    LeftOutTally& leftOut_;
};

}  // namespace

Document parseBioCJsonDocument(std::string_view json, const std::string& file, std::size_t line,
                               LeftOutTally& leftOut) {
    return DocumentParser(file, line, leftOut).parse(json);
}

BioCJsonDocumentReader::BioCJsonDocumentReader(const std::filesystem::path& path, CorpusPart part)
    : scanner_(std::make_unique<BioCJsonScanner>(path)), part_(part) {
    if (part.count == 0 || part.index >= part.count)
        throw Error("part " + std::to_string(part.index) + " of " + std::to_string(part.count) +
                    ": the part must be below the number of parts");
    std::error_code ec;
    fileBytes_ = std::filesystem::file_size(path, ec);
    if (ec) fileBytes_ = 0;
    const auto bound = [this](std::size_t index) {
        return static_cast<std::uint64_t>(static_cast<unsigned __int128>(fileBytes_) * index / part_.count);
    };
    low_ = bound(part.index);
    high_ = part.index + 1 == part.count ? std::numeric_limits<std::uint64_t>::max() : bound(part.index + 1);
    key_ = low_;
}

BioCJsonDocumentReader::~BioCJsonDocumentReader() = default;

const std::string& BioCJsonDocumentReader::fileName() const noexcept { return scanner_->fileName(); }

void BioCJsonDocumentReader::readMember(const std::string& key, const std::string& json, std::size_t line) {
    std::string* field = key == "source" ? &collection_.source
                         : key == "date" ? &collection_.date
                         : key == "key"  ? &collection_.key
                                         : nullptr;
    Json value;
    try {
        value = parseJson(json, fileName());
    } catch (const ParseError& e) {
        throw ParseError(fileName(), e.line() == 0 ? line : line + e.line() - 1, e.message());
    }
    if (!field) {
        if (key == "infons" && value.is_object()) {
            for (const auto& [infon, ignored] : value.items())
                leftOut_.note("collection infon \"" + infon + "\"", line);
        } else {
            leftOut_.note("collection key \"" + key + "\"", line);
        }
        return;
    }
    if (!value.is_string() && !value.is_null())
        throw ParseError(fileName(), line, "collection \"" + key + "\" must be a string, not " + briefJson(value));
    if (value.is_string()) *field = value.get<std::string>();
}

std::optional<Document> BioCJsonDocumentReader::next() {
    BioCJsonScanner::Piece piece;
    while (!done_ && scanner_->next(piece)) {
        if (piece.kind == BioCJsonScanner::Piece::Kind::Member) {
            readMember(piece.key, piece.json, piece.line);
            continue;
        }
        if (piece.positionKey < low_) continue;
        if (piece.positionKey >= high_) break;  // that document and those after it: later parts
        ++documents_;
        key_ = piece.positionKey;
        bytesRead_ += piece.json.size();
        crc_ = static_cast<std::uint32_t>(
            ::crc32_z(crc_, reinterpret_cast<const Bytef*>(piece.json.data()), piece.json.size()));
        return parseBioCJsonDocument(piece.json, fileName(), piece.line, leftOut_);
    }
    done_ = true;
    if (documents_ == 0 && part_.count == 1) throw ParseError(fileName(), 0, "the collection holds no documents");
    return std::nullopt;
}

double BioCJsonDocumentReader::fraction() const noexcept {
    if (done_) return 1.0;
    const std::uint64_t last = std::min(high_, fileBytes_);
    if (last <= low_) return 0.0;
    return static_cast<double>(std::clamp(key_, low_, last) - low_) / static_cast<double>(last - low_);
}

std::vector<Diagnostic> BioCJsonDocumentReader::diagnostics() const { return leftOut_.diagnostics(fileName()); }

Corpus readBioCJson(const std::filesystem::path& path) { return readAllDocuments<BioCJsonDocumentReader>(path); }

}  // namespace linkscope
