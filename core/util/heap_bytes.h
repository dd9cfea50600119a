#pragma once
// Bytes a string holds outside itself, for the memory reports of the structures that keep many
// short strings (curation's mentions): its buffer when the text outgrows the one inside the
// string object (std::string::capacity() of a default string: 15 bytes in libstdc++, 22 in libc++),
// else nothing.
#include <cstddef>
#include <string>

namespace linkscope::util {

inline std::size_t heapBytes(const std::string& text) noexcept {
    static const std::size_t inside = std::string().capacity();
    return text.capacity() > inside ? text.capacity() + 1 : 0;
}

}  // namespace linkscope::util
