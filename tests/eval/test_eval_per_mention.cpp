// Reading per-mention files back (eval/per_mention_reader.h).
#include "eval/per_mention_reader.h"
#include "fixtures.h"
#include "test_data.h"

using namespace linkscope;

class TestEvalPerMention : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

private Q_SLOTS:
    void readsRanksAndTreatsNullAsNotFound() {
        const auto file =
            dir_.write("runs.jsonl",
                       "{\"document\":\"1\",\"start\":0,\"end\":5,\"rank\":1,\"strict_rank\":3,\"extra\":true}\n"
                       "\n"
                       "{\"document\":\"2\",\"start\":7,\"end\":9,\"rank\":null,\"strict_rank\":null}\n");
        const eval::EvalResult result = eval::readPerMention(file);
        QCOMPARE(result.mentions.size(), std::size_t{2});
        QCOMPARE(result.mentions[0].document, std::string("1"));
        QVERIFY(result.mentions[0].correctAt(1));
        QVERIFY(!result.mentions[0].correctAt(2, true));
        QVERIFY(result.mentions[0].correctAt(3, true));
        QCOMPARE(result.mentions[1].start, std::size_t{7});
        QVERIFY(!result.mentions[1].correctAt(64));
    }
    void malformedLinesNameFileAndLine() {
        const auto notJson =
            dir_.write("a.jsonl", "{\"document\":\"1\",\"start\":0,\"end\":5,\"rank\":1,\"strict_rank\":1}\n{oops\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(notJson), notJson, 2, "not valid JSON");
        const auto missing = dir_.write("b.jsonl", "{\"document\":\"1\",\"start\":0,\"end\":5}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(missing), missing, 1, "not a per-mention line");
        const auto wrongType =
            dir_.write("c.jsonl", "{\"document\":\"1\",\"start\":\"zero\",\"end\":5,\"rank\":1,\"strict_rank\":1}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(wrongType), wrongType, 1, "\"start\" must be a whole number");
        const auto empty = dir_.write("d.jsonl", "");
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(empty), empty, 0, "no mentions");
        const auto notUtf8 = dir_.write("e.jsonl", "{\"document\":\"\xff\"}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(notUtf8), notUtf8, 1, "UTF-8");
    }
    // Offsets and ranks are whole numbers >= 0: nlohmann alone would read -1 as 2^64 - 1 and
    // 1.9 as 1, and the comparison would then pair the wrong mentions without a word.
    void offsetsAndRanksMustBeWholeNonNegativeNumbers() {
        const auto line = [](const std::string& start, const std::string& end, const std::string& rank) {
            return "{\"document\":\"1\",\"start\":" + start + ",\"end\":" + end + ",\"rank\":" + rank +
                   ",\"strict_rank\":1}\n";
        };
        const auto negative = dir_.write("neg.jsonl", line("0", "5", "1") + line("-1", "5", "1"));
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(negative), negative, 2,
                                     "\"start\" must be a whole number >= 0, not -1");
        const auto fraction = dir_.write("frac.jsonl", line("1.9", "5", "1"));
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(fraction), fraction, 1, "not 1.9");
        const auto rank = dir_.write("rank.jsonl", line("0", "5", "-3"));
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(rank), rank, 1, "\"rank\" must be a whole number");
        const auto backwards = dir_.write("back.jsonl", line("5", "5", "1"));
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(backwards), backwards, 1, "at or before it starts");
        const auto array = dir_.write("array.jsonl", "[1, 2]\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(array), array, 1, "one JSON object per line");
        // A line of 100,000 nested arrays: an error at that line, not a stack overflow.
        const auto deep =
            dir_.write("deep.jsonl", line("0", "5", "1") + std::string(100000, '[') + std::string(100000, ']') + "\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(deep), deep, 2, "nested deeper than");
        // With a byte-order mark and CR line ends (an editor on Windows or a classic Mac), the
        // same two mentions as without.
        const auto bom = dir_.write("bom.jsonl", "\xEF\xBB\xBF" + line("0", "5", "1") + line("7", "9", "2"));
        QCOMPARE(eval::readPerMention(bom).mentions.size(), std::size_t{2});
        std::string crOnly = line("0", "5", "1") + line("7", "9", "2");
        std::replace(crOnly.begin(), crOnly.end(), '\n', '\r');
        const auto cr = dir_.write("cr.jsonl", crOnly);
        const auto read = eval::readPerMention(cr);
        QCOMPARE(read.mentions.size(), std::size_t{2});
        QCOMPARE(read.mentions[1].start, std::size_t{7});
    }
};

QTEST_APPLESS_MAIN(TestEvalPerMention)
#include "test_eval_per_mention.moc"
