// Curation with a trained run: the demo project linked with a run's
// model and its kNN datastore, and every accept / correct fed into that datastore at once --
// the other mentions it reaches ranked again, undo and redo taking the key back and forth, a
// replaced decision's key removed, the training datastore kept in the project file, and a
// reopened project feeding the decisions it holds. The run is written by the test: the triplet
// preset with a tiny random BERT (tests/common/tiny_run.h), so its rankings are arbitrary but
// deterministic; what is checked is what the datastore does to them.
#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "curation/augmented_linker.h"
#include "curation_session.h"
#include "demo_project.h"
#include "embedding_plot.h"
#include "linking_menu.h"
#include "project/datastore_storage.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "reach_preview.h"
#include "review_queue_order.h"
#include "test_data.h"
#ifdef LINKSCOPE_HAVE_TORCH
#include "curation/model_candidates.h"
#include "encoder/text_encoder.h"
#include "tiny_run.h"
#include "train/run_directory.h"
#include "train/training_preset.h"
#endif

using namespace linkscope;
using namespace linkscope::ui;
namespace fs = std::filesystem;

#ifdef LINKSCOPE_HAVE_TORCH
namespace {

struct MentionAt {
    project::MentionKey key;
    const Mention* mention = nullptr;
};

// Every mention of the project whose text reads `text` (ignoring case), in project order.
std::vector<MentionAt> mentionsReading(const LoadedProject& project, const std::string& text) {
    std::vector<MentionAt> found;
    auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return s;
    };
    for (const SplitCorpus& split : project.splits)
        for (const Document& document : split.corpus.documents())
            for (const Mention& mention : document.mentions)
                if (lower(mention.text) == text)
                    found.push_back({{split.split, document.pmid(), mention.start, mention.end}, &mention});
    return found;
}

std::optional<curation::CandidateRow> rowOf(const std::vector<curation::CandidateRow>& rows,
                                            const std::string& entity) {
    for (const auto& row : rows)
        if (row.entity == entity) return row;
    return std::nullopt;
}

}  // namespace
#endif

