// The decisions log (JSONL): every kind and state, composite links, non-ASCII and quoted text
// written and read back unchanged, the exact line format, and malformed logs as ParseErrors
// naming the file and line.
#include "curation/decision_log.h"
#include "fixtures.h"
#include "gzip_fixture.h"

using namespace linkscope;
using project::Decision;
using project::DecisionKind;
using project::DecisionState;

namespace {

Decision sample(std::int64_t id, DecisionKind kind, DecisionState state) {
    Decision d;
    d.id = id;
    d.mention = {"train", "10923035", 22, 35};
    d.mentionText = "breast cancer";
    d.kind = kind;
    d.previousLink = "MESH:D001943";
    d.newLink = kind == DecisionKind::Nil                                    ? "-1"
                : kind == DecisionKind::Reject || kind == DecisionKind::Skip ? ""
                                                                             : "MESH:D001943";
    d.curator = "ana";
    d.timestamp = "2026-11-22T07:30:12.123Z";
    d.state = state;
    return d;
}

bool same(const Decision& a, const Decision& b) {
    return a.id == b.id && a.mention == b.mention && a.mentionText == b.mentionText && a.kind == b.kind &&
           a.previousLink == b.previousLink && a.newLink == b.newLink && a.curator == b.curator &&
           a.timestamp == b.timestamp && a.state == b.state;
}

constexpr std::string_view kGoodLine =
    R"({"id":1,"split":"train","document":"10923035","start":22,"end":35,"text":"breast cancer","kind":"accept",)"
    R"("previous":"MESH:D001943","new":"MESH:D001943","curator":"ana","timestamp":"2026-11-22T07:30:12.123Z","state":"done"})";

}  // namespace

class TestDecisionLog : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    // A log of a good line, then `bad` on line 2.
    std::filesystem::path logWith(std::string_view name, std::string_view bad) {
        return dir_.write(name, std::string(kGoodLine) + "\n" + std::string(bad) + "\n");
    }

    // kGoodLine with `from` replaced by `to` (and id 2, so that it is not a repeated id).
    static std::string variant(std::string_view from, std::string_view to) {
        std::string line(kGoodLine);
        line.replace(line.find("\"id\":1"), 6, "\"id\":2");
        const auto at = line.find(from);
        if (at != std::string::npos) line.replace(at, from.size(), to);
        return line;
    }

private Q_SLOTS:
    void exactLineFormat() {
        QCOMPARE(curation::formatDecisionLogLine(sample(1, DecisionKind::Accept, DecisionState::Done)),
                 std::string(kGoodLine));
    }

    void roundTrip() {
        std::vector<Decision> decisions{
            sample(1, DecisionKind::Accept, DecisionState::Done),
            sample(2, DecisionKind::Correct, DecisionState::Undone),
            sample(3, DecisionKind::Reject, DecisionState::Discarded),
            sample(4, DecisionKind::Nil, DecisionState::Done),
            sample(5, DecisionKind::Skip, DecisionState::Done),
        };
        decisions[1].newLink = "MESH:D003924|MESH:D009369";
        decisions[1].mentionText = "\xce\xb2-amyloid \"plaque\"\tand\\ more";  // non-ASCII, quotes, tab, backslash
        decisions[1].mention.start = 1'000'000;
        decisions[1].mention.end = 1'000'009;
        decisions[2].curator = "Jos\xc3\xa9";
        const auto file = dir_.path("log.jsonl");
        curation::writeDecisionLog(decisions, file);
        const std::string text = test::readFile(file);
        QCOMPARE(std::count(text.begin(), text.end(), '\n'), std::ptrdiff_t{5});
        QVERIFY(text.find("\xce\xb2-amyloid") != std::string::npos);  // UTF-8 kept, not \u-escaped
        const auto back = curation::readDecisionLog(file);
        QCOMPARE(back.size(), decisions.size());
        for (std::size_t i = 0; i < decisions.size(); ++i)
            QVERIFY2(same(back[i], decisions[i]), std::to_string(i).c_str());
    }

    void blankLinesAndGzip() {
        const auto file = dir_.path("log.jsonl.gz");
        test::writeGzip(file, "\n" + std::string(kGoodLine) + "\n  \n");
        const auto back = curation::readDecisionLog(file);
        QCOMPARE(back.size(), std::size_t{1});
        QVERIFY(same(back[0], sample(1, DecisionKind::Accept, DecisionState::Done)));
        QVERIFY(curation::readDecisionLog(dir_.write("empty.jsonl", "")).empty());  // no decisions yet
    }

    void writerRefusesInvalidUtf8() {
        Decision d = sample(1, DecisionKind::Accept, DecisionState::Done);
        d.mentionText = "caf\xe9";
        QVERIFY_THROWS_EXCEPTION(Error, curation::formatDecisionLogLine(d));
    }

    // --- malformed input ----------------------------------------------------------------------
    void notJson() {
        const auto file = logWith("notjson.jsonl", "{\"id\":2,");  // a truncated line
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(file), file, 2, "not valid JSON");
    }
    void deeplyNestedLine() {
        std::string objects;
        for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
        const auto file = logWith("deep.jsonl", objects);
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(file), file, 2, "nested deeper than");
        const auto arrays = logWith("deep-arrays.jsonl", std::string(100000, '[') + std::string(100000, ']'));
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(arrays), arrays, 2, "nested deeper than");
    }
    void notAnObject() {
        const auto file = logWith("array.jsonl", "[1,2]");
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(file), file, 2, "one JSON object per line");
    }
    void missingKey() {
        const auto file = logWith("missing.jsonl", variant(",\"curator\":\"ana\"", ""));
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(file), file, 2, "missing \"curator\"");
    }
    void wrongType() {
        const auto file = logWith("type.jsonl", variant("\"start\":22", "\"start\":\"22\""));
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(file), file, 2,
                                     "\"start\" must be a non-negative integer");
    }
    void negativeOffset() {
        const auto file = logWith("negative.jsonl", variant("\"start\":22", "\"start\":-3"));
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(file), file, 2,
                                     "\"start\" must be a non-negative integer");
    }
    void fractionalId() {
        const auto file = logWith("fraction.jsonl", variant("\"id\":2", "\"id\":2.5"));
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(file), file, 2, "\"id\" must be an integer");
    }
    void unknownKind() {
        const auto file = logWith("kind.jsonl", variant("\"accept\"", "\"approve\""));
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(file), file, 2, "unknown \"kind\" \"approve\"");
    }
    void unknownState() {
        const auto file = logWith("state.jsonl", variant("\"done\"", "\"pending\""));
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(file), file, 2, "unknown \"state\" \"pending\"");
    }
    void endBeforeStart() {
        const auto file = logWith("range.jsonl", variant("\"end\":35", "\"end\":20"));
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(file), file, 2, "\"end\" 20 is not after \"start\" 22");
    }
    void repeatedId() {
        const auto file = logWith("repeat.jsonl", kGoodLine);
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(file), file, 2,
                                     "decision id 1 appears again (first at line 1)");
    }
    void notUtf8() {
        const auto file = logWith("latin1.jsonl", variant("breast",
                                                          "br\xe9"
                                                          "ast"));
        LINKSCOPE_EXPECT_PARSE_ERROR(curation::readDecisionLog(file), file, 2, "invalid UTF-8");
    }
};

QTEST_APPLESS_MAIN(TestDecisionLog)
#include "test_decision_log.moc"
