#include "corpus/pubtator_reader.h"

#include <optional>
#include <utility>

#include "corpus/document_text.h"
#include "corpus/duplicate_documents.h"
#include "corpus/pubtator_lines.h"
#include "util/line_reader.h"

namespace linkscope {
namespace {

using pubtator::LineKind;
using pubtator::quoteForMessage;

std::string stemOf(const std::filesystem::path& path) {
    auto name = path.filename();
    if (name.extension() == ".gz") name = name.stem();
    return name.stem().string();
}

// What differs between two copies of a document, for the duplicate diagnostic.
std::string differenceOf(const Document& kept, const Document& dropped) {
    if (kept.title != dropped.title) return "the titles differ";
    if (kept.abstract != dropped.abstract || kept.hasAbstract != dropped.hasAbstract) return "the abstracts differ";
    if (kept.mentions.size() != dropped.mentions.size())
        return "the mentions differ (" + std::to_string(kept.mentions.size()) + " vs " +
               std::to_string(dropped.mentions.size()) + ")";
    for (std::size_t i = 0; i < kept.mentions.size(); ++i)
        if (!sameContent(kept.mentions[i], dropped.mentions[i]))
            return "mention " + std::to_string(i + 1) + " differs (lines " +
                   std::to_string(kept.mentions[i].sourceLine) + " and " +
                   std::to_string(dropped.mentions[i].sourceLine) + ")";
    return "the relations differ";
}

// Reads one file into a corpus that may already hold documents of earlier files.
class FileReader {
public:
    FileReader(Corpus& corpus, const PubTatorOptions& options) : corpus_(corpus), options_(options) {}

    void read(const std::filesystem::path& path, bool firstFile) {
        LineReaderOptions lineOptions;
        lineOptions.maxLineBytes = options_.maxLineBytes;
        LineReader reader(path, lineOptions);
        file_ = reader.fileName();
        std::string line;
        while (reader.next(line)) {
            line_ = reader.lineNumber();
            handle(line);
        }
        line_ = reader.lineNumber();
        finishDocument();
        if (documentsInFile_ == 0 && !options_.allowEmpty)
            throw ParseError(file_, 0, "no documents (expected PMID|t|title lines)");
        if (firstFile) corpus_.layout.leadingBlankLines = leadingBlank_;
        corpus_.layout.trailingBlankLines = trailingBlank_;
    }

private:
    void handle(std::string_view line) {
        const auto shape = pubtator::classify(line);
        switch (shape.kind) {
            case LineKind::WhitespaceOnly:
                diagnose(line_, "line of whitespace only, read as a blank line");
                [[fallthrough]];
            case LineKind::Blank:
                onBlank();
                return;
            case LineKind::Title:
                onTitle(shape.pmid, shape.rest);
                return;
            case LineKind::Abstract:
                onAbstract(shape.pmid, shape.rest);
                return;
            case LineKind::Annotation:
                onAnnotation(shape.pmid, line);
                return;
            case LineKind::Unknown:
                break;
        }
        fail("unrecognised line " + quoteForMessage(line) +
             ": expected PMID|t|title, PMID|a|abstract, a tab-separated mention or relation, or a blank line");
    }

    void onBlank() {
        if (current_) {
            previousPmid_ = current_->pmid();
            finishDocument();
        }
        if (documentsInFile_ == 0)
            ++leadingBlank_;
        else
            ++trailingBlank_;
        if (closedAtLine_ == 0 && documentsInFile_ > 0) closedAtLine_ = line_;
    }

    void onTitle(std::string_view pmid, std::string_view title) {
        checkPmid(pmid);
        finishDocument();  // a title without a blank line before it still starts a new document
        current_.emplace(std::string(pmid));
        current_->title = title;
        current_->hasAbstract = false;
        current_->sourceFile = file_;
        current_->sourceLine = line_;
        ++documentsInFile_;
        trailingBlank_ = 0;
        closedAtLine_ = 0;
    }

    void onAbstract(std::string_view pmid, std::string_view abstract) {
        checkPmid(pmid);
        if (!current_)
            fail("abstract line (|a|) for PMID " + std::string(pmid) + " without a title line (|t|) before it");
        if (pmid != current_->pmid())
            fail("abstract line for PMID " + std::string(pmid) + " inside document " + current_->pmid() +
                 " (title at line " + std::to_string(current_->sourceLine) + ")");
        if (current_->hasAbstract)
            fail("second abstract line for PMID " + std::string(pmid) + " (first at line " +
                 std::to_string(abstractLine_) + ")");
        if (!current_->mentions.empty() || !current_->relations.empty())
            fail("abstract line for PMID " + std::string(pmid) + " after its annotation lines");
        current_->abstract = abstract;
        current_->hasAbstract = true;
        abstractLine_ = line_;
    }