class TestModelCuration : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::shared_ptr<const LoadedProject> project_;
    QString run_;
    QString projectFile_;

    // A session on the demo project with the sparse ranker built.
    void openSession(CurationSession& session) const {
        QSignalSpy ready(session.rankers(), &RankerHost::rankerReady);
        QCOMPARE(session.open(project_, projectFile_), QString());
        QVERIFY(ready.wait(30000));
    }

    void linkWithRun(CurationSession& session) const {
        QSignalSpy linked(session.rankers(), &RankerHost::runLinked);
        QSignalSpy errors(&session, &CurationSession::errorOccurred);
        session.rankers()->linkWithRun(run_, curation::LinkMode::Knn);
        QVERIFY2(linked.wait(120000), errors.isEmpty() ? "no signal" : qPrintable(errors.first().first().toString()));
        QVERIFY(session.rankers()->runRanker() != nullptr);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        test::keepSettingsIn(dir_);
        project_ = test::loadDemoProject();
        projectFile_ = dir_.filePath(QStringLiteral("demo.linkscope"));
#ifdef LINKSCOPE_HAVE_TORCH
        // A finished triplet run whose model is a tiny BERT knowing the demo's words.
        const fs::path demo = fs::path(LINKSCOPE_SOURCE_DIR) / "resources" / "demo";
        const fs::path run = dir_.filePath(QStringLiteral("runs/tiny-triplet")).toStdString();
        test::writeTinyTripletRun(run, {demo / "demo-kb.txt", demo / "demo-train.txt", demo / "demo-test.txt"});
        run_ = QString::fromStdString(run.string());
#endif
    }

    // The exact preview of a decision's datastore moves (ModelCandidates::wouldMove), with an
    // interpolation where one key can outvote the model (lambda 0.9, a sharp p_kNN): the other
    // "stroke" mentions move to the corrected entity. What the preview said before the decision
    // is what feeding it and ranking again changes; the preview leaves the datastore as it was.
    void previewOfADecisionsMovesIsExact() {
#ifndef LINKSCOPE_HAVE_TORCH
        QSKIP("this build has no LibTorch: run linking needs it");
#else
        curation::ModelCandidatesOptions options;
        options.run = run_.toStdString();
        options.knn = {.k = 4, .lambda = 0.9, .beta1 = 0.01, .beta2 = 0.05};
        curation::ModelCandidates model(project_, options, {});
        const auto strokes = mentionsReading(*project_, "stroke");
        QCOMPARE(strokes.size(), std::size_t{3});
        const auto rows = model.rank(strokes[1].key, 64);
        QVERIFY(rows.size() > 1);
        const std::string entity = rows.back().entity;  // far down the list: a correction
        const std::size_t keys = model.datastoreKeys();
        const auto moves = model.wouldMove(strokes[0].key, entity);
        QCOMPARE(model.datastoreKeys(), keys);
        std::vector<project::MentionKey> previewed;
        for (const auto& move : moves) {
            QCOMPARE(move.before, model.proposal(move.mention)->entity);
            previewed.push_back(move.mention);
        }
        std::sort(previewed.begin(), previewed.end());
        QVERIFY2(std::find(previewed.begin(), previewed.end(), strokes[1].key) != previewed.end(),
                 "the identical mention moves to the corrected entity");

        project::Decision decision;
        decision.id = 1;
        decision.mention = strokes[0].key;
        decision.kind = project::DecisionKind::Correct;
        decision.newLink = entity;
        const auto reached = model.feed(decision);
        auto changed = model.rerank(reached).topChanged;
        std::sort(changed.begin(), changed.end());
        std::erase(changed, strokes[0].key);
        QCOMPARE(changed, previewed);
#endif
    }

    // A large project's mention vectors are kept in half precision, to bound its memory:
    // the proposals are those of the float vectors but for near ties, the scores within
    // half precision's rounding, the preview of a decision still exact (it reads the same rounded
    // vectors as feeding it does), and the mentions take less memory.
    void halfPrecisionVectorsLinkAsFloatOnes() {
#ifndef LINKSCOPE_HAVE_TORCH
        QSKIP("this build has no LibTorch: run linking needs it");
#else
        curation::ModelCandidatesOptions options;
        options.run = run_.toStdString();
        options.knn = {.k = 4, .lambda = 0.9, .beta1 = 0.01, .beta2 = 0.05};  // as the preview test: one key can move
        curation::ModelCandidates full(project_, options, {});
        options.floatVectorBudget = 0;
        curation::ModelCandidates half(project_, options, {});
        QVERIFY(!full.halfPrecisionVectors());
        QVERIFY(half.halfPrecisionVectors());
        QVERIFY2(half.mentionMemoryBytes() < full.mentionMemoryBytes(), "half precision holds less");

        // kNN p_knn and p_model are probabilities; rounding moves a cosine by ~1e-3, a score less.
        constexpr double kScoreTolerance = 0.02;
        std::size_t mentions = 0, sameTop = 0;
        for (const SplitCorpus& split : project_->splits)
            for (const Document& document : split.corpus.documents())
                for (const Mention& mention : document.mentions) {
                    const project::MentionKey key{split.split, document.pmid(), mention.start, mention.end};
                    const auto* a = full.proposal(key);
                    const auto* b = half.proposal(key);
                    QVERIFY(a != nullptr && b != nullptr);
                    ++mentions;
                    if (a->entity == b->entity) {
                        ++sameTop;
                        QVERIFY2(std::abs(a->score - b->score) <= kScoreTolerance, key.document.c_str());
                    } else {
                        QVERIFY2(a->margin <= kScoreTolerance, "only a near tie may change its top entity");
                    }
                }
        QVERIFY(mentions > 0);
        qInfo("%zu of %zu mentions have the same top entity with half-precision vectors", sameTop, mentions);
        QVERIFY2(sameTop * 100 >= mentions * 95, "the proposals are the float vectors' but for near ties");

        // The preview is exact with rounded vectors too.
        const auto strokes = mentionsReading(*project_, "stroke");
        QCOMPARE(strokes.size(), std::size_t{3});
        const std::string entity = half.rank(strokes[1].key, 64).back().entity;
        auto previewed = half.wouldMove(strokes[0].key, entity);
        project::Decision decision;
        decision.id = 1;
        decision.mention = strokes[0].key;
        decision.kind = project::DecisionKind::Correct;
        decision.newLink = entity;
        auto changed = half.rerank(half.feed(decision)).topChanged;
        std::erase(changed, strokes[0].key);
        std::vector<project::MentionKey> moved;
        for (const auto& move : previewed) moved.push_back(move.mention);
        std::sort(moved.begin(), moved.end());
        std::sort(changed.begin(), changed.end());
        QVERIFY2(std::find(moved.begin(), moved.end(), strokes[1].key) != moved.end(),
                 "the identical mention moves to the corrected entity");
        QCOMPARE(changed, moved);
#endif
    }

    // In kNN mode a decision's key is merged into the kept k-nearest lists of the mentions it
    // reaches, and ranking them again reads those lists instead of searching the datastore
    // (at MedMentions' size a search reads the whole datastore). After decisions, a
    // preview, an undo and a decision on an identical mention (exact ties, ordered by key id),
    // ranking the mentions feed() and unfeed() returned gives what a linking built afresh with
    // the decisions in effect gives, for every mention of the project: the same proposals, and
    // the same candidates from rank().
    void keptNeighbourListsRankAsANewLinking() {
#ifndef LINKSCOPE_HAVE_TORCH
        QSKIP("this build has no LibTorch: run linking needs it");
#else
        curation::ModelCandidatesOptions options;
        options.run = run_.toStdString();
        options.knn = {.k = 4, .lambda = 0.9, .beta1 = 0.01, .beta2 = 0.05};  // one key can move a ranking
        curation::ModelCandidates model(project_, options, {});
        const auto strokes = mentionsReading(*project_, "stroke");
        QCOMPARE(strokes.size(), std::size_t{3});

        // Decisions on the test split's first mentions and on two of the identical "stroke"s.
        std::vector<project::MentionKey> decided;
        for (const SplitCorpus& split : project_->splits)
            if (split.split == "test")
                for (const Document& document : split.corpus.documents())
                    for (const Mention& mention : document.mentions)
                        if (decided.size() < 6)
                            decided.push_back({split.split, document.pmid(), mention.start, mention.end});
        QCOMPARE(decided.size(), std::size_t{6});
        decided.push_back(strokes[0].key);
        decided.push_back(strokes[2].key);
        std::vector<project::Decision> made;
        std::size_t rerankedMentions = 0;
        const auto decide = [&](const project::MentionKey& key, std::size_t wanted, std::size_t ids = 1) {
            const auto rows = model.rank(key, 64);
            QVERIFY(rows.size() > ids + 1);
            const std::size_t depth = std::min(wanted, rows.size() - ids);  // 0: accept, else a correction
            project::Decision decision;
            decision.id = static_cast<std::int64_t>(made.size()) + 1;
            decision.mention = key;
            decision.kind = depth == 0 ? project::DecisionKind::Accept : project::DecisionKind::Correct;
            decision.newLink = rows[depth].entity;
            for (std::size_t i = 1; i < ids; ++i)
                decision.newLink += "|" + rows[depth + i].entity;  // a composite's keys
            rerankedMentions += model.rerank(model.feed(decision)).reranked.size();
            made.push_back(decision);
        };
        // The "stroke" decisions are composites of three ids: three keys each with the vector
        // of the third "stroke", so undoing both takes six keys out of its list (depth 2k = 8,
        // k = 4): fewer than k remain, and the list is searched again.
        for (std::size_t i = 0; i < decided.size(); ++i) decide(decided[i], i % 3 == 0 ? 0 : 1 + i, i >= 6 ? 3 : 1);
        const std::size_t keys = model.datastoreKeys();
        (void)model.wouldMove(strokes[1].key, made.front().newLink);  // a preview key, added and taken back
        QCOMPARE(model.datastoreKeys(), keys);
        const std::vector<std::int64_t> undoIds{made[2].id, made[6].id, made[7].id};
        for (const std::int64_t id : undoIds) {
            const auto undone = model.unfeed(id);
            QVERIFY2(!undone.empty(), "an undone key was among its own mention's nearest");
            model.rerank(undone);
        }
        std::vector<project::Decision> inEffect;
        for (const project::Decision& decision : made)
            if (std::find(undoIds.begin(), undoIds.end(), decision.id) == undoIds.end()) inEffect.push_back(decision);
        QVERIFY(rerankedMentions > decided.size());  // the keys reached other mentions too

        curation::ModelCandidates fresh(project_, options, inEffect);
        QCOMPARE(fresh.datastoreKeys(), model.datastoreKeys());
        constexpr double kScoreTolerance = 1e-9;  // the same neighbours, the same arithmetic
        std::size_t compared = 0;
        for (const SplitCorpus& split : project_->splits)
            for (const Document& document : split.corpus.documents())
                for (const Mention& mention : document.mentions) {
                    const project::MentionKey key{split.split, document.pmid(), mention.start, mention.end};
                    const auto* kept = model.proposal(key);
                    const auto* built = fresh.proposal(key);
                    QVERIFY(kept != nullptr && built != nullptr);
                    QVERIFY2(kept->entity == built->entity, (key.document + " " + std::to_string(key.start)).c_str());
                    QVERIFY(std::abs(kept->score - built->score) <= kScoreTolerance);
                    QVERIFY(std::abs(kept->margin - built->margin) <= kScoreTolerance);
                    const auto a = model.rank(key, 8), b = fresh.rank(key, 8);
                    QCOMPARE(a.size(), b.size());
                    for (std::size_t i = 0; i < a.size(); ++i) {
                        QCOMPARE(a[i].entity, b[i].entity);
                        QVERIFY(std::abs(a[i].score - b[i].score) <= kScoreTolerance);
                    }
                    ++compared;
                }
        QVERIFY(compared > 20);
#endif
    }

    // Sieve mode re-ranks what a decision's key reaches (the mentions whose nearest key it
    // becomes, or was, for an undo), reading each mention's nearest key from the sieve's own
    // search of the keys, or searching it where no stage did (the exact stage decided the whole
    // batch). After every decision and undo, each mention's kept proposal is what ranking it now
    // gives: a mention the reach missed would keep a stale one. (Ranking it now, not a new
    // linking: keys at the same cosine tie, and the kept datastore and a new one order tied keys
    // differently.)
    void sieveReachKeepsEveryProposalCurrent() {
#ifndef LINKSCOPE_HAVE_TORCH
        QSKIP("this build has no LibTorch: run linking needs it");
#else
        std::vector<project::MentionKey> all;
        for (const SplitCorpus& split : project_->splits)
            for (const Document& document : split.corpus.documents())
                for (const Mention& mention : document.mentions)
                    all.push_back({split.split, document.pmid(), mention.start, mention.end});
        QVERIFY(all.size() > 20);
        for (const char* spec : {"OD-T", "exact+D-T+O-T"}) {
            curation::ModelCandidatesOptions options;
            options.run = run_.toStdString();
            options.mode = curation::LinkMode::Sieve;
            options.sieve = retrieval::parseSieve(spec);
            options.sieveThreshold = 0.5;  // D-T decides some mentions, O-T the others
            curation::ModelCandidates model(project_, options, {});
            // Every proposal as ranking the mention now gives it: the same searches of the same
            // keys and kept name lists, so the same entity and score up to rounding (1e-6).
            const auto keptAsRankedNow = [&](const char* after) {
                for (const project::MentionKey& key : all) {
                    const auto* kept = model.proposal(key);
                    const auto now = model.rank(key, 2);
                    QVERIFY(kept != nullptr && !now.empty());
                    const std::string where = std::string(spec) + ", after " + after + ": " + key.document + " " +
                                              std::to_string(key.start) + " kept " + kept->entity + ", now " +
                                              now.front().entity;
                    QVERIFY2(kept->entity == now.front().entity, where.c_str());
                    QVERIFY2(std::abs(kept->score - now.front().score) < 1e-6, where.c_str());
                }
            };
            const auto strokes = mentionsReading(*project_, "stroke");
            QCOMPARE(strokes.size(), std::size_t{3});
            std::vector<project::MentionKey> decided;
            for (const project::MentionKey& key : all)
                if (key.split == "test" && decided.size() < 6) decided.push_back(key);
            decided.push_back(strokes[0].key);
            std::vector<project::Decision> made;
            std::size_t topChanges = 0;
            for (std::size_t i = 0; i < decided.size(); ++i) {
                const auto rows = model.rank(decided[i], 64);
                QVERIFY(!rows.empty());
                // A correction: the last entity ranked, or (a stage that decided with one entity)
                // another mention's proposal.
                std::string other = rows.size() > 1 ? rows.back().entity : std::string();
                for (std::size_t j = 0; other.empty() && j < all.size(); ++j)
                    if (model.proposal(all[j])->entity != rows.front().entity) other = model.proposal(all[j])->entity;
                QVERIFY(!other.empty());
                project::Decision decision;
                decision.id = static_cast<std::int64_t>(i) + 1;
                decision.mention = decided[i];
                decision.kind = i % 3 == 0 ? project::DecisionKind::Accept : project::DecisionKind::Correct;
                decision.newLink = i % 3 == 0 ? rows.front().entity : other;
                topChanges += model.rerank(model.feed(decision)).topChanged.size();
                made.push_back(decision);
                keptAsRankedNow("a decision");
                if (QTest::currentTestFailed()) return;
            }
            QVERIFY2(topChanges > 0, spec);  // the keys changed some rankings
            for (const std::int64_t id : {made[1].id, made[4].id}) {
                model.rerank(model.unfeed(id));
                keptAsRankedNow("an undo");
                if (QTest::currentTestFailed()) return;
            }
        }
#endif
    }

    void decisionsFeedTheDatastoreAtOnce() {
#ifndef LINKSCOPE_HAVE_TORCH
        QSKIP("this build has no LibTorch: run linking needs it");
#else
        CurationSession session;
        openSession(session);
        const QString sparse = session.rankers()->rankerDescription();
        linkWithRun(session);
        const RunRanker& model = *session.rankers()->runRanker();
        QVERIFY(session.rankers()->rankerDescription().contains(QStringLiteral("triplet")));
        QVERIFY(session.rankers()->rankerDescription().contains(QStringLiteral("kNN")));
        QVERIFY(session.rankers()->rankerDescription() != sparse);
        QCOMPARE(model.curatorKeys(), std::size_t{0});
        QVERIFY(model.datastoreKeys() > 0);  // the demo's training mentions

        // The training datastore is kept in the project file, under the model's name.
        {
            const auto store = project::ProjectStore::open(projectFile_.toStdString());
            const std::string fingerprint =
                encoder::TextEncoder::load(train::modelDirectory(run_.toStdString())).fingerprint();
            const auto kept = project::loadDatastore(store, project::trainingDatastoreName(fingerprint), fingerprint);
            QVERIFY(kept.has_value());
            QCOMPARE(kept->size(), model.datastoreKeys());
        }

        // The review queue reads the sparse ranker as the other linker while the run ranks: a
        // mention they disagree on has doubt at least the disagreement weight (0.5), whatever
        // the run's margin. The tiny random run disagrees with sparse on most mentions.
        {
            const auto queue = reviewQueueOf(session);
            QVERIFY(!queue.empty());
            std::size_t disagreeing = 0;
            for (const QueuedMention& entry : queue) {
                const auto byRun = session.rankers()->proposal(entry.key);
                const auto bySparse = session.rankers()->sparseProposal(entry.key);
                QVERIFY(byRun.has_value() && bySparse.has_value());
                if (byRun->entity == bySparse->entity) continue;
                ++disagreeing;
                QVERIFY2(entry.priority >= 0.5 - 1e-12, "a disagreement of the linkers is doubt");
            }
            QVERIFY(disagreeing > 0);
        }

        // "stroke" three times in one test abstract: the same input, hence the same vector.
        const auto strokes = mentionsReading(*project_, "stroke");
        QCOMPARE(strokes.size(), std::size_t{3});
        const MentionAt& decided = strokes[0];
        const MentionAt& other = strokes[1];
        const auto rows = session.rankers()->rankCandidates(other.key, *other.mention, 64);
        QVERIFY(!rows.empty());
        QVERIFY(rows.front().knnProbability.has_value());
        QVERIFY(rows.front().modelProbability.has_value());
        QVERIFY(rows.front().dense.has_value());
        QCOMPARE(session.rankers()->proposedLink(other.key, *other.mention), rows.front().entity);
        // An entity far down the list, which no neighbour names yet.
        const std::string entity = rows.back().entity;
        QVERIFY(entity != rows.front().entity);
        const double before = rowOf(rows, entity)->knnProbability.value_or(0.0);

        // Before the decision, its datastore reach (nothing is decided yet): the other "stroke"
        // mentions (cosine 1 with the key to come), and not the decided mention itself.
        std::vector<project::MentionKey> reachKeys = model.reachOf(decided.key);
        for (const auto& key : reachKeys) QVERIFY(session.rankers()->mentionOf(key) != nullptr);
        QVERIFY(std::find(reachKeys.begin(), reachKeys.end(), decided.key) == reachKeys.end());
        // The review queue's reach of every mention at once (the pairs found at building) is the
        // count of the same list, mention by mention.
        {
            const auto counts = session.rankers()->datastoreReachCounts();
            QVERIFY(counts.has_value());
            std::size_t mentions = 0;
            for (const auto& split : project_->splits)
                for (const auto& document : split.corpus.documents()) mentions += document.mentions.size();
            QCOMPARE(counts->size(), mentions);
            std::size_t compared = 0;
            for (const auto& [key, count] : *counts) {
                if (compared++ % 7 != 0) continue;           // every seventh mention: a pass over all each
                QCOMPARE(count, model.reachOf(key).size());  // nothing is decided yet
            }
            QCOMPARE(counts->at(decided.key), reachKeys.size());
        }
        for (std::size_t i = 1; i < strokes.size(); ++i)
            QVERIFY(std::find(reachKeys.begin(), reachKeys.end(), strokes[i].key) != reachKeys.end());
        {
            ReachPreview preview;
            std::vector<ReachPreview::Entry> entries;
            for (const project::MentionKey& key : reachKeys) entries.push_back({key, QStringLiteral("m")});
            preview.showReach(QString::fromStdString(entity), {}, entries);
            QCOMPARE(preview.count(), static_cast<int>(reachKeys.size()));
            QVERIFY2(preview.summary().contains(
                         QStringLiteral("would change the proposal of %1 more").arg(reachKeys.size())),
                     preview.summary().toUtf8().constData());
        }

        // The exact preview: the mentions whose proposal the decision would move, computed
        // before it with the key added for a moment (and taken back: nothing is stored).
        const std::size_t keysBefore = model.datastoreKeys();
        const auto moves = session.rankers()->datastoreMoves(decided.key, entity);
        QCOMPARE(model.datastoreKeys(), keysBefore);
        std::vector<project::MentionKey> moveKeys;
        for (const auto& move : moves) {
            QVERIFY(move.before != move.after);
            QVERIFY(!move.after.empty());
            QVERIFY(std::find(reachKeys.begin(), reachKeys.end(), move.ref.key) != reachKeys.end());
            moveKeys.push_back(move.ref.key);
        }

        std::vector<project::MentionKey> reranked;
        int topChanged = 0;
        connect(session.rankers(), &RankerHost::rankingsChanged, this,
                [&](const std::vector<project::MentionKey>& keys, int changed) {
                    reranked.insert(reranked.end(), keys.begin(), keys.end());
                    topChanged += changed;
                });
        QVERIFY(session.decisions()->decide(decided.key, *decided.mention, project::DecisionKind::Correct, entity));
        QCOMPARE(model.curatorKeys(), std::size_t{1});
        // The reached mentions are ranked again a few per turn of the event loop.
        QVERIFY(session.rankers()->rerankPending());
        QTRY_VERIFY(!session.rankers()->rerankPending());
        // Every "stroke" mention was reached (cosine 1 with the new key) and ranked again.
        for (const MentionAt& mention : strokes)
            QVERIFY(std::find(reranked.begin(), reranked.end(), mention.key) != reranked.end());
        QVERIFY(topChanged >= 0);
        // What the decision moved is kept for the status line's "list them": the mentions ranked
        // again whose top entity changed, as many as the signals counted.
        QCOMPARE(static_cast<int>(session.rankers()->changedByLastDecision().size()), topChanged);
        for (const project::MentionKey& key : session.rankers()->changedByLastDecision()) {
            QVERIFY(std::find(reranked.begin(), reranked.end(), key) != reranked.end());
            // What moved was in the reach shown before the decision.
            QVERIFY(std::find(reachKeys.begin(), reachKeys.end(), key) != reachKeys.end());
        }
        // The preview said exactly which (both sorted by key).
        {
            auto changed = session.rankers()->changedByLastDecision();
            std::sort(changed.begin(), changed.end());
            std::erase(changed, decided.key);
            QCOMPARE(changed, moveKeys);
        }
        // And every mention ranked again (but the decided one) was in it.
        for (const project::MentionKey& key : reranked)
            QVERIFY(key == decided.key || std::find(reachKeys.begin(), reachKeys.end(), key) != reachKeys.end());
        {
            ReachPreview preview;
            std::vector<ReachPreview::Entry> entries;
            for (const project::MentionKey& key : session.rankers()->changedByLastDecision())
                entries.push_back({key, QStringLiteral("m")});
            preview.showChanged(QStringLiteral("The last decision"), entries);
            QCOMPARE(preview.count(), topChanged);
            QVERIFY(preview.summary().startsWith(QStringLiteral("The last decision: ")));
        }
        const auto after = rowOf(session.rankers()->rankCandidates(other.key, *other.mention, 64), entity);
        QVERIFY(after.has_value());
        QVERIFY2(after->knnProbability.value_or(0.0) > before + 0.1, "the corrected entity is the nearest key's now");
        const double fed = *after->knnProbability;
        // The proposal the document view and the filters read follows the new ranking.
        QCOMPARE(session.rankers()->proposedLink(other.key, *other.mention),
                 session.rankers()->rankCandidates(other.key, *other.mention, 1).front().entity);

        // Undo takes the key back: the ranking is the one before, exactly.
        reranked.clear();
        session.decisions()->undoStack()->undo();
        QCOMPARE(model.curatorKeys(), std::size_t{0});
        QTRY_VERIFY(!session.rankers()->rerankPending());
        QVERIFY(std::find(reranked.begin(), reranked.end(), other.key) != reranked.end());
        // The list now says what the undo moved, nothing of the decision before it.
        for (const project::MentionKey& key : session.rankers()->changedByLastDecision())
            QVERIFY(std::find(reranked.begin(), reranked.end(), key) != reranked.end());
        QCOMPARE(rowOf(session.rankers()->rankCandidates(other.key, *other.mention, 64), entity)
                     ->knnProbability.value_or(0.0),
                 before);
        session.decisions()->undoStack()->redo();
        QCOMPARE(model.curatorKeys(), std::size_t{1});
        QCOMPARE(*rowOf(session.rankers()->rankCandidates(other.key, *other.mention, 64), entity)->knnProbability, fed);

        // A new decision on the same mention replaces the old one's key: still one curator key,
        // and a rejection (no key) leaves none.
        QVERIFY(session.decisions()->decide(decided.key, *decided.mention, project::DecisionKind::Accept,
                                            rows.front().entity));
        QCOMPARE(model.curatorKeys(), std::size_t{1});
        QVERIFY(session.decisions()->decide(decided.key, *decided.mention, project::DecisionKind::Reject));
        QCOMPARE(model.curatorKeys(), std::size_t{0});
        QCOMPARE(rowOf(session.rankers()->rankCandidates(other.key, *other.mention, 64), entity)
                     ->knnProbability.value_or(0.0),
                 before);
        session.decisions()->undoStack()->undo();  // the accept is in effect again
        QCOMPARE(model.curatorKeys(), std::size_t{1});

        // Back to sparse: the candidates lose the model's parts.
        QSignalSpy sparseSpy(session.rankers(), &RankerHost::sparseLinked);
        session.rankers()->linkWithSparse();
        QCOMPARE(sparseSpy.count(), 1);
        QVERIFY(session.rankers()->runRanker() == nullptr);
        const auto sparseRows = session.rankers()->rankCandidates(other.key, *other.mention, 5);
        QVERIFY(!sparseRows.empty());
        QVERIFY(!sparseRows.front().knnProbability.has_value());
        QVERIFY(sparseRows.front().sparse.has_value());
#endif
    }

    void reopenedProjectFeedsTheDecisionsInEffect() {
#ifndef LINKSCOPE_HAVE_TORCH
        QSKIP("this build has no LibTorch: run linking needs it");
#else
        // The previous case left one accept in effect on the first "stroke".
        CurationSession session;
        openSession(session);
        const auto strokes = mentionsReading(*project_, "stroke");
        const auto decision = session.decisions()->currentDecision(strokes[0].key);
        QVERIFY(decision.has_value());
        QCOMPARE(decision->kind, project::DecisionKind::Accept);
        linkWithRun(session);
        QCOMPARE(session.rankers()->runRanker()->curatorKeys(), std::size_t{1});
        // Undo across the reopening: the correction before the accept is in effect again (its
        // key replaces the accept's), then nothing is.
        session.decisions()->undoStack()->undo();
        QCOMPARE(session.decisions()->currentDecision(strokes[0].key)->kind, project::DecisionKind::Correct);
        QCOMPARE(session.rankers()->runRanker()->curatorKeys(), std::size_t{1});
        session.decisions()->undoStack()->undo();
        QVERIFY(!session.decisions()->currentDecision(strokes[0].key).has_value());
        QCOMPARE(session.rankers()->runRanker()->curatorKeys(), std::size_t{0});
#endif
    }

    // Several curators: a merged curator's accept becomes a datastore key, as one made
    // in this session does.
    void mergedDecisionsFeedTheDatastore() {
#ifndef LINKSCOPE_HAVE_TORCH
        QSKIP("this build has no LibTorch: run linking needs it");
#else
        CurationSession session;
        QSignalSpy ready(session.rankers(), &RankerHost::rankerReady);
        QCOMPARE(session.open(project_, dir_.filePath(QStringLiteral("merge-into.linkscope"))), QString());
        QVERIFY(ready.wait(30000));
        linkWithRun(session);
        QCOMPARE(session.rankers()->runRanker()->curatorKeys(), std::size_t{0});
        const auto strokes = mentionsReading(*project_, "stroke");
        QVERIFY(!strokes.empty() && !strokes[0].mention->ids.ids.empty());
        const QString other = dir_.filePath(QStringLiteral("merge-from.linkscope"));
        {
            auto store = project::ProjectStore::create(other.toStdString(), project_->manifest);
            project::Decision accept;
            accept.mention = strokes[0].key;
            accept.mentionText = strokes[0].mention->text;
            accept.kind = project::DecisionKind::Accept;
            accept.newLink = strokes[0].mention->ids.ids.front();
            accept.curator = "bob";
            store.record(accept);
        }
        QSignalSpy finished(session.merge(), &MergeJob::finished);
        QVERIFY(session.merge()->start(other));
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.first().at(1).toString(), QString());
        QCOMPARE(session.decisions()->currentDecision(strokes[0].key)->curator, std::string("bob"));
        QCOMPARE(session.rankers()->runRanker()->curatorKeys(), std::size_t{1});
