#pragma once
// Reading a BioC JSON collection one document at a time, without holding the file: the
// collection object is walked byte by byte (gzip is looked through), its members other than the
// documents are handed over whole, and each element of its "documents" array is handed over as
// the JSON text of that one document. Each piece is then parsed on its own (parseJson), so memory
// is bounded by the largest document, not by the file.
//
// Checked here, before anything is held: the nesting of a value (kMaxJsonDepth, counted from the
// top of the file) and its size (maxValueBytes). Everything else (syntax inside a value, UTF-8
// in strings) is left to the parser of the piece, whose errors name the file's line.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace linkscope {

/// A BioC JSON document (or other member of the collection) larger than this is refused, before
/// it is held. PubTator3's largest full-text documents are far below it.
inline constexpr std::size_t kMaxBioCJsonValueBytes = std::size_t{64} << 20;

class BioCJsonScanner {
public:
    /// Opens the file through util/input_file.h (a FIFO, device or folder is refused, nothing
    /// waits on the path); plain or gzip. Errors are ParseError(path, 0, ...).
    explicit BioCJsonScanner(const std::filesystem::path& path, std::size_t maxValueBytes = kMaxBioCJsonValueBytes);
    ~BioCJsonScanner();
    BioCJsonScanner(const BioCJsonScanner&) = delete;
    BioCJsonScanner& operator=(const BioCJsonScanner&) = delete;

    struct Piece {
        enum class Kind {
            Member,    ///< a member of the collection other than its documents: key and value
            Document,  ///< one element of the collection's "documents" array
        };
        Kind kind = Kind::Member;
        std::string key;       ///< the member's key (decoded); "documents" for a document
        std::string json;      ///< the value's JSON text as written
        std::size_t line = 0;  ///< 1-based line of the value's first byte
        /// Where the value starts, for cutting the file into parts: in a plain file its byte
        /// offset; in a gzip file the compressed bytes read when the block holding it was
        /// decompressed (the same for every reader of the file). Grows through the file.
        std::uint64_t positionKey = 0;
    };

    /// The next piece, in file order; false after the collection's closing brace (only blanks may
    /// follow it). A second documents array, a file that is not one JSON object, a truncated
    /// file, a value nested too deep or too large: ParseError naming the file and line.
    /// PubTator3's export, which names the array "PubTator3", is read the same way.
    bool next(Piece& piece);

    const std::string& fileName() const noexcept;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace linkscope
