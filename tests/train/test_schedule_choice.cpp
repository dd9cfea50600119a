// The schedule a run takes when none is asked for, by what its encoder starts from: the shipped
// presets from a new compact encoder, a run folder Linkscope pretrained, a downloaded
// checkpoint and a resumed run, the start read from what is on disk, and --schedule winning.
#include <filesystem>
#include <string>

#include "fixtures.h"
#include "train/run_directory.h"
#include "train/schedule_choice.h"
#include "train/training_preset.h"

using namespace linkscope;
using namespace linkscope::train;
namespace fs = std::filesystem;

namespace {

TrainingPreset shipped(const std::string& name) {
    return TrainingPreset::load(fs::path(LINKSCOPE_SOURCE_DIR) / "models" / (name + ".json"));
}

bool mentions(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

class TestScheduleChoice : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    // A run folder as `train --out` leaves it: run.json and preset.json (a model is not read).
    fs::path writeRun(const std::string& folder, const std::string& presetName, const std::string& schedule) {
        const fs::path run = dir_.path(folder);
        fs::create_directories(run);
        test::writeFile(presetFile(run), shipped(presetName).toJson());
        RunInfo info;
        info.status = "finished";
        info.preset = presetName;
        info.schedule = schedule;
        writeRunInfo(run, info);
        return run;
    }

    // A folder that is a Hugging Face checkpoint as far as the choice looks: no run.json.
    fs::path writeCheckpoint(const std::string& folder) {
        const fs::path checkpoint = dir_.path(folder);
        fs::create_directories(checkpoint);
        test::writeFile(checkpoint / "config.json", "{}");
        return checkpoint;
    }

private Q_SLOTS:
    void aNewCompactEncoderTakesShort() {
        for (const char* name : {"sapbert", "mlm", "biosyn", "belhd", "triplet", "prototype-srn", "knn-bioel"}) {
            const ScheduleChoice choice = chooseSchedule(shipped(name), compactStart());
            QCOMPARE(choice.schedule, std::string("short"));
            QVERIFY2(mentions(choice.reason, "random weights"), choice.reason.c_str());
        }
        // A preset without a short schedule keeps the paper's, and says why.
        TrainingPreset bare = shipped("sapbert");
        bare.schedules.clear();
        const ScheduleChoice paper = chooseSchedule(bare, compactStart());
        QCOMPARE(paper.schedule, std::string("paper"));
        QVERIFY2(mentions(paper.reason, "no \"short\""), paper.reason.c_str());
    }

    void aLinkscopeRunTakesShortPretrainedWhereThePresetHasIt() {
        const fs::path pretrained = writeRun("medic-sap", "sapbert", "short");
        const EncoderStart start = startOfFolder(pretrained);
        QCOMPARE(start.kind, EncoderStart::Kind::LinkscopeRun);
        QCOMPARE(start.runMethod, std::optional<Method>(Method::SelfAlignment));
        QCOMPARE(contextStartKind(start), StartKind::NamesOnly);
        for (const char* name : {"belhd", "prototype-srn"}) {
            const ScheduleChoice choice = chooseSchedule(shipped(name), start);
            QCOMPARE(choice.schedule, std::string("short-pretrained"));
            QVERIFY2(mentions(choice.reason, pretrained.string()), choice.reason.c_str());
            QVERIFY2(mentions(choice.reason, "pretrained by Linkscope: sapbert"), choice.reason.c_str());
        }
        for (const char* name : {"biosyn", "triplet", "knn-bioel", "context-alignment", "sapbert"}) {
            const ScheduleChoice choice = chooseSchedule(shipped(name), start);
            QCOMPARE(choice.schedule, std::string("short"));
            QVERIFY2(mentions(choice.reason, "no \"short-pretrained\""), choice.reason.c_str());
        }
        // Its model/ folder (a Hugging Face checkpoint) is the run's too, with a trailing slash as well.
        for (const fs::path& model : {modelDirectory(pretrained), modelDirectory(pretrained) / ""}) {
            const EncoderStart inner = startOfFolder(model);
            QCOMPARE(inner.kind, EncoderStart::Kind::LinkscopeRun);
            QCOMPARE(inner.runMethod, std::optional<Method>(Method::SelfAlignment));
            QCOMPARE(chooseSchedule(shipped("belhd"), inner).schedule, std::string("short-pretrained"));
        }
        // A context-aligned run and a fine-tuned one are Linkscope runs too.
        const EncoderStart aligned = startOfFolder(writeRun("medic-sap-ctx", "context-alignment", "short"));
        QCOMPARE(contextStartKind(aligned), StartKind::ContextAligned);
        QCOMPARE(chooseSchedule(shipped("belhd"), aligned).schedule, std::string("short-pretrained"));
        const EncoderStart tuned = startOfFolder(writeRun("biosyn-run", "biosyn", "short"));
        QCOMPARE(tuned.kind, EncoderStart::Kind::LinkscopeRun);
        QCOMPARE(contextStartKind(tuned), StartKind::Unknown);
        QCOMPARE(chooseSchedule(shipped("triplet"), tuned).schedule, std::string("short"));
    }

    void aDownloadedCheckpointTakesThePapers() {
        const fs::path checkpoint = writeCheckpoint("biobert");
        const EncoderStart start = startOfFolder(checkpoint);
        QCOMPARE(start.kind, EncoderStart::Kind::Checkpoint);
        QCOMPARE(contextStartKind(start), StartKind::Unknown);
        for (const char* name : {"sapbert", "biosyn", "belhd", "prototype-srn"}) {
            const ScheduleChoice choice = chooseSchedule(shipped(name), start);
            QCOMPARE(choice.schedule, std::string("paper"));
            QVERIFY2(mentions(choice.reason, checkpoint.string()), choice.reason.c_str());
            QVERIFY2(mentions(choice.reason, "already a trained BERT"), choice.reason.c_str());
        }
        // A checkpoint folder named "model" outside a run is a checkpoint still.
        QCOMPARE(startOfFolder(writeCheckpoint("downloads/model")).kind, EncoderStart::Kind::Checkpoint);
    }

    void aResumedRunKeepsItsSchedule() {
        const fs::path run = writeRun("stopped", "belhd", "short-pretrained");
        const EncoderStart start = resumeStart(run);
        QCOMPARE(start.kind, EncoderStart::Kind::Resume);
        QCOMPARE(start.runSchedule, std::string("short-pretrained"));
        QCOMPARE(chooseSchedule(shipped("belhd"), start).schedule, std::string("short-pretrained"));
    }

    void anExplicitScheduleAlwaysWins() {
        const EncoderStart run = startOfFolder(writeRun("asked-run", "sapbert", "short"));
        const EncoderStart checkpoint = startOfFolder(writeCheckpoint("asked-checkpoint"));
        for (const EncoderStart& start : {compactStart(), run, checkpoint}) {
            QCOMPARE(chooseSchedule(shipped("belhd"), start, "paper"), (ScheduleChoice{"paper", "as asked"}));
            QCOMPARE(chooseSchedule(shipped("belhd"), start, "short"), (ScheduleChoice{"short", "as asked"}));
        }
    }

    void anUnreadableRunFolderIsStillARun() {
        // The loader reports what is wrong with it; the choice treats it as a Linkscope run.
        const fs::path run = writeRun("broken", "sapbert", "short");
        test::writeFile(presetFile(run), "{ not json");
        const EncoderStart start = startOfFolder(run);
        QCOMPARE(start.kind, EncoderStart::Kind::LinkscopeRun);
        QVERIFY(!start.runMethod);
        const ScheduleChoice choice = chooseSchedule(shipped("belhd"), start);
        QCOMPARE(choice.schedule, std::string("short-pretrained"));
        QVERIFY2(mentions(choice.reason, "trained by Linkscope"), choice.reason.c_str());
    }
};

QTEST_APPLESS_MAIN(TestScheduleChoice)
#include "test_schedule_choice.moc"
