#pragma once
// A corpus: documents in file order, looked up by PMID, with what was noticed while reading.
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/document.h"
#include "util/error.h"

namespace linkscope {

/// A document that appeared a second time (same PMID). Only the first copy is kept.
struct DuplicateDocument {
    std::string pmid;
    std::string keptFile;
    std::size_t keptLine = 0;
    std::string droppedFile;
    std::size_t droppedLine = 0;
    bool identical = false;  ///< both copies have the same text and annotations
};

/// Blank lines around the documents of the source file. Documents are always separated by one
/// blank line; NCBI Disease starts with an empty line and BC5CDR dev ends with one, and writing
/// the corpus back should reproduce that.
struct PubTatorLayout {
    std::size_t leadingBlankLines = 0;
    std::size_t trailingBlankLines = 0;
};

class Corpus {
public:
    Corpus() = default;
    explicit Corpus(std::string corpusName) : name(std::move(corpusName)) {}

    std::string name;
    std::vector<std::string> sourceFiles;
    std::vector<Diagnostic> diagnostics;
    std::vector<DuplicateDocument> duplicates;
    PubTatorLayout layout;

    std::span<const Document> documents() const noexcept { return documents_; }
    /// Mutable access for editing annotations. Document fixes its PMID, so edits keep the
    /// lookup index valid; do not assign whole Documents through it (that would swap a PMID
    /// behind the index's back): build a new Corpus instead.
    std::span<Document> documents() noexcept { return documents_; }
    std::size_t size() const noexcept { return documents_.size(); }
    bool empty() const noexcept { return documents_.empty(); }

    const Document* find(std::string_view pmid) const noexcept;
    Document* find(std::string_view pmid) noexcept;
    bool contains(std::string_view pmid) const noexcept { return find(pmid) != nullptr; }

    /// Appends a document; throws Error when its PMID is already in the corpus (readers check
    /// for duplicates first and report them as DuplicateDocument).
    Document& add(Document document);

private:
    std::vector<Document> documents_;
    std::map<std::string, std::size_t, std::less<>> index_;
};

}  // namespace linkscope
