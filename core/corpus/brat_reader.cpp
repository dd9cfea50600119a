#include "corpus/brat_reader.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "corpus/document_text.h"
#include "corpus/pubtator_lines.h"
#include "util/json_file.h"
#include "util/line_reader.h"

namespace linkscope {
namespace {

using pubtator::quoteForMessage;

std::optional<std::size_t> parseOffset(std::string_view text) {
    std::size_t value = 0;
    const auto* last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(text.data(), last, value);
    if (text.empty() || ec != std::errc() || end != last || text.front() < '0' || text.front() > '9')
        return std::nullopt;
    return value;
}

// Splits on single spaces, as brat writes the fields of an annotation.
std::vector<std::string_view> words(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
        const auto space = text.find(' ', start);
        out.push_back(text.substr(start, space == std::string_view::npos ? std::string_view::npos : space - start));
        if (space == std::string_view::npos) return out;
        start = space + 1;
    }
}

struct TextBound {
    std::string id;
    std::size_t line = 0;
    std::size_t start = 0;
    std::size_t end = 0;
    std::string type;
    std::string text;
    std::vector<std::string> ids;  // canonical, from N lines in file order
    std::size_t firstNormalizationLine = 0;
    bool conjunction = false;
};

class AnnReader {
public:
    AnnReader(const std::filesystem::path& annFile, std::vector<Diagnostic>& diagnostics)
        : annFile_(annFile), file_(annFile.string()), diagnostics_(diagnostics) {}

    Document read() {
        const std::string pmid = annFile_.stem().string();
        if (!pubtator::isValidPmid(pmid))
            throw ParseError(file_, 0,
                             "the file name " + quoteForMessage(pmid) +
                                 " is not a PMID (expected letters, digits, '_', '.' or '-')");
        auto txtFile = annFile_;
        txtFile.replace_extension(".txt");
        std::error_code ec;
        if (!std::filesystem::is_regular_file(txtFile, ec))
            throw ParseError(file_, 0, "no text file " + txtFile.filename().string() + " beside it");
        Document document(pmid);
        document.sourceFile = file_;
        readText(txtFile, document);

        LineReader reader(annFile_);
        std::string line;
        while (reader.next(line)) {
            line_ = reader.lineNumber();
            handle(line);
        }
        for (const auto& [kind, seen] : leftOut_)
            diagnostics_.push_back(Diagnostic{
                file_, seen.second,
                std::to_string(seen.first) + " " + kind + ": a Linkscope document has no place for them; kept out"});
        resolveTargets();
        buildMentions(document);
        return document;
    }

private:
    static void readText(const std::filesystem::path& txtFile, Document& document) {
        // Lines joined with "\n" and the file's final line break dropped: the writer ends the
        // .txt with one, and brat files usually have it too.
        const std::string text = readTextFile(txtFile);
        const auto newline = text.find('\n');
        document.title = text.substr(0, newline);
        document.hasAbstract = newline != std::string::npos;
        if (document.hasAbstract) document.abstract = text.substr(newline + 1);
    }

    [[noreturn]] void fail(const std::string& message) const { throw ParseError(file_, line_, message); }
    [[noreturn]] void failAt(std::size_t line, const std::string& message) const {
        throw ParseError(file_, line, message);
    }

    void handle(std::string_view line) {
        if (line.empty()) return;
        const auto tab = line.find('\t');
        if (tab == std::string_view::npos || tab == 0)
            fail("expected an annotation line \"ID<TAB>...\", found " + quoteForMessage(line));
        const std::string id(line.substr(0, tab));
        if (id.find(' ') != std::string::npos) fail("annotation id " + quoteForMessage(id) + " holds a space");
        const auto rest = line.substr(tab + 1);
        if (id.front() != '#') {  // notes may repeat ids of other kinds' numbering
            if (const auto [it, added] = seenIds_.emplace(id, line_); !added)
                fail("annotation id " + id + " appears again (first at line " + std::to_string(it->second) + ")");
        }
        switch (id.front()) {
            case 'T':
                return onTextBound(id, rest);
            case 'N':
                return onNormalization(rest);
            case 'A':
                return onAttribute(rest);
            case 'R':
                return leaveOut("relation lines (R) between text-bound annotations");
            case 'E':
                return leaveOut("event lines (E)");
            case 'M':
                return leaveOut("modification lines (M)");
            case '#':
                return leaveOut("note lines (#)");
            case '*':
                return leaveOut("equivalence lines (*)");
            default:
                break;
        }
        fail("unrecognised annotation line " + quoteForMessage(line) +
             " (expected T, N, A, R, E, M, # or * lines of brat standoff)");
    }

