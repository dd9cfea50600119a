// The review queue on constructed signals: the doubt from the margin and from the
// linkers' disagreement, the priority with the reach, the order and its ties, the same-surface
// reach; the mention-level simulated review in document and queue order with a linker that does
// not learn, with one that does (a decision changes the proposals of the mentions it reaches),
// and with "apply to all identical mentions"; the sparse linker on a hand-made KB; refusals.
#include <QTest>

#include <cmath>

#include "curation/review_queue.h"
#include "curation/review_walk.h"
#include "curation/sparse_candidates.h"
#include "curation/sparse_review_linker.h"
#include "kb/kb_builder.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::curation;

namespace {

constexpr double kTolerance = 1e-12;

ReviewSignals signal(std::string proposal, double margin, std::vector<std::string> others = {}, std::size_t reach = 0) {
    ReviewSignals signals;
    signals.proposal = std::move(proposal);
    signals.margin = margin;
    signals.others = std::move(others);
    signals.reach = reach;
    return signals;
}

// A linker whose proposals are given; decide() on a mention sets the proposals of its
// "followers" to the decided ids, as a datastore key can (reach counts the undecided ones).
class ScriptedLinker : public ReviewLinker {
public:
    explicit ScriptedLinker(std::vector<ReviewSignals> signals)
        : signals_(std::move(signals)), followers_(signals_.size()) {}
    void follow(std::size_t leader, std::vector<std::size_t> followers) { followers_[leader] = std::move(followers); }
    std::size_t size() const override { return signals_.size(); }
    ReviewSignals signals(std::size_t mention) const override { return signals_.at(mention); }
    std::size_t reach(std::size_t mention, std::span<const std::uint8_t> decided, bool) const override {
        std::size_t count = 0;
        for (const std::size_t f : followers_[mention]) count += decided[f] ? 0 : 1;
        return count;
    }
    std::vector<std::size_t> decide(std::size_t mention, std::span<const std::string> ids, bool accept) override {
        decisions.emplace_back(mention, accept);
        std::string link;
        for (const auto& id : ids) link += (link.empty() ? "" : "|") + id;
        for (const std::size_t f : followers_[mention]) signals_[f] = signal(link, 1.0);
        return followers_[mention];
    }
    std::vector<std::pair<std::size_t, bool>> decisions;

private:
    std::vector<ReviewSignals> signals_;
    std::vector<std::vector<std::size_t>> followers_;
};

ReviewMention mention(std::string document, std::string surface, std::vector<std::string> gold) {
    return ReviewMention{std::move(document), std::move(surface), std::move(gold)};
}

}  // namespace