    void onAnnotation(std::string_view pmid, std::string_view line) {
        checkPmid(pmid);
        if (!current_) {
            if (documentsInFile_ == 0) fail("annotation line before any title line (PMID|t|title)");
            fail("annotation line for PMID " + std::string(pmid) + " outside a document: the blank line at line " +
                 std::to_string(closedAtLine_) + " ended document " + previousPmid_);
        }
        if (pmid != current_->pmid())
            fail("annotation line for PMID " + std::string(pmid) + " inside document " + current_->pmid() +
                 " (title at line " + std::to_string(current_->sourceLine) + ")");
        const auto columns = pubtator::splitColumns(line);
        try {
            if (pubtator::isRelation(columns)) {
                auto relation = pubtator::parseRelation(columns);
                relation.sourceLine = line_;
                current_->relations.push_back(std::move(relation));
                return;
            }
            auto mention = pubtator::parseMention(columns);
            mention.sourceLine = line_;
            validate(mention);
            current_->mentions.push_back(std::move(mention));
        } catch (const ParseError&) {
            throw;
        } catch (const Error& e) {
            fail(e.what());
        }
    }

    // Offsets count characters of title + " " + abstract, and the text there must be the
    // mention's text: a shifted offset would silently train and score on the wrong words.
    void validate(Mention& mention) {
        if (!text_) text_.emplace(*current_);
        if (!mention.individualMentions.empty() && !mention.ids.cuiLess &&
            mention.individualMentions.size() != mention.ids.ids.size())
            diagnose(line_, "the individual-mention column names " + std::to_string(mention.individualMentions.size()) +
                                " mentions for " + std::to_string(mention.ids.ids.size()) + " ids");
        const auto actual = text_->slice({mention.start, mention.end});
        if (mention.start < mention.end && actual && *actual == mention.text) return;  // the usual case
        if (const auto problem = offsetProblem(mention, actual); !problem.empty()) {
            if (!options_.lenient) fail(problem);
            mention.offsetsValid = false;
            diagnose(line_, problem + "; mention kept and flagged (lenient mode)");
            return;
        }
        diagnose(line_, "mention text " + quoteForMessage(mention.text) +
                            " has whitespace around it that is not in the document at " + rangeOf(mention) +
                            "; the mention is " + quoteForMessage(*actual));
        mention.paddedText = std::exchange(mention.text, std::string(*actual));
    }

    // Why the mention's offsets are wrong, or "" when the only difference is whitespace around
    // the text column that the options accept.
    std::string offsetProblem(const Mention& mention, std::optional<std::string_view> actual) const {
        if (mention.start >= mention.end)
            return "start offset " + std::to_string(mention.start) + " is not before end offset " +
                   std::to_string(mention.end);
        if (!actual)
            return rangeOf(mention) + " lie outside the text of document " + current_->pmid() + " (" +
                   std::to_string(text_->characterCount()) + " characters)";
        if (options_.allowPaddedMentionText && pubtator::trimmed(mention.text) == *actual) return {};
        return "mention text " + quoteForMessage(mention.text) + " does not match the document text " +
               quoteForMessage(*actual) + " at " + rangeOf(mention);
    }

    static std::string rangeOf(const Mention& mention) {
        return "offsets " + std::to_string(mention.start) + "-" + std::to_string(mention.end);
    }

    void finishDocument() {
        if (!current_) return;
        Document document = std::move(*current_);
        current_.reset();
        text_.reset();
        addKeepingFirstCopy(corpus_, std::move(document), differenceOf);
    }

    void checkPmid(std::string_view pmid) const {
        if (!pubtator::isValidPmid(pmid))
            fail("malformed PMID " + quoteForMessage(pmid) + " (expected letters, digits, '_', '.' or '-')");
    }

    [[noreturn]] void fail(const std::string& message) const { throw ParseError(file_, line_, message); }
    void diagnose(std::size_t line, std::string message) {
        corpus_.diagnostics.push_back(Diagnostic{file_, line, std::move(message)});
    }

    Corpus& corpus_;
    const PubTatorOptions& options_;
    std::string file_;
    std::size_t line_ = 0;
    std::optional<Document> current_;
    std::optional<DocumentText> text_;  // of current_, built at its first mention
    std::size_t abstractLine_ = 0;
    std::size_t documentsInFile_ = 0;
    std::size_t leadingBlank_ = 0;   // blank lines before the first document
    std::size_t trailingBlank_ = 0;  // blank lines since the end of the latest document
    std::size_t closedAtLine_ = 0;   // the blank line that ended the latest document
    std::string previousPmid_;
};

}  // namespace

Corpus readPubTator(std::span<const std::filesystem::path> paths, const PubTatorOptions& options) {
    Corpus corpus(options.name);
    bool first = true;
    for (const auto& path : paths) {
        if (options.name.empty()) corpus.name += (first ? "" : "+") + stemOf(path);
        corpus.sourceFiles.push_back(path.string());
        FileReader(corpus, options).read(path, first);
        first = false;
    }
    return corpus;
}

Corpus readPubTator(const std::filesystem::path& path, const PubTatorOptions& options) {
    return readPubTator(std::span<const std::filesystem::path>(&path, 1), options);
}

}  // namespace linkscope
