#pragma once
// Reading with sizes the input decides: an allocation that fails there is the input's doing
// (a count, a shape, a length that asks for more memory than this machine has), and the user
// must learn which file asked. readNamingFile() turns std::bad_alloc from a reader, and
// std::length_error (a size beyond what a container can hold at all, e.g. "vector::reserve"),
// into a ParseError naming the file; either failing elsewhere still reaches the CLI's top
// level, which names the command.
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "util/error.h"

namespace linkscope {

/// The message of a ParseError for an allocation `file` sized beyond this machine's memory.
inline std::string allocationFailureMessage() {
    return "needs more memory than this machine can give while reading it (a size or count in it is too large, "
           "or the file is damaged)";
}

/// Runs read() and returns what it returns; std::bad_alloc or std::length_error thrown by it
/// becomes ParseError(file, 0, allocationFailureMessage()). Other exceptions pass unchanged.
template <class Read>
decltype(auto) readNamingFile(const std::filesystem::path& file, Read&& read) {
    try {
        return std::forward<Read>(read)();
    } catch (const std::bad_alloc&) {
        throw ParseError(file.string(), 0, allocationFailureMessage());
    } catch (const std::length_error&) {
        throw ParseError(file.string(), 0, allocationFailureMessage());
    }
}

}  // namespace linkscope
