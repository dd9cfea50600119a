// readNamingFile: an allocation a reader's input sizes beyond this machine's memory becomes a
// ParseError naming the file; what the reader returns and its other errors pass unchanged.
#include <QtTest/QtTest>

#include <limits>
#include <new>
#include <string>
#include <vector>

#include "fixtures.h"
#include "util/allocation_guard.h"

using namespace linkscope;

class TestAllocationGuard : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void allocationFailureNamesTheFile() {
        // Counts read from a file, as a damaged header would give them: one beyond any memory
        // (std::bad_alloc), one beyond what a vector can hold at all (std::length_error).
        for (const std::size_t bytes : {std::size_t{1} << 60, std::numeric_limits<std::size_t>::max() / 2}) {
            LINKSCOPE_EXPECT_PARSE_ERROR(readNamingFile("/data/run.jsonl",
                                                        [&] {
                                                            std::vector<char> values;
                                                            values.reserve(bytes);
                                                            return values.size();
                                                        }),
                                         "/data/run.jsonl", 0, "needs more memory than this machine can give");
        }
    }

    void resultAndOtherErrorsPassUnchanged() {
        QCOMPARE(readNamingFile("a.txt", [] { return std::string("read"); }), std::string("read"));
        try {
            readNamingFile("a.txt", []() -> int { throw ParseError("b.txt", 3, "bad line"); });
            QFAIL("nothing thrown");
        } catch (const ParseError& e) {
            QCOMPARE(e.file(), std::string("b.txt"));
            QCOMPARE(e.line(), std::size_t{3});
        }
    }
};

QTEST_APPLESS_MAIN(TestAllocationGuard)
#include "test_allocation_guard.moc"
