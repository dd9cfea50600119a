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
        const auto file = dir_.write("runs.jsonl",
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
        const auto notJson = dir_.write("a.jsonl", "{\"document\":\"1\",\"start\":0,\"end\":5,\"rank\":1,\"strict_rank\":1}\n{oops\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(notJson), notJson, 2, "not a JSON line");
        const auto missing = dir_.write("b.jsonl", "{\"document\":\"1\",\"start\":0,\"end\":5}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(missing), missing, 1, "not a per-mention line");
        const auto wrongType = dir_.write("c.jsonl", "{\"document\":\"1\",\"start\":\"zero\",\"end\":5,\"rank\":1,\"strict_rank\":1}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(wrongType), wrongType, 1, "not a per-mention line");
        const auto empty = dir_.write("d.jsonl", "");
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(empty), empty, 0, "no mentions");
        const auto notUtf8 = dir_.write("e.jsonl", "{\"document\":\"\xff\"}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(eval::readPerMention(notUtf8), notUtf8, 1, "UTF-8");
    }
};

QTEST_APPLESS_MAIN(TestEvalPerMention)
#include "test_eval_per_mention.moc"