class TestReviewQueue : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void doubtFromTheMargin() {
        ReviewPolicy policy;
        policy.marginScale = 0.1;
        QCOMPARE(reviewDoubt(signal("A", 0.0), policy), 1.0);
        QVERIFY(std::abs(reviewDoubt(signal("A", 0.05), policy) - 0.5) < kTolerance);
        QCOMPARE(reviewDoubt(signal("A", 0.1), policy), 0.0);
        QCOMPARE(reviewDoubt(signal("A", 0.7), policy), 0.0);
        QCOMPARE(reviewDoubt(signal("", 0.7), policy), 1.0);  // nothing proposed
        // A clear lead on a poor match (cosine 0.6) keeps 0.4 of doubt; not read with weight 0.
        ReviewSignals poor = signal("A", 0.5);
        poor.confidence = 0.6;
        QVERIFY(std::abs(reviewDoubt(poor, policy) - 0.4) < kTolerance);
        ReviewPolicy marginOnly = policy;
        marginOnly.confidenceWeight = 0.0;
        QCOMPARE(reviewDoubt(poor, marginOnly), 0.0);
        ReviewPolicy wide;
        wide.marginScale = 0.5;
        QVERIFY(std::abs(reviewDoubt(signal("A", 0.1), wide) - 0.8) < kTolerance);
    }

    void doubtFromDisagreement() {
        const ReviewPolicy policy;  // disagreement weight 0.5, margin scale 0.2
        // A clear lead that both other linkers share: no doubt; one of two disagreeing: 0.25.
        QCOMPARE(reviewDoubt(signal("A", 0.5, {"A", "A"}), policy), 0.0);
        QVERIFY(std::abs(reviewDoubt(signal("A", 0.5, {"A", "B"}), policy) - 0.25) < kTolerance);
        QVERIFY(std::abs(reviewDoubt(signal("A", 0.5, {"B", "C"}), policy) - 0.5) < kTolerance);
        // A tie that every other linker contradicts: full doubt.
        QCOMPARE(reviewDoubt(signal("A", 0.0, {"B"}), policy), 1.0);
    }

    void priorityWeighsTheReach() {
        ReviewPolicy policy;
        policy.marginScale = 0.1;
        // Default reach weight 0.5: priority = doubt * (1 + 0.5 * reach).
        QCOMPARE(reviewPriority(signal("A", 0.0, {}, 4), policy), 3.0);
        QCOMPARE(reviewPriority(signal("A", 0.5, {}, 40), policy), 0.0);  // certain: reach does not matter
        QVERIFY(std::abs(reviewPriority(signal("A", 0.05, {}, 2), policy) - 1.0) < kTolerance);
        policy.reachWeight = 1.0;
        QCOMPARE(reviewPriority(signal("A", 0.0, {}, 4), policy), 5.0);
        policy.reachWeight = 0.0;  // the reach is not read
        QCOMPARE(reviewPriority(signal("A", 0.0, {}, 4), policy), 1.0);
    }

    void orderByPriorityThenProjectOrder() {
        const std::vector<ReviewSignals> signals{
            signal("A", 0.08),         // priority 0.6 (default margin scale 0.2)
            signal("A", 0.0),          // 1.0
            signal("A", 0.05, {}, 3),  // 0.75 * (1 + 0.5 * 3) = 1.875
            signal("A", 0.0),          // 1.0, after mention 1
            signal("A", 0.5),          // 0.0
        };
        QCOMPARE(reviewOrder(signals, {}), (std::vector<std::size_t>{2, 1, 3, 0, 4}));
        QCOMPARE(nextForReview(signals, {}), std::optional<std::size_t>(2));
        const std::vector<std::uint8_t> decided{0, 0, 1, 0, 0};
        QCOMPARE(reviewOrder(signals, decided), (std::vector<std::size_t>{1, 3, 0, 4}));
        QCOMPARE(nextForReview(signals, decided), std::optional<std::size_t>(1));
        const std::vector<std::uint8_t> all(5, 1);
        QVERIFY(reviewOrder(signals, all).empty());
        QVERIFY(!nextForReview(signals, all));
        const std::vector<std::uint8_t> wrongSize(3, 0);
        QVERIFY_THROWS_EXCEPTION(Error, reviewOrder(signals, wrongSize));
    }

    void sameSurfaceReachCountsTheOtherUndecided() {
        const std::vector<std::string> surfaces{"hd", "cancer", "hd", "hd", "tumour"};
        QCOMPARE(sameSurfaceReach(surfaces, {}), (std::vector<std::size_t>{2, 0, 2, 2, 0}));
        const std::vector<std::uint8_t> decided{0, 0, 1, 0, 0};
        QCOMPARE(sameSurfaceReach(surfaces, decided), (std::vector<std::size_t>{1, 0, 0, 1, 0}));
    }

    void orderNames() {
        QCOMPARE(reviewOrderFromName("queue"), std::optional<ReviewOrderKind>(ReviewOrderKind::Queue));
        QCOMPARE(reviewOrderFromName("document"), std::optional<ReviewOrderKind>(ReviewOrderKind::Document));
        QVERIFY(!reviewOrderFromName("random"));
    }

    // Six mentions, two wrong, the wrong ones with the smallest margins and last in document
    // order: the queue fixes both in its first two decisions; document order needs all six.
    void theQueueFindsTheErrorsFirst() {
        const std::vector<ReviewMention> mentions{
            mention("1", "a", {"A"}), mention("1", "b", {"B"}), mention("2", "c", {"C"}),
            mention("2", "d", {"D"}), mention("3", "e", {"E"}), mention("3", "f", {"F"}),
        };
        const std::vector<ReviewSignals> signals{signal("A", 0.5), signal("B", 0.09), signal("C", 0.4),
                                                 signal("D", 0.3), signal("X", 0.01), signal("Y", 0.0)};
        for (const auto order : {ReviewOrderKind::Document, ReviewOrderKind::Queue}) {
            ScriptedLinker linker(signals);
            ReviewWalkOptions options;
            options.order = order;
            const ReviewWalk walk = simulateReview(linker, mentions, options);
            QCOMPARE(walk.mentions, std::size_t{6});
            QCOMPARE(walk.steps.size(), std::size_t{7});  // every mention decided once
            QVERIFY(std::abs(walk.steps[0].accuracy - 4.0 / 6.0) < kTolerance);
            QCOMPARE(walk.steps.back().accuracy, 1.0);
            QCOMPARE(walk.steps.back().corrections, std::size_t{2});
            QCOMPARE(linker.decisions.size(), std::size_t{6});
            if (order == ReviewOrderKind::Document) {
                QCOMPARE(linker.decisions.front(), (std::pair<std::size_t, bool>{0, true}));
                QCOMPARE(walk.decisionsToReach(1.0), std::optional<std::size_t>(6));
                QVERIFY(std::abs(walk.steps[5].accuracy - 5.0 / 6.0) < kTolerance);
            } else {
                // Mention 5 (tie) first, then 4 (lead 0.01), both corrections.
                QCOMPARE(linker.decisions[0], (std::pair<std::size_t, bool>{5, false}));
                QCOMPARE(linker.decisions[1], (std::pair<std::size_t, bool>{4, false}));
                QVERIFY(std::abs(walk.steps[1].accuracy - 5.0 / 6.0) < kTolerance);
                QCOMPARE(walk.decisionsToReach(1.0), std::optional<std::size_t>(2));
            }
        }
    }

    // A learning linker: deciding mention 0 sets the proposals of 1, 2 and 3 (all wrong, with a
    // clear lead each). The queue sees the reach and takes mention 0 first although its own doubt
    // is only half of mention 4's; one decision then fixes four mentions.
    void theQueueWeighsWhatADecisionReaches() {
        const std::vector<ReviewMention> mentions{
            mention("1", "a", {"A"}),  mention("1", "a2", {"A"}), mention("2", "a3", {"A"}),
            mention("2", "a4", {"A"}), mention("3", "z", {"Z"}),
        };
        ScriptedLinker linker(
            {signal("W", 0.05), signal("W", 0.2), signal("W", 0.2), signal("W", 0.2), signal("Y", 0.0)});
        linker.follow(0, {1, 2, 3});
        ReviewWalkOptions options;
        options.maxDecisions = 2;
        const ReviewWalk walk = simulateReview(linker, mentions, options);
        QCOMPARE(walk.steps.size(), std::size_t{3});  // stopped after two decisions
        QCOMPARE(linker.decisions[0].first, std::size_t{0});
        QVERIFY(std::abs(walk.steps[1].accuracy - 4.0 / 5.0) < kTolerance);  // 0 decided, 1-3 now propose A
        QCOMPARE(linker.decisions[1].first, std::size_t{4});
        QCOMPARE(walk.steps[2].accuracy, 1.0);
        QCOMPARE(walk.steps[2].decided, std::size_t{2});
    }

    // "Apply to all": the same surface decided with one click, right for the mentions that share
    // the gold, wrong for the one that names another entity with the same text; a mention that
    // already proposes the decided link is left undecided, as the GUI lists only the others.
    void applyToAllDecidesTheIdenticalMentions() {
        const std::vector<ReviewMention> mentions{
            mention("1", "hd", {"H"}), mention("1", "hd", {"H"}),    mention("2", "hd", {"G"}),
            mention("2", "hd", {"H"}), mention("3", "other", {"O"}),
        };
        ScriptedLinker linker(
            {signal("G", 0.0), signal("G", 0.0), signal("G", 0.0), signal("H", 0.0), signal("O", 0.5)});
        ReviewWalkOptions options;
        options.order = ReviewOrderKind::Document;
        options.applyToAll = true;
        options.maxDecisions = 1;
        const ReviewWalk walk = simulateReview(linker, mentions, options);
        const ReviewStep& step = walk.steps.back();
        QCOMPARE(step.decisions, std::size_t{1});
        QCOMPARE(step.corrections, std::size_t{1});
        QCOMPARE(step.appliedToAll, std::size_t{2});  // mentions 1 and 2; 3 already proposes H
        QCOMPARE(step.decided, std::size_t{3});
        // Right: 0, 1 (decided H), 3 (proposes H), 4; wrong: 2 (decided H, gold G).
        QVERIFY(std::abs(step.accuracy - 4.0 / 5.0) < kTolerance);
        QCOMPARE(linker.decisions.size(), std::size_t{3});  // each applied decision fed too

        // In the queue the reach of "hd" (3 others) puts it first.
        ScriptedLinker queued(
            {signal("O", 0.05), signal("G", 0.0), signal("G", 0.0), signal("G", 0.0), signal("H", 0.0)});
        const std::vector<ReviewMention> later{
            mention("1", "other", {"O"}), mention("1", "hd", {"H"}), mention("2", "hd", {"H"}),
            mention("2", "hd", {"H"}),    mention("3", "hd", {"H"}),
        };
        options.order = ReviewOrderKind::Queue;
        const ReviewWalk fast = simulateReview(queued, later, options);
        QCOMPARE(queued.decisions.front().first, std::size_t{1});
        QCOMPARE(fast.steps.back().accuracy, 1.0);
    }

    void refusals() {
        ScriptedLinker linker({signal("A", 0.0)});
        const std::vector<ReviewMention> two{mention("1", "a", {"A"}), mention("1", "b", {"B"})};
        QVERIFY_THROWS_EXCEPTION(Error, simulateReview(linker, two, {}));
        const std::vector<ReviewMention> noGold{mention("1", "a", {})};
        QVERIFY_THROWS_EXCEPTION(Error, simulateReview(linker, noGold, {}));
    }

    void csvHasOneRowPerStep() {
        ScriptedLinker linker({signal("A", 0.0), signal("C", 0.0)});
        const std::vector<ReviewMention> mentions{mention("1", "a", {"A"}), mention("1", "b", {"B"})};
        ReviewWalkOptions options;
        options.order = ReviewOrderKind::Document;
        const std::vector<ReviewWalk> walks{simulateReview(linker, mentions, options)};
        QCOMPARE(QString::fromStdString(reviewWalkCsv(walks)),
                 QStringLiteral("order,apply_to_all,decisions,corrections,decided,applied_to_all,accuracy\n"
                                "document,0,0,0,0,0,0.5\ndocument,0,1,0,1,0,0.5\ndocument,0,2,1,2,0,1\n"));
    }

    // The sparse linker on a hand-made KB: "HD" names two entities (a tie, full doubt), a
    // composite's proposal joins its parts, and the surface ignores case and spacing.
    void sparseSignalsOnAHandMadeKb() {
        kb::KnowledgeBaseBuilder builder;
        const auto add = [&builder](std::string_view id, std::initializer_list<std::string_view> names) {
            const kb::EntityIndex e = builder.entity(id);
            for (const std::string_view name : names) builder.addName(e, name);
        };
        add("MESH:D006816", {"Huntington Disease", "HD"});
        add("MESH:D006627", {"Hirschsprung Disease", "HD"});
        add("MESH:D001943", {"Breast Neoplasms"});
        add("MESH:D010051", {"Ovarian Neoplasms"});
        const kb::KnowledgeBase kb = builder.build();
        const SparseCandidates sparse(kb, /*homonymExpansion=*/false);

        std::vector<eval::EvalQuery> queries(3);
        queries[0].document = "1";
        queries[0].mention = "HD";
        queries[0].parts = {"hd"};
        queries[0].goldIds = {"MESH:D006816"};
        queries[1].document = "1";
        queries[1].mention = "Huntington  Disease";
        queries[1].parts = {"huntington disease"};
        queries[1].goldIds = {"MESH:D006816"};
        queries[2].document = "2";
        queries[2].mention = "breast and ovarian neoplasms";
        queries[2].parts = {"breast neoplasms", "ovarian neoplasms"};
        queries[2].goldIds = {"MESH:D001943", "MESH:D010051"};
        const SparseReviewLinker linker(sparse, queries);
        QCOMPARE(linker.size(), std::size_t{3});
        QCOMPARE(linker.signals(0).margin, 0.0);  // "hd" names both entities equally
        QCOMPARE(reviewDoubt(linker.signals(0)), 1.0);
        QCOMPARE(linker.signals(1).proposal, std::string("MESH:D006816"));
        QVERIFY(linker.signals(1).margin > 0.1);
        QVERIFY(std::abs(linker.signals(1).confidence - 1.0) < 1e-5);  // the name itself (float cosine)
        // A composite's confidence is its weakest part's: both parts are names here.
        QVERIFY(std::abs(linker.signals(2).confidence - 1.0) < 1e-5);
        QVERIFY(linker.signals(0).confidence > 0.99);  // "hd" is a name too, of two entities
        QCOMPARE(linker.signals(2).proposal, std::string("MESH:D001943|MESH:D010051"));
        QVERIFY_THROWS_EXCEPTION(Error, linker.signals(3));

        // Ranking every mention at once (the GUI's proposals) gives each mention's own ranking,
        // with repeated texts, an empty one and several threads.
        const std::vector<std::string> texts = {"HD", "Huntington  Disease", "", "ovarian", "HD", "breast neoplasm"};
        for (const unsigned threads : {1u, 2u}) {
            const auto all = sparse.rankAll(texts, 3, threads);
            QCOMPARE(all.size(), texts.size());
            for (std::size_t i = 0; i < texts.size(); ++i) {
                const auto one = sparse.rank(texts[i], 3);
                QCOMPARE(all[i].size(), one.size());
                for (std::size_t r = 0; r < one.size(); ++r) {
                    QCOMPARE(all[i][r].entity, one[r].entity);
                    QVERIFY(std::abs(all[i][r].score - one[r].score) < 1e-6);
                }
            }
            QVERIFY(all[2].empty());
            QCOMPARE(all[3].front().entity, std::string("MESH:D010051"));
        }

        const auto mentions = reviewMentionsOf(queries);
        QCOMPARE(mentions[1].surface, std::string("huntington disease"));
        QCOMPARE(mentions[0].surface, std::string("hd"));
        QCOMPARE(mentions[2].gold.size(), std::size_t{2});
    }
};

QTEST_GUILESS_MAIN(TestReviewQueue)
#include "test_review_queue.moc"
