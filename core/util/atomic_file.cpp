#include "util/atomic_file.h"

#include <random>

#include "util/error.h"

namespace linkscope {

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : target_(std::move(target)) {
    std::random_device device;
    temporary_ = target_;
    temporary_ += ".tmp-" + std::to_string(device());
    out_.open(temporary_, std::ios::binary | std::ios::trunc);
    if (!out_) throw Error(target_.string() + ": cannot create file for writing");
}

AtomicFileWriter::~AtomicFileWriter() {
    if (committed_) return;
    out_.close();
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
}

void AtomicFileWriter::commit() {
    out_.flush();
    const bool ok = static_cast<bool>(out_);
    out_.close();
    if (!ok || out_.fail()) throw Error(target_.string() + ": write failed (disk full?)");
    std::error_code ec;
    std::filesystem::rename(temporary_, target_, ec);
    if (ec) throw Error(target_.string() + ": cannot replace file: " + ec.message());
    committed_ = true;
}

}  // namespace linkscope