    void leaveOut(const std::string& kind) {
        auto& seen = leftOut_[kind];
        if (seen.first++ == 0) seen.second = line_;
    }

    void onTextBound(const std::string& id, std::string_view rest) {
        const auto tab = rest.find('\t');
        if (tab == std::string_view::npos)
            fail("text-bound annotation " + id + " without its text (TYPE START END<TAB>text)");
        const auto data = rest.substr(0, tab);
        if (data.find(';') != std::string_view::npos)
            fail("text-bound annotation " + id + " has several spans (" + quoteForMessage(data) +
                 "): a discontinuous mention has no place in a Linkscope mention");
        const auto fields = words(data);
        if (fields.size() != 3 || fields[0].empty())
            fail("text-bound annotation " + id + ": expected TYPE START END, found " + quoteForMessage(data));
        const auto start = parseOffset(fields[1]);
        const auto end = parseOffset(fields[2]);
        if (!start || !end)
            fail("text-bound annotation " + id + ": offsets " +
                 quoteForMessage(std::string(fields[1]) + " " + std::string(fields[2])) +
                 " are not non-negative integers");
        TextBound bound;
        bound.id = id;
        bound.line = line_;
        bound.start = *start;
        bound.end = *end;
        bound.type = fields[0];
        bound.text = rest.substr(tab + 1);
        textBounds_.push_back(std::move(bound));
    }

    void onNormalization(std::string_view rest) {
        const auto data = rest.substr(0, rest.find('\t'));
        const auto fields = words(data);
        if (fields.size() != 3 || fields[0].empty() || fields[1].empty())
            fail("normalization: expected \"Reference T<n> DB:ID\", found " + quoteForMessage(data));
        const auto reference = fields[2];
        const auto colon = reference.find(':');
        if (colon == std::string_view::npos || colon == 0 || colon + 1 == reference.size())
            fail("normalization reference " + quoteForMessage(reference) + " is not DB:ID");
        if (reference.find_first_of("|+") != std::string_view::npos)
            fail("normalization reference " + quoteForMessage(reference) +
                 " holds '|' or '+' (write one N line per id)");
        const auto database = reference.substr(0, colon);
        const auto local = reference.substr(colon + 1);
        std::string id;
        if (database == "CUI-less") {
            if (local != "-1")
                fail("normalization reference " + quoteForMessage(reference) + ": CUI-less is written CUI-less:-1");
            id = "-1";
        } else if (database == "id") {
            id = local;
        } else {
            id = canonicalConceptId(reference).value_or(std::string(reference));
        }
        pending_.push_back({std::string(fields[1]), line_, std::move(id), false});
    }

    void onAttribute(std::string_view rest) {
        const auto fields = words(rest.substr(0, rest.find('\t')));
        if (fields.empty() || fields[0] != "IdJoin") return leaveOut("attribute lines (A) other than IdJoin");
        if (fields.size() != 3 || (fields[2] != "Conjunction" && fields[2] != "Alternative"))
            fail("attribute IdJoin: expected \"IdJoin T<n> Conjunction\" or \"... Alternative\", found " +
                 quoteForMessage(rest));
        pending_.push_back({std::string(fields[1]), line_, {}, fields[2] == "Conjunction"});
    }

    // N and A lines may come before or after their T line.
    void resolveTargets() {
        std::map<std::string, std::size_t, std::less<>> byId;
        for (std::size_t i = 0; i < textBounds_.size(); ++i) byId.emplace(textBounds_[i].id, i);
        for (auto& link : pending_) {
            const auto it = byId.find(link.target);
            if (it == byId.end())
                failAt(link.line,
                       "target " + quoteForMessage(link.target) + " is not a text-bound annotation of this file");
            TextBound& bound = textBounds_[it->second];
            if (link.conjunction) {
                bound.conjunction = true;
                continue;
            }
            if (link.id.empty()) continue;  // IdJoin Alternative: the default
            if (bound.ids.empty()) bound.firstNormalizationLine = link.line;
            bound.ids.push_back(std::move(link.id));
        }
    }

