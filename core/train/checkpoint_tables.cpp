#include "train/checkpoint_tables.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/input_file.h"

namespace linkscope::train {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'L', 'S', 'T', 'A', 'B', 'L', 'E', '1'};
constexpr std::size_t kHeaderBytes = sizeof kMagic + 2 * sizeof(std::uint64_t);

template <typename T>
void writeValues(const fs::path& file, std::span<const T> values, std::uint64_t width) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    const std::uint64_t count = values.size();
    out.write(kMagic, sizeof kMagic);
    out.write(reinterpret_cast<const char*>(&width), sizeof width);
    out.write(reinterpret_cast<const char*>(&count), sizeof count);
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size_bytes()));
    out.flush();
    if (!out) throw Error(file.string() + ": cannot write the checkpoint table");
}

void readExactly(int fd, void* into, std::size_t bytes, const fs::path& file) {
    auto* at = static_cast<char*>(into);
    while (bytes > 0) {
        const ssize_t got = ::read(fd, at, bytes);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw Error(file.string() + ": cannot read the checkpoint table: " + std::strerror(errno));
        if (got == 0) throw Error(file.string() + ": the checkpoint table is truncated");
        at += got;
        bytes -= static_cast<std::size_t>(got);
    }
}

// The values of a table holding exactly `expected` values of rows `width` wide, read from a
// regular file (opened without waiting: a FIFO there is refused, not waited on).
template <typename T>
std::vector<T> readValues(const fs::path& file, std::uint64_t width, std::uint64_t expected) {
    const InputFile input = InputFile::open(file, "the checkpoint table");  // a FIFO: refused, not waited on
    const int fd = input.descriptor();
    const std::uint64_t size = input.size();
    if (size < kHeaderBytes) throw Error(file.string() + ": not a checkpoint table (too short)");
    char magic[sizeof kMagic];
    std::uint64_t storedWidth = 0, count = 0;
    readExactly(fd, magic, sizeof magic, file);
    readExactly(fd, &storedWidth, sizeof storedWidth, file);
    readExactly(fd, &count, sizeof count, file);
    if (std::memcmp(magic, kMagic, sizeof magic) != 0) throw Error(file.string() + ": not a checkpoint table");
    if (storedWidth != width)
        throw Error(file.string() + ": the checkpoint table has rows of " + std::to_string(storedWidth) +
                    ", expected " + std::to_string(width));
    if (count > (size - kHeaderBytes) / sizeof(T) || count * sizeof(T) != size - kHeaderBytes)
        throw Error(file.string() + ": the checkpoint table is truncated or has extra bytes");
    if (count != expected)
        throw Error(file.string() + ": holds " + std::to_string(count) + " values, this run's data needs " +
                    std::to_string(expected) + ": made for other training data or another model");
    std::vector<T> values(count);
    readExactly(fd, values.data(), count * sizeof(T), file);
    return values;
}

// rows x width, Error when that does not fit in 64 bits (no table that large was written).
std::uint64_t product(std::size_t rows, std::size_t width, const fs::path& file) {
    if (width != 0 && rows > std::numeric_limits<std::uint64_t>::max() / sizeof(float) / width)
        throw Error(file.string() + ": this run's data is too large for a checkpoint table");
    return std::uint64_t{rows} * width;
}

}  // namespace

void writeIdTable(const fs::path& file, std::span<const std::uint32_t> values, std::size_t width) {
    writeValues(file, values, width);
}

void writeVectorTable(const fs::path& file, std::span<const float> values) { writeValues(file, values, 1); }

std::vector<std::uint32_t> readIdTable(const fs::path& file, std::size_t rows, std::size_t width, std::size_t limit) {
    auto ids = readValues<std::uint32_t>(file, width, product(rows, width, file));
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] >= limit)
            throw Error(file.string() + ": row " + std::to_string(i / width) + ", column " + std::to_string(i % width) +
                        " holds the id " + std::to_string(ids[i]) + ", but there are " + std::to_string(limit) +
                        " entries: not a checkpoint of this run");
    return ids;
}

std::vector<float> readVectorTable(const fs::path& file, std::size_t rows, std::size_t dimension) {
    auto values = readValues<float>(file, 1, product(rows, dimension, file));
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw Error(file.string() + ": vector " + std::to_string(i / dimension) +
                        " holds a value that is not finite");
    return values;
}

}  // namespace linkscope::train
