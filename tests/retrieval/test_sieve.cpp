// Xu & Bethard's search strategies and sieve: names, malformed specs, and which stage decides.
#include <limits>
#include <map>
#include <string>

#include "retrieval/sieve.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

template <typename F>
std::string errorOf(F&& call) {
    try {
        call();
    } catch (const Error& error) {
        return error.what();
    }
    return {};
}

std::vector<std::uint32_t> entitiesOf(const std::vector<EntityScore>& ranked) {
    std::vector<std::uint32_t> entities;
    for (const auto& scored : ranked) entities.push_back(scored.entity);
    return entities;
}

// Canned searches that record which stages were asked, in order.
struct Recorder {
    std::map<std::string, std::vector<EntityScore>> results;  // by strategy name; absent = empty
    std::vector<EntityScore> exact;
    std::vector<std::string> calls;

    std::function<std::vector<EntityScore>()> exactMatches() {
        return [this] {
            calls.push_back("exact");
            return exact;
        };
    }
    std::function<std::vector<EntityScore>(const SearchStrategy&)> search() {
        return [this](const SearchStrategy& strategy) {
            const auto name = strategyName(strategy);
            calls.push_back(name);
            const auto it = results.find(name);
            return it == results.end() ? std::vector<EntityScore>{} : it->second;
        };
    }
    SieveOutcome run(const SieveSpec& spec) { return runSieve(spec, exactMatches(), search()); }
};

using Names = std::vector<std::string>;

}  // namespace

