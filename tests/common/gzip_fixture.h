#pragma once
// Writing gzip fixtures, for suites that check that readers open .gz files transparently.
// A suite that includes this links ZLIB::ZLIB (LIBS in linkscope_add_test).
#include <zlib.h>
#include <QtTest/QtTest>

#include <filesystem>
#include <string_view>

namespace linkscope::test {

/// Writes `content` gzip-compressed to `path`; every zlib call must succeed.
inline void writeGzip(const std::filesystem::path& path, std::string_view content) {
    gzFile file = gzopen(path.string().c_str(), "wb");
    QVERIFY(file);
    const int written = gzwrite(file, content.data(), static_cast<unsigned>(content.size()));
    const int closed = gzclose(file);  // closed before the checks, so that a failure leaks nothing
    QCOMPARE(written, static_cast<int>(content.size()));
    QCOMPARE(closed, Z_OK);
}

}  // namespace linkscope::test
