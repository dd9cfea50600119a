// The parts of a curation session on their own: the decision log as the one entry for every
// decision (made here, undone, redone, or written into the project file elsewhere and read back),
// the merge job recording through it, and the ranker host's datastore following the log whichever
// way a decision came.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "corpus/corpus.h"
#include "decision_log.h"
#include "demo_project.h"
#include "merge_job.h"
#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "project/project_store.h"
#include "ranker_host.h"
#include "test_data.h"
#ifdef LINKSCOPE_HAVE_TORCH
#include "curation/augmented_linker.h"
#include "curation/model_candidates.h"
#include "tiny_run.h"
#endif

using namespace linkscope;
using namespace linkscope::ui;
namespace fs = std::filesystem;

namespace {

// Every decisionInEffectReplaced of a log, in order.
struct Replacements {
    std::vector<std::pair<std::optional<project::Decision>, std::optional<project::Decision>>> seen;
    explicit Replacements(DecisionLog& log) {
        QObject::connect(&log, &DecisionLog::decisionInEffectReplaced,
                         [this](const std::optional<project::Decision>& before,
                                const std::optional<project::Decision>& after) { seen.emplace_back(before, after); });
    }
};

std::optional<std::int64_t> idOf(const std::optional<project::Decision>& decision) {
    if (!decision) return std::nullopt;
    return decision->id;
}

}  // namespace

