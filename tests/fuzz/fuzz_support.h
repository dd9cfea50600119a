#pragma once
// Shared by the libFuzzer targets of tests/fuzz (one fuzz_<reader>.cpp per reader of outside data).
//
// Every reader of the engine takes a path, so a target writes the input bytes to a file in a
// scratch folder of its own (one per process, removed at exit) and calls the reader on it.
// Inputs that stand for several files (brat's .txt and .ann, MRCONSO and MRSTY, a tokenizer's
// vocab.txt and JSON files, a run's run.json and preset.json) are split at NUL bytes: part 1
// before the first NUL, part 2 up to the next one, and so on; a missing part is a missing file.
//
// Oracle: a reader may refuse an input with linkscope::Error (ParseError is one); that is the
// expected outcome of a bad file. Anything else is a finding: another exception type (it is
// printed, then the process aborts so that libFuzzer keeps the input), std::bad_alloc, a crash,
// an AddressSanitizer or UndefinedBehaviorSanitizer report, a time-out or running out of memory.
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <typeinfo>
#include <vector>

#include "util/error.h"

namespace linkscope::fuzz {

/// This process's scratch folder (created on first use, removed with everything in it at exit).
/// Held by a pointer that is never freed, so that the exit handler still finds it.
inline const std::filesystem::path& scratch() {
    static const std::filesystem::path* const folder = [] {
        std::error_code ignored;
        auto base = std::filesystem::temp_directory_path(ignored);
        if (base.empty()) base = "/tmp";
        auto* path = new std::filesystem::path(base / ("linkscope-fuzz-" + std::to_string(::getpid())));
        std::filesystem::remove_all(*path, ignored);
        std::filesystem::create_directories(*path);
        std::atexit([] {
            std::error_code e;
            std::filesystem::remove_all(scratch(), e);
        });
        return path;
    }();
    return *folder;
}

/// A fresh, empty sub-folder of scratch() (emptied when it exists).
inline std::filesystem::path freshFolder(std::string_view name) {
    const auto folder = scratch() / std::string(name);
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
    std::filesystem::create_directories(folder);
    return folder;
}

inline void writeFile(const std::filesystem::path& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
        std::fprintf(stderr, "fuzz harness: cannot write %s\n", path.c_str());
        std::abort();
    }
}

inline std::string_view bytesOf(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

/// The input split at NUL bytes into at most `maxParts` parts (the last keeps any further NULs).
inline std::vector<std::string_view> splitParts(std::string_view input, std::size_t maxParts) {
    std::vector<std::string_view> parts;
    while (parts.size() + 1 < maxParts) {
        const auto nul = input.find('\0');
        if (nul == std::string_view::npos) break;
        parts.push_back(input.substr(0, nul));
        input.remove_prefix(nul + 1);
    }
    parts.push_back(input);
    return parts;
}

/// Runs one reader call: linkscope::Error is the expected refusal, anything else aborts with a
/// message saying what escaped (libFuzzer then saves the input as crash-...).
/// With LINKSCOPE_FUZZ_VERBOSE set, each call says whether the input was accepted or why it was
/// refused (to check that seeds are accepted, or to see what a reproducer does).
template <typename F>
bool expectErrorOr(const char* what, F&& call) {
    static const bool verbose = std::getenv("LINKSCOPE_FUZZ_VERBOSE") != nullptr;
    try {
        call();
        if (verbose) std::fprintf(stderr, "%s: accepted\n", what);
        return true;
    } catch (const linkscope::Error& e) {
        if (verbose) std::fprintf(stderr, "%s: refused: %.300s\n", what, e.what());
        return false;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "\n*** fuzz finding: %s threw %s (not linkscope::Error): %s\n", what, typeid(e).name(),
                     e.what());
        std::abort();
    } catch (...) {
        std::fprintf(stderr, "\n*** fuzz finding: %s threw a non-std exception\n", what);
        std::abort();
    }
}

/// Little-endian u64 at `at` (for the binary formats' fix-ups).
inline void putU64(std::string& bytes, std::size_t at, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xff);
}
inline void putU32(std::string& bytes, std::size_t at, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xff);
}

}  // namespace linkscope::fuzz
