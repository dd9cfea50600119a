#pragma once
// Where the suites find real data (../shared/data beside the checkout, or $LINKSCOPE_DATA_DIR),
// and small helpers for fixtures that tests write themselves.
#include <QtTest/QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace linkscope::test {

inline std::filesystem::path sharedDataDir() {
    if (const char* env = std::getenv("LINKSCOPE_DATA_DIR"); env && *env) return env;
    return LINKSCOPE_DEFAULT_DATA_DIR;
}

/// Path of a file or folder under the shared data, or an empty path when it is absent.
inline std::filesystem::path sharedData(std::string_view relative) {
    const auto path = sharedDataDir() / relative;
    std::error_code ec;
    return std::filesystem::exists(path, ec) ? path : std::filesystem::path{};
}

inline void writeFile(const std::filesystem::path& path, std::string_view content) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    QVERIFY2(out.good(), path.string().c_str());
}

inline std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace linkscope::test

/// Skips the current test with a message naming the missing data, e.g.
///   LINKSCOPE_REQUIRE_DATA(path, "ncbi-disease/NCBItestset_corpus.txt");
/// The message starts with "absent" so ctest reports the suite as skipped, not passed.
#define LINKSCOPE_REQUIRE_DATA(var, relative)                                         \
    const std::filesystem::path var = ::linkscope::test::sharedData(relative);        \
    if (var.empty())                                                                  \
    QSKIP(qPrintable(QStringLiteral("absent: shared data %1 not found under %2 (set " \
                                    "LINKSCOPE_DATA_DIR to point at it)")             \
                         .arg(QString::fromUtf8(relative))                            \
                         .arg(QString::fromStdString(::linkscope::test::sharedDataDir().string()))))
