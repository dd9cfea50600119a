#pragma once
// Helpers for "unit" suites that write their own fixtures: a temporary folder to write them
// into, and the check that a reader failed with a ParseError at the right file and line.
#include <QtTest/QtTest>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "test_data.h"
#include "util/error.h"

namespace linkscope::test {

/// A temporary folder that fixture files are written into; removed with the object.
class FixtureDir {
public:
    std::filesystem::path root() const { return dir_.path().toStdString(); }
    std::filesystem::path path(std::string_view name) const { return root() / std::string(name); }
    std::filesystem::path write(std::string_view name, std::string_view content) const {
        const auto file = path(name);
        writeFile(file, content);
        return file;
    }

private:
    QTemporaryDir dir_;
};

/// What running an action that should fail with a ParseError actually did.
struct ParseErrorCheck {
    std::string message;  // what() of the ParseError, when one was thrown
    std::string problem;  // empty when the error was the expected one, else what was wrong
    bool ok() const { return problem.empty(); }
};

/// Runs `action`, which must throw a ParseError
///  - at `line` (0: an error about the whole file),
///  - of the file `file`: the same path when `file` has a folder, else any file of that name,
///  - whose what() starts with that file's "FILE:LINE: " (or "FILE: " for line 0),
///  - and contains `fragment`.
inline ParseErrorCheck checkParseError(const std::function<void()>& action, const std::filesystem::path& file,
                                       std::size_t line, std::string_view fragment) {
    const std::string wanted =
        file.string() + ":" + std::to_string(line) + " containing \"" + std::string(fragment) + "\"";
    try {
        action();
    } catch (const ParseError& e) {
        ParseErrorCheck check{e.what(), {}};
        const bool sameFile =
            file.has_parent_path() ? e.file() == file.string() : std::filesystem::path(e.file()).filename() == file;
        const std::string location = e.file() + (line == 0 ? ": " : ":" + std::to_string(line) + ": ");
        if (!sameFile || e.line() != line || !check.message.starts_with(location) ||
            check.message.find(fragment) == std::string::npos)
            check.problem = "expected a ParseError at " + wanted + ", got: " + check.message;
        return check;
    } catch (const std::exception& e) {
        return {{}, "expected a ParseError at " + wanted + ", got another exception: " + e.what()};
    }
    return {{}, "expected a ParseError at " + wanted + ", nothing was thrown"};
}

}  // namespace linkscope::test

/// QVERIFY that `statement` throws a ParseError at FILE:LINE containing `fragment` (see
/// checkParseError); on failure the message says what happened instead.
#define LINKSCOPE_EXPECT_PARSE_ERROR(statement, file, line, fragment)                                               \
    do {                                                                                                            \
        const auto parseErrorCheck_ = ::linkscope::test::checkParseError([&] { statement; }, file, line, fragment); \
        QVERIFY2(parseErrorCheck_.ok(), parseErrorCheck_.problem.c_str());                                          \
    } while (false)
