#include "retrieval/mapped_file.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "util/error.h"
#include "util/input_file.h"

namespace linkscope::retrieval {

MappedFile::MappedFile(const std::filesystem::path& file, std::string_view what) {
    // The descriptor is closed when `input` goes out of scope; the mapping stays.
    const InputFile input = InputFile::open(file, what);
    if (input.size() == 0) return;
    const auto size = static_cast<std::size_t>(input.size());
    void* data = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, input.descriptor(), 0);
    if (data == MAP_FAILED)
        throw ParseError(file.string(), 0, "cannot map " + std::string(what) + ": " + std::strerror(errno));
    data_ = data;
    size_ = size;
}

MappedFile::~MappedFile() {
    if (data_ != nullptr) ::munmap(data_, size_);
}

}  // namespace linkscope::retrieval