    void buildMentions(Document& document) {
        const DocumentText text(document);
        for (auto& bound : textBounds_) {
            std::string column;
            for (const auto& id : bound.ids) {
                if (!column.empty()) column += bound.conjunction ? '+' : '|';
                column += id;
            }
            const std::string start = std::to_string(bound.start);
            const std::string end = std::to_string(bound.end);
            pubtator::Columns columns;
            columns.items = {document.pmid(), start, end, bound.text, bound.type, column};
            columns.count = 6;
            Mention mention;
            try {
                mention = pubtator::parseMention(columns);
            } catch (const Error& e) {
                failAt(bound.ids.empty() ? bound.line : bound.firstNormalizationLine, e.what());
            }
            mention.sourceLine = bound.line;
            if (bound.start >= bound.end)
                failAt(bound.line, "text-bound annotation " + bound.id + ": start offset " + start +
                                       " is not before end offset " + end);
            const auto actual = text.slice({bound.start, bound.end});
            if (!actual)
                failAt(bound.line, "text-bound annotation " + bound.id + ": offsets " + start + "-" + end +
                                       " lie outside the text of " + document.pmid() + ".txt (" +
                                       std::to_string(text.characterCount()) + " characters)");
            if (*actual != bound.text)
                failAt(bound.line, "text-bound annotation " + bound.id + ": text " + quoteForMessage(bound.text) +
                                       " does not match the document text " + quoteForMessage(*actual) +
                                       " at offsets " + start + "-" + end);
            document.mentions.push_back(std::move(mention));
        }
    }

    struct PendingLink {
        std::string target;
        std::size_t line = 0;
        std::string id;            // N: the canonical id; empty for A
        bool conjunction = false;  // A IdJoin Conjunction
    };

    std::filesystem::path annFile_;
    std::string file_;
    std::vector<Diagnostic>& diagnostics_;
    std::size_t line_ = 0;
    std::vector<TextBound> textBounds_;
    std::vector<PendingLink> pending_;
    std::map<std::string, std::size_t, std::less<>> seenIds_;
    std::map<std::string, std::pair<std::size_t, std::size_t>> leftOut_;  // kind -> (count, first line)
};

}  // namespace

Document readBratDocument(const std::filesystem::path& annFile, std::vector<Diagnostic>& diagnostics) {
    return AnnReader(annFile, diagnostics).read();
}

Corpus readBrat(const std::filesystem::path& folder) {
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec)) throw ParseError(folder.string(), 0, "not a folder of brat files");
    std::vector<std::filesystem::path> annFiles, textFiles;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        if (!entry.is_regular_file()) continue;
        if (entry.path().extension() == ".ann")
            annFiles.push_back(entry.path());
        else if (entry.path().extension() == ".txt")
            textFiles.push_back(entry.path());
    }
    if (annFiles.empty()) throw ParseError(folder.string(), 0, "no .ann files (brat standoff) in the folder");
    std::sort(annFiles.begin(), annFiles.end());
    std::sort(textFiles.begin(), textFiles.end());

    Corpus corpus(folder.filename().empty() ? folder.parent_path().filename().string() : folder.filename().string());
    corpus.sourceFiles.push_back(folder.string());
    for (const auto& text : textFiles) {
        auto ann = text;
        ann.replace_extension(".ann");
        if (!std::binary_search(annFiles.begin(), annFiles.end(), ann))
            corpus.diagnostics.push_back(
                Diagnostic{text.string(), 0, "no " + ann.filename().string() + " beside it; the text was not read"});
    }
    // File names are unique in a folder, so are the PMIDs they give.
    for (const auto& ann : annFiles) corpus.add(readBratDocument(ann, corpus.diagnostics));
    return corpus;
}

}  // namespace linkscope
