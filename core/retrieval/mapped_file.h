#pragma once
// A whole file mapped read-only (PROT_READ, MAP_SHARED) for as long as the object lives: its
// pages are the page cache's, so processes on one machine that map the same file share one copy
// of it, and the kernel may drop clean pages under memory pressure and read them again.
//
// A mapped file must not be truncated or rewritten in place while it is mapped (reading a page
// past its new end raises SIGBUS). Linkscope writes its index files whole to a temporary file
// and renames it over the old one (util/atomic_file.h), which leaves a mapped old file intact.
#include <cstddef>
#include <filesystem>
#include <string_view>

namespace linkscope::retrieval {

class MappedFile {
public:
    /// Maps `file` (a regular file; util/input_file.h checks what it is). ParseError naming the
    /// file when it cannot be opened or mapped; `what` names it in the message ("the sparse index
    /// file"). An empty file gives an empty view and no mapping.
    MappedFile(const std::filesystem::path& file, std::string_view what);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    /// The file's bytes, as they were when it was mapped (page-aligned).
    std::string_view bytes() const noexcept { return {static_cast<const char*>(data_), size_}; }

private:
    void* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace linkscope::retrieval
