#pragma once
// Helpers shared by the corpus suites: fixture files in a temporary folder and checks that an
// error names the file and the line.
#include <QtTest/QtTest>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "test_data.h"
#include "util/error.h"

namespace linkscope::test {

/// A temporary folder that fixture files are written into.
class FixtureDir {
public:
    std::filesystem::path path(std::string_view name) const {
        return std::filesystem::path(dir_.path().toStdString()) / std::string(name);
    }
    std::filesystem::path write(std::string_view name, std::string_view content) const {
        const auto file = path(name);
        writeFile(file, content);
        return file;
    }

private:
    QTemporaryDir dir_;
};

/// Runs `action`, which must throw ParseError at `line` of the file named `fileName` with a
/// message containing `fragment`. Returns the message for further checks ("" on failure).
inline std::string expectParseError(const std::function<void()>& action, std::string_view fileName, std::size_t line,
                                    std::string_view fragment) {
    try {
        action();
    } catch (const ParseError& e) {
        const std::string what = e.what();
        const std::string location = std::string(fileName) + (line == 0 ? ": " : ":" + std::to_string(line) + ": ");
        if (e.line() != line || what.find(location) == std::string::npos || what.find(fragment) == std::string::npos) {
            qWarning("unexpected error: %s (wanted \"%s\" and \"%s\")", what.c_str(), location.c_str(),
                     std::string(fragment).c_str());
            return {};
        }
        return what;
    } catch (const std::exception& e) {
        qWarning("expected ParseError, got: %s", e.what());
        return {};
    }
    qWarning("expected ParseError at %s:%zu, nothing was thrown", std::string(fileName).c_str(), line);
    return {};
}

}  // namespace linkscope::test

/// QVERIFY that `statement` throws ParseError naming FILE:LINE and containing `fragment`.
#define LINKSCOPE_EXPECT_PARSE_ERROR(statement, fileName, line, fragment)                              \
    QVERIFY2(!::linkscope::test::expectParseError([&] { statement; }, fileName, line, fragment).empty(), \
             "expected ParseError at " fileName ":" #line " containing: " fragment)