#endif
    }

    // With a run linked, the embedding plot measures distances in the run's space.
    void theEmbeddingPlotUsesTheRunsVectors() {
#ifndef LINKSCOPE_HAVE_TORCH
        QSKIP("this build has no LibTorch: run linking needs it");
#else
        CurationSession session;
        openSession(session);
        linkWithRun(session);
        const curation::TextEmbedding embed = session.rankers()->runRanker()->textEmbedding();
        const std::vector<std::string> texts = {"Stroke", "stroke", "Hypertension"};
        const std::vector<float> vectors = embed(texts);
        QVERIFY(!vectors.empty() && vectors.size() % 3 == 0);
        const std::size_t dimension = vectors.size() / 3;
        // Normalized as queries: the same text whatever its case. Two rows of one batch are not
        // compared bit for bit (a batched matrix product may round rows differently): within
        // 1e-5 per component, while "Hypertension" differs by more somewhere.
        const auto maxDifference = [&](std::size_t first, std::size_t second) {
            float largest = 0.0f;
            for (std::size_t i = 0; i < dimension; ++i)
                largest = std::max(largest, std::abs(vectors[first * dimension + i] - vectors[second * dimension + i]));
            return largest;
        };
        qInfo("largest difference: same text %g, another text %g", double(maxDifference(0, 1)),
              double(maxDifference(0, 2)));
        QVERIFY2(maxDifference(0, 1) < 1e-5f, qPrintable(QString::number(maxDifference(0, 1))));
        QVERIFY2(maxDifference(0, 2) > 1e-3f, qPrintable(QString::number(maxDifference(0, 2))));

        EmbeddingPlot plot;
        plot.setProject(project_);
        plot.setCandidates(session.rankers()->sparseRanker());
        curation::NeighbourhoodOptions options;
        options.embed = embed;
        plot.setOptions(options, QStringLiteral("cosine of tiny-triplet's vectors"));
        QSignalSpy computed(&plot, &EmbeddingPlot::computed);
        plot.showEntity(QStringLiteral("MESH:D020521"));
        QVERIFY(computed.wait(60000));
        QVERIFY(plot.statusLabel()->text().contains(QStringLiteral("tiny-triplet")));
        // Every distance is 1 - cosine of the run's vectors of the two labels.
        const curation::EntityNeighbourhood& n = plot.layout()->neighbourhood;
        QVERIFY(n.points.size() >= 2);
        const std::vector<std::string> pair = {n.points[0].label, n.points.back().label};
        const std::vector<float> v = embed(pair);
        double dot = 0, a = 0, b = 0;
        for (std::size_t i = 0; i < dimension; ++i) {
            dot += double(v[i]) * v[dimension + i];
            a += double(v[i]) * v[i];
            b += double(v[dimension + i]) * v[dimension + i];
        }
        QVERIFY(std::abs(n.distance(0, n.points.size() - 1) - (1.0 - dot / std::sqrt(a * b))) < 1e-4);
#endif
    }

    void cancellingKeepsTheSparseRanker() {
#ifndef LINKSCOPE_HAVE_TORCH
        QSKIP("this build has no LibTorch: run linking needs it");
#else
        CurationSession session;
        openSession(session);
        QSignalSpy cancelled(session.rankers(), &RankerHost::runLinkingCancelled);
        QSignalSpy linked(session.rankers(), &RankerHost::runLinked);
        session.rankers()->linkWithRun(run_, curation::LinkMode::Knn);
        QVERIFY(session.rankers()->runLinkingUnderWay());
        session.rankers()->cancelRunLinking();
        QVERIFY(cancelled.wait(60000));
        QCOMPARE(linked.count(), 0);
        QVERIFY(session.rankers()->runRanker() == nullptr);
        QVERIFY(!session.rankers()->rankerDescription().contains(QStringLiteral("triplet")));
#endif
    }

    void theLinkingMenuFollowsTheSession() {
        CurationSession session;
        LinkingMenu menu(&session, nullptr);
        QAction* linkRun = menu.findChild<QAction*>(QStringLiteral("linkWithRun"));
        QVERIFY(linkRun);
        Q_EMIT menu.aboutToShow();
        QVERIFY(!linkRun->isEnabled());  // no project open
        openSession(session);
        Q_EMIT menu.aboutToShow();
        // Enabled once a project is open, in a build that can link with a run.
        QCOMPARE(linkRun->isEnabled(), RankerHost::runLinkingAvailable());
    }
};

QTEST_MAIN(TestModelCuration)
#include "test_model_curation.moc"
