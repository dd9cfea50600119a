#pragma once
// Writing a file so that readers never see it half-written: the content goes to a temporary
// file beside the target, which replaces the target only on commit().
#include <filesystem>
#include <fstream>

namespace linkscope {

class AtomicFileWriter {
public:
    /// Opens "<target>.tmp-<random>" in the target's folder; throws Error when it cannot.
    explicit AtomicFileWriter(std::filesystem::path target);
    /// Removes the temporary file unless commit() succeeded.
    ~AtomicFileWriter();
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

    std::ostream& stream() noexcept { return out_; }
    /// Flushes, closes and renames over the target; throws Error on any failure.
    void commit();

private:
    std::filesystem::path target_;
    std::filesystem::path temporary_;
    std::ofstream out_;
    bool committed_ = false;
};

}  // namespace linkscope
