#pragma once
// Known misspellings of corpus mentions and their corrections, one token to one replacement,
// as BioSyn's TextPreprocess applies them (resources/ncbi-spell-check.txt).
//
// File format: one `misspelling||correction` pair per line, UTF-8 (gzip allowed). Blank lines
// are skipped. Surrounding spaces and tabs of each field are ignored. The misspelling is a single
// token (it is compared with whitespace-separated tokens of the lower-cased text, so it should
// be lower case); the correction may hold several words ("atrialfibrillation||atrial
// fibrillation"). Corrections are not chained: a corrected token is not looked up again.
//
// Errors: a file without any entry, a line without "||", with more than one "||", with an empty field or with
// whitespace inside the misspelling is a ParseError naming file and line. A misspelling listed twice with two different
// corrections is a ParseError too (the file would be ambiguous and which entry wins would depend on reading order);
// listed twice with the same correction it is a Diagnostic.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/error.h"

namespace linkscope::text {

class SpellingMap {
public:
    /// Longest line load() accepts: entries are two words, a longer line means a wrong file.
    static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 16;

    /// Reads a `misspelling||correction` file (see the header comment for the rules). When
    /// diagnostics is given, non-fatal findings (repeated identical entries) are appended to it.
    static SpellingMap load(const std::filesystem::path& path, std::vector<Diagnostic>* diagnostics = nullptr);

    /// Adds one entry; throws Error when the misspelling is empty, contains whitespace, the
    /// correction is empty, or the misspelling already maps to a different correction.
    /// Returns false when the identical entry was already present.
    bool add(std::string misspelling, std::string correction);

    /// The correction of a token, or nullptr when the token is not a known misspelling.
    const std::string* find(std::string_view token) const;

    std::size_t size() const noexcept { return corrections_.size(); }
    bool empty() const noexcept { return corrections_.empty(); }

private:
    // Transparent hashing lets find() take a string_view without building a std::string for
    // every token of every name normalized.
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, std::string, Hash, std::equal_to<>> corrections_;
};

}  // namespace linkscope::text