class TestSessionParts : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::shared_ptr<const LoadedProject> project_;
    int files_ = 0;

    QString newProjectFile() { return dir_.filePath(QStringLiteral("log-%1.linkscope").arg(++files_)); }

    // The first two mentions of the project's first document.
    std::vector<MentionRef> firstMentions() const {
        const SplitCorpus& split = project_->splits.front();
        const Document& document = split.corpus.documents().front();
        std::vector<MentionRef> refs;
        for (std::size_t i = 0; i < 2; ++i) {
            const Mention& mention = document.mentions.at(i);
            refs.push_back({{split.split, document.pmid(), mention.start, mention.end}, &mention});
        }
        return refs;
    }

    // Writes an accept by `curator` of `ref` to its first gold id into `file` through a
    // connection of its own, as another curator's window or a merge does.
    void recordElsewhere(const QString& file, const MentionRef& ref, const std::string& curator) const {
        auto store = fs::exists(file.toStdString())
                         ? project::ProjectStore::open(file.toStdString())
                         : project::ProjectStore::create(file.toStdString(), project_->manifest);
        project::Decision accept;
        accept.mention = ref.key;
        accept.mentionText = ref.mention->text;
        accept.kind = project::DecisionKind::Accept;
        accept.newLink = ref.mention->ids.ids.front();
        accept.curator = curator;
        store.record(accept);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        project_ = test::loadDemoProject();
    }

    // A decision, its replacement, undo and redo: each is stored, then announced once as the
    // decision in effect it replaced and the one that replaces it. A mention without a decision
    // had the link the ranker proposes (here a fixed proposal).
    void everyChangeIsAnnouncedOnce() {
        DecisionLog log;
        log.setProposedLink([](const project::MentionKey&, const Mention&, const std::vector<curation::CandidateRow>*) {
            return std::string("MESH:PROPOSED");
        });
        QCOMPARE(log.open(project_, newProjectFile()), QString());
        Replacements replacements(log);
        QSignalSpy changed(&log, &DecisionLog::decisionChanged);
        const MentionRef ref = firstMentions().front();

        QVERIFY(log.decide(ref.key, *ref.mention, project::DecisionKind::Accept));
        const auto accepted = log.currentDecision(ref.key);
        QVERIFY(accepted.has_value());
        QCOMPARE(accepted->previousLink, std::string("MESH:PROPOSED"));
        QCOMPARE(accepted->newLink, std::string("MESH:PROPOSED"));
        QCOMPARE(replacements.seen.size(), std::size_t{1});
        QCOMPARE(idOf(replacements.seen[0].first), std::nullopt);
        QCOMPARE(idOf(replacements.seen[0].second), std::optional<std::int64_t>(accepted->id));

        QVERIFY(log.decide(ref.key, *ref.mention, project::DecisionKind::Correct, "MESH:D000001"));
        const auto corrected = log.currentDecision(ref.key);
        QCOMPARE(corrected->previousLink, std::string("MESH:PROPOSED"));  // the accept's link
        QCOMPARE(replacements.seen.size(), std::size_t{2});
        QCOMPARE(idOf(replacements.seen[1].first), std::optional<std::int64_t>(accepted->id));
        QCOMPARE(idOf(replacements.seen[1].second), std::optional<std::int64_t>(corrected->id));

        log.undoStack()->undo();
        QCOMPARE(log.currentDecision(ref.key)->id, accepted->id);
        QCOMPARE(replacements.seen.size(), std::size_t{3});
        QCOMPARE(idOf(replacements.seen[2].first), std::optional<std::int64_t>(corrected->id));
        QCOMPARE(idOf(replacements.seen[2].second), std::optional<std::int64_t>(accepted->id));

        log.undoStack()->undo();
        QVERIFY(!log.hasDecision(ref.key));
        QCOMPARE(idOf(replacements.seen[3].first), std::optional<std::int64_t>(accepted->id));
        QCOMPARE(idOf(replacements.seen[3].second), std::nullopt);

        log.undoStack()->redo();
        QCOMPARE(log.currentDecision(ref.key)->id, accepted->id);
        QCOMPARE(idOf(replacements.seen[4].first), std::nullopt);
        QCOMPARE(idOf(replacements.seen[4].second), std::optional<std::int64_t>(accepted->id));
        QCOMPARE(replacements.seen.size(), std::size_t{5});
        QCOMPARE(changed.count(), 5);
    }

    // A decision written into the project file by another connection reaches the log through
    // the same announcement as one made here, and the undo stack then holds it.
    void aDecisionFromElsewhereTakesTheSameEntry() {
        DecisionLog log;
        const QString file = newProjectFile();
        QCOMPARE(log.open(project_, file), QString());
        const auto refs = firstMentions();
        QVERIFY(log.decide(refs[0].key, *refs[0].mention, project::DecisionKind::Skip));
        Replacements replacements(log);
        QSignalSpy reloaded(&log, &DecisionLog::decisionsReloaded);

        recordElsewhere(file, refs[1], "bob");
        QVERIFY(!log.hasDecision(refs[1].key));  // not read back yet
        log.readBackStore();

        QCOMPARE(reloaded.count(), 1);
        const auto bobs = log.currentDecision(refs[1].key);
        QVERIFY(bobs.has_value());
        QCOMPARE(bobs->curator, std::string("bob"));
        // Only the mention whose decision in effect changed is announced.
        QCOMPARE(replacements.seen.size(), std::size_t{1});
        QCOMPARE(idOf(replacements.seen[0].first), std::nullopt);
        QCOMPARE(idOf(replacements.seen[0].second), std::optional<std::int64_t>(bobs->id));
        // The undo stack was rebuilt from the file: bob's decision is its top.
        QCOMPARE(log.undoStack()->count(), 2);
        log.undoStack()->undo();
        QVERIFY(!log.hasDecision(refs[1].key));
        QVERIFY(log.hasDecision(refs[0].key));
    }

    // The merge job records another curator's file through the log: its end reads the store
    // back (one announcement per merged decision); undo waits while a merge is under way.
    void theMergeRecordsThroughTheLog() {
        DecisionLog log;
        QCOMPARE(log.open(project_, newProjectFile()), QString());
        MergeJob merge(log);
        Replacements replacements(log);
        const auto refs = firstMentions();
        const QString other = newProjectFile();
        recordElsewhere(other, refs[0], "bob");
        recordElsewhere(other, refs[1], "bob");

        QSignalSpy finished(&merge, &MergeJob::finished);
        QVERIFY(merge.start(other));
        QVERIFY(merge.isUnderWay());
        QVERIFY(log.mergeUnderWay());
        QVERIFY(!merge.start(other));  // one at a time
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.first().at(1).toString(), QString());
        QVERIFY(finished.first().at(0).toString().contains(QStringLiteral("Merged 2 decision(s)")));
        QVERIFY(!merge.isUnderWay());
        QVERIFY(!log.mergeUnderWay());
        QCOMPARE(replacements.seen.size(), std::size_t{2});
        QCOMPARE(log.currentDecision(refs[0].key)->curator, std::string("bob"));
        QCOMPARE(log.currentDecision(refs[1].key)->curator, std::string("bob"));

        // While a merge writes into the file, the log refuses undo (the stack is rebuilt after).
        QSignalSpy errors(&log, &DecisionLog::errorOccurred);
        log.setMergeUnderWay(true);
        log.undoStack()->undo();
        QCOMPARE(errors.count(), 1);
        QVERIFY(errors.first().first().toString().contains(QStringLiteral("merge under way")));
        QVERIFY(log.hasDecision(refs[1].key));
    }

    // The ranker host follows the log: a decision read back from the file becomes a key of the
    // linked run's datastore, as one made here does, and undo takes it out again.
    void theRankerHostFollowsEveryDecision() {
#ifndef LINKSCOPE_HAVE_TORCH
        QSKIP("this build has no LibTorch: run linking needs it");
#else
        const fs::path demo = fs::path(LINKSCOPE_SOURCE_DIR) / "resources" / "demo";
        const fs::path run = dir_.filePath(QStringLiteral("runs/tiny-triplet")).toStdString();
        test::writeTinyTripletRun(run, {demo / "demo-kb.txt", demo / "demo-train.txt", demo / "demo-test.txt"});
        DecisionLog log;
        RankerHost rankers(log);
        log.setProposedLink([&rankers](const project::MentionKey& key, const Mention& mention,
                                       const std::vector<curation::CandidateRow>* ranked) {
            return rankers.proposedLink(key, mention, ranked);
        });
        const QString file = newProjectFile();
        QCOMPARE(log.open(project_, file), QString());
        QSignalSpy ready(&rankers, &RankerHost::rankerReady);
        rankers.open(project_);
        QVERIFY(ready.wait(30000));
        QVERIFY(rankers.sparseRankerBuilt());
        QSignalSpy linked(&rankers, &RankerHost::runLinked);
        rankers.linkWithRun(QString::fromStdString(run.string()), curation::LinkMode::Knn);
        QVERIFY(linked.wait(120000));
        QVERIFY(rankers.runRanker() != nullptr);
        QCOMPARE(rankers.runRanker()->curatorKeys(), std::size_t{0});

        const auto refs = firstMentions();
        recordElsewhere(file, refs[0], "bob");
        log.readBackStore();
        QCOMPARE(rankers.runRanker()->curatorKeys(), std::size_t{1});
        QVERIFY(log.decide(refs[1].key, *refs[1].mention, project::DecisionKind::Correct,
                           refs[1].mention->ids.ids.front()));
        QCOMPARE(rankers.runRanker()->curatorKeys(), std::size_t{2});
        log.undoStack()->undo();
        log.undoStack()->undo();
        QCOMPARE(rankers.runRanker()->curatorKeys(), std::size_t{0});
        rankers.close();
        log.close();
#endif
    }
};

QTEST_MAIN(TestSessionParts)
#include "test_session_parts.moc"