class TestSieve : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void strategyNamesRoundTrip() {
        const Names names{"O-T", "O-C", "D-T", "D-C", "OD-T", "OD-C"};
        std::vector<SearchStrategy> seen;
        for (const auto& name : names) {
            const auto strategy = parseStrategy(name);
            QCOMPARE(strategyName(strategy), name);
            for (const auto& other : seen) QVERIFY(!(other == strategy));
            seen.push_back(strategy);
        }
        QCOMPARE(parseStrategy("OD-C").target, SearchTarget::Both);
        QCOMPARE(parseStrategy("OD-C").unit, SearchUnit::Concept);
        QCOMPARE(parseStrategy("D-T").target, SearchTarget::Data);
        QCOMPARE(parseStrategy("D-T").unit, SearchUnit::Text);
        QCOMPARE(parseStrategy("O-T").target, SearchTarget::Ontology);
        QCOMPARE(strategyName(parseStrategy(" O-C\t")), std::string("O-C"));
        QCOMPARE(strategyName({SearchTarget::Both, SearchUnit::Text}), std::string("OD-T"));
    }

    void unknownStrategiesListTheValidNames() {
        for (const char* junk : {"", "o-t", "DO-T", "OD", "OD-", "-T", "X-T", "OD-TC", "OD_T", "exact"}) {
            const auto message = errorOf([&] { parseStrategy(junk); });
            QVERIFY2(message.find("O-T, O-C, D-T, D-C, OD-T, OD-C") != std::string::npos, junk);
        }
    }

    void sieveNamesRoundTrip() {
        const Names strategies{"O-T", "O-C", "D-T", "D-C", "OD-T", "OD-C"};
        // Every plain search and every two-stage sieve of distinct strategies (Table 2's eight among them),
        // with and without an exact stage.
        for (const auto& first : strategies) {
            for (const auto& prefix : {std::string(), std::string("exact+")}) {
                const auto plain = prefix + first;
                QCOMPARE(sieveName(parseSieve(plain)), plain);
                for (const auto& second : strategies) {
                    if (second == first) continue;
                    const auto name = prefix + first + "+" + second;
                    const auto spec = parseSieve(name);
                    QCOMPARE(spec.exactMatch, !prefix.empty());
                    QCOMPARE(spec.stages.size(), std::size_t{2});
                    QCOMPARE(sieveName(spec), name);
                }
            }
        }
        const auto three = parseSieve("exact + D-T + OD-T + O-C");
        QVERIFY(three.exactMatch);
        QCOMPARE(three.stages.size(), std::size_t{3});
        QCOMPARE(three.stages[0], parseStrategy("D-T"));
        QCOMPARE(three.stages[1], parseStrategy("OD-T"));
        QCOMPARE(three.stages[2], parseStrategy("O-C"));
        QCOMPARE(three.threshold, 0.95);
        QCOMPARE(sieveName(three), std::string("exact+D-T+OD-T+O-C"));
        const auto plain = parseSieve("OD-T");
        QVERIFY(!plain.exactMatch);
        QCOMPARE(plain.stages.size(), std::size_t{1});
    }

    void malformedSieves_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("named");
        QTest::newRow("empty") << ""
                               << "empty";
        QTest::newRow("blank") << "  "
                               << "empty";
        QTest::newRow("lone plus") << "+"
                                   << "empty component at position 1";
        QTest::newRow("leading plus") << "+D-T"
                                      << "empty component at position 1";
        QTest::newRow("trailing plus") << "D-T+"
                                       << "empty component at position 2";
        QTest::newRow("double plus") << "D-T++OD-T"
                                     << "empty component at position 2";
        QTest::newRow("junk") << "D-T+banana"
                              << "unknown strategy 'banana'";
        QTest::newRow("lower case") << "d-t"
                                    << "unknown strategy 'd-t'";
        QTest::newRow("other separator") << "D-T,OD-T"
                                         << "unknown strategy 'D-T,OD-T'";
        QTest::newRow("exact only") << "exact"
                                    << "no search stage";
        QTest::newRow("exact twice") << "exact+exact+D-T"
                                     << "'exact' given twice";
        QTest::newRow("exact late") << "D-T+exact+OD-T"
                                    << "'exact' must come first";
        QTest::newRow("exact last") << "D-T+exact"
                                    << "'exact' must come first";
        QTest::newRow("exact upper") << "EXACT+D-T"
                                     << "unknown strategy 'EXACT'";
        QTest::newRow("repeated stage") << "D-T+OD-T+D-T"
                                        << "'D-T' given twice";
    }
    void malformedSieves() {
        QFETCH(QString, spec);
        QFETCH(QString, named);
        const auto message = errorOf([&] { parseSieve(spec.toStdString()); });
        QVERIFY2(message.find(named.toStdString()) != std::string::npos, message.c_str());
        // The whole spec is quoted, and the valid strategies listed.
        QVERIFY2(message.find("sieve '" + spec.toStdString() + "'") != std::string::npos, message.c_str());
        QVERIFY2(message.find("O-T, O-C, D-T, D-C, OD-T, OD-C") != std::string::npos, message.c_str());
    }

    void firstStageDecidesAndLaterOnesAreNotSearched() {
        Recorder recorder;
        recorder.results["D-T"] = {{7, 0.97f}, {8, 0.5f}};
        recorder.results["OD-T"] = {{9, 0.99f}};
        const auto spec = parseSieve("D-T+OD-T");
        const auto outcome = recorder.run(spec);
        QCOMPARE(recorder.calls, (Names{"D-T"}));
        QCOMPARE(entitiesOf(outcome.ranked), (std::vector<std::uint32_t>{7, 8}));
        QCOMPARE(outcome.stage, std::size_t{0});
        QVERIFY(!outcome.exact);
        QCOMPARE(stageName(spec, outcome), std::string("D-T"));
    }

    void stagesRunInOrderUntilOneDecides() {
        Recorder recorder;
        recorder.results["D-T"] = {{1, 0.9f}};
        recorder.results["D-C"] = {{2, 0.96f}, {3, 0.2f}};
        recorder.results["OD-T"] = {{4, 0.99f}};
        const auto spec = parseSieve("D-T+D-C+OD-T");
        const auto outcome = recorder.run(spec);
        QCOMPARE(recorder.calls, (Names{"D-T", "D-C"}));
        QCOMPARE(entitiesOf(outcome.ranked), (std::vector<std::uint32_t>{2, 3}));
        QCOMPARE(outcome.stage, std::size_t{1});
        QCOMPARE(stageName(spec, outcome), std::string("D-C"));
    }

    void thresholdBoundary() {
        const auto spec = parseSieve("D-T+OD-T");
        {
            Recorder recorder;
            recorder.results["D-T"] = {{1, 0.95f}};
            recorder.results["OD-T"] = {{2, 0.99f}};
            const auto outcome = recorder.run(spec);  // exactly 0.95 decides
            QCOMPARE(recorder.calls, (Names{"D-T"}));
            QCOMPARE(entitiesOf(outcome.ranked), std::vector<std::uint32_t>{1});
        }
        {
            Recorder recorder;
            recorder.results["D-T"] = {{1, 0.9499f}};
            recorder.results["OD-T"] = {{2, 0.3f}};
            const auto outcome = recorder.run(spec);  // just below falls through
            QCOMPARE(recorder.calls, (Names{"D-T", "OD-T"}));
            QCOMPARE(entitiesOf(outcome.ranked), std::vector<std::uint32_t>{2});
            QCOMPARE(outcome.stage, std::size_t{1});
        }
        {
            // The float just below 0.95f falls through too.
            Recorder recorder;
            recorder.results["D-T"] = {{1, std::nextafter(0.95f, 0.0f)}};
            recorder.run(spec);
            QCOMPARE(recorder.calls, (Names{"D-T", "OD-T"}));
        }
        {
            // Only the top (first) similarity counts: a list whose first entry is below the threshold
            // does not decide even if a later one is above.
            Recorder recorder;
            recorder.results["D-T"] = {{1, 0.5f}, {2, 0.99f}};
            recorder.run(spec);
            QCOMPARE(recorder.calls, (Names{"D-T", "OD-T"}));
        }
        {
            // Another threshold.
            auto lower = spec;
            lower.threshold = 0.8;
            Recorder recorder;
            recorder.results["D-T"] = {{1, 0.8f}};
            QCOMPARE(entitiesOf(recorder.run(lower).ranked), std::vector<std::uint32_t>{1});
            QCOMPARE(recorder.calls, (Names{"D-T"}));
        }
        {
            // A threshold beyond the range of float: no score reaches it.
            auto unreachable = spec;
            unreachable.threshold = 1e300;
            Recorder recorder;
            recorder.results["D-T"] = {{1, std::numeric_limits<float>::max()}};
            recorder.run(unreachable);
            QCOMPARE(recorder.calls, (Names{"D-T", "OD-T"}));
        }
    }

    void lastStageDecidesBelowTheThreshold() {
        Recorder recorder;
        recorder.results["D-T"] = {{1, 0.6f}};
        recorder.results["OD-T"] = {{2, 0.4f}, {3, 0.3f}};
        const auto spec = parseSieve("D-T+OD-T");
        const auto outcome = recorder.run(spec);
        QCOMPARE(recorder.calls, (Names{"D-T", "OD-T"}));
        QCOMPARE(entitiesOf(outcome.ranked), (std::vector<std::uint32_t>{2, 3}));
        QCOMPARE(outcome.ranked[0].score, 0.4f);
        QCOMPARE(outcome.stage, std::size_t{1});
        QCOMPARE(stageName(spec, outcome), std::string("OD-T"));
        // A plain search is a one-stage sieve: its ranking is returned whatever its score.
        Recorder single;
        single.results["O-T"] = {{5, 0.1f}};
        const auto plain = single.run(parseSieve("O-T"));
        QCOMPARE(single.calls, Names{"O-T"});
        QCOMPARE(entitiesOf(plain.ranked), std::vector<std::uint32_t>{5});
        QCOMPARE(plain.stage, std::size_t{0});
    }

    void emptyEarlierStageFallsThrough() {
        Recorder recorder;
        recorder.results["OD-T"] = {{2, 0.4f}};  // D-T finds nothing
        const auto outcome = recorder.run(parseSieve("D-T+OD-T"));
        QCOMPARE(recorder.calls, (Names{"D-T", "OD-T"}));
        QCOMPARE(entitiesOf(outcome.ranked), std::vector<std::uint32_t>{2});
        // A threshold below every score still does not let an empty stage decide.
        auto anything = parseSieve("D-T+OD-T");
        anything.threshold = -std::numeric_limits<double>::infinity();
        Recorder second;
        second.results["OD-T"] = {{2, 0.4f}};
        second.run(anything);
        QCOMPARE(second.calls, (Names{"D-T", "OD-T"}));
        // An empty last stage returns empty.
        Recorder none;
        const auto empty = none.run(parseSieve("D-T+OD-T"));
        QCOMPARE(none.calls, (Names{"D-T", "OD-T"}));
        QVERIFY(empty.ranked.empty());
        QCOMPARE(empty.stage, std::size_t{1});
        QVERIFY(!empty.exact);
    }

    void exactStageComesFirst() {
        Recorder recorder;
        recorder.exact = {{11, 1.0f}, {3, 1.0f}};  // kept in the given order
        recorder.results["D-T"] = {{1, 0.99f}};
        const auto spec = parseSieve("exact+D-T+OD-T");
        const auto outcome = recorder.run(spec);
        QCOMPARE(recorder.calls, Names{"exact"});
        QVERIFY(outcome.exact);
        QCOMPARE(outcome.stage, std::size_t{0});
        QCOMPARE(entitiesOf(outcome.ranked), (std::vector<std::uint32_t>{11, 3}));
        QCOMPARE(stageName(spec, outcome), std::string("exact"));
    }

    void exactStageWithoutMatchIsSkipped() {
        Recorder recorder;
        recorder.results["D-T"] = {{1, 0.5f}};
        recorder.results["OD-T"] = {{2, 0.96f}};
        const auto spec = parseSieve("exact+D-T+OD-T");
        const auto outcome = recorder.run(spec);
        QCOMPARE(recorder.calls, (Names{"exact", "D-T", "OD-T"}));
        QVERIFY(!outcome.exact);
        QCOMPARE(outcome.stage, std::size_t{2});  // positions: exact 0, D-T 1, OD-T 2
        QCOMPARE(stageName(spec, outcome), std::string("OD-T"));
        QCOMPARE(entitiesOf(outcome.ranked), std::vector<std::uint32_t>{2});
        // With the exact stage off, exactMatches is never called (and may be empty).
        Recorder plain;
        plain.results["D-T"] = {{1, 0.97f}};
        const auto withoutExact = runSieve(parseSieve("D-T+OD-T"), {}, plain.search());
        QCOMPARE(plain.calls, Names{"D-T"});
        QCOMPARE(withoutExact.stage, std::size_t{0});
    }

    void invalidRunsAreErrors() {
        Recorder recorder;
        QVERIFY_THROWS_EXCEPTION(Error, recorder.run(SieveSpec{}));  // no stage
        auto spec = parseSieve("exact+D-T");
        QVERIFY_THROWS_EXCEPTION(Error, runSieve(spec, {}, recorder.search()));  // exact stage, no function
        QVERIFY_THROWS_EXCEPTION(Error, runSieve(spec, recorder.exactMatches(), {}));
        spec.threshold = std::numeric_limits<double>::quiet_NaN();
        QVERIFY_THROWS_EXCEPTION(Error, recorder.run(spec));
        QVERIFY(recorder.calls.empty());  // checked before any search
        // A stage position that the spec does not have.
        QVERIFY_THROWS_EXCEPTION(Error, stageName(parseSieve("D-T"), SieveOutcome{.ranked = {}, .stage = 1}));
        // An error from a search passes through.
        const auto failing = [](const SearchStrategy&) -> std::vector<EntityScore> { throw Error("index gone"); };
        QVERIFY_THROWS_EXCEPTION(Error, runSieve(parseSieve("D-T"), {}, failing));
    }
};

QTEST_APPLESS_MAIN(TestSieve)
#include "test_sieve.moc"
