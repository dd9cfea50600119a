// linkscope-cli pretrain --kb FILE [--kb FILE...] [--dev FILE... [--types ..] [--spelling FILE]]
//                        [--preset sapbert] [--schedule short|paper] [--corpus FILE...]
//                        [--mlm-corpus FILE... [--mlm-preset mlm] [--mlm-schedule NAME]]
//                        [--model DIR | --compact-preset FILE] --out DIR [--resume]
//                        [--device auto|cpu|cuda] [--checkpoint-steps N]
//
// SapBERT's self-alignment pretraining (Liu et al. 2021) of an encoder on the synonyms of one or
// more vocabularies: the starting point the five methods' papers take from a downloaded
// checkpoint, made here from what the user has. By default the compact encoder is created first
// (vocabulary from every --kb's names and the --corpus mentions, all marker tokens, random
// weights). The output folder is a run directory (train/run_directory.h) whose model/ is a
// Hugging Face checkpoint; `--model OUT` takes the folder itself everywhere a checkpoint goes.
// With --dev, the dev mentions are linked against the first vocabulary after every epoch and
// the best model is kept; without, names held out of it are (train/kb_holdout.h). Without --schedule, the start chooses it
// (train/schedule_choice.h: "short" for the new compact encoder, the paper's for a downloaded
// checkpoint) and the command says why.
//
// With --mlm-corpus, a masked-language-model stage (models/mlm.json) first reads those corpora's
// titles and abstracts, in the run directory OUT/mlm; the self-alignment then starts from that
// stage's model. --resume continues whichever stage was stopped (a finished MLM stage is kept).
// The compact vocabulary is the same with or without the stage (names and mentions), so that
// the two pretrainings differ by the stage alone.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <optional>

#include "commands.h"
#include "corpus_arguments.h"
#include "dense_engine.h"
#include "encoder/compact_encoder.h"
#include "eval/queries.h"
#include "kb_arguments.h"
#include "model_warnings.h"
#include "project/loaded_project.h"
#include "text/spelling_map.h"
#include "train/run_directory.h"
#include "train/run_recovery.h"
#include "train/schedule_choice.h"
#include "train/trainer.h"
#include "train/training_preset.h"
#include "training_console.h"
#include "util/error.h"
#include "util/progress.h"

namespace linkscope::cli {
namespace {

namespace fs = std::filesystem;

struct PretrainArguments {
    std::vector<fs::path> kbs;
    std::string kbFormat = "auto";
    std::vector<fs::path> dev;
    std::vector<std::string> types;
    fs::path spelling;
    std::string preset = "sapbert";
    std::string schedule;  ///< empty: chosen by the start (schedule_choice.h)
    std::vector<fs::path> corpora;
    std::vector<fs::path> mlmCorpora;
    std::string mlmPreset = "mlm";
    std::string mlmSchedule;  ///< empty: --schedule when the masked-LM preset has it, else chosen by the start
    CorpusArguments corpusOptions;
    KbFilterArguments kbFilters;
    fs::path model;
    fs::path compactPreset;
    fs::path out;
    bool resume = false;
    std::string device = "auto";
    std::size_t checkpointSteps = 0;
};

std::string resumeCommand(const PretrainArguments& args) {
    std::string command = "linkscope-cli pretrain --resume --out " + shellWord(args.out.string());
    for (const auto& file : args.kbs) command += " --kb " + shellWord(file.string());
    if (args.kbFormat != "auto") command += " --kb-format " + args.kbFormat;
    for (const auto& word : args.kbFilters.commandWords()) command += " " + shellWord(word);
    for (const auto& file : args.dev) command += " --dev " + shellWord(file.string());
    for (const auto& file : args.mlmCorpora) command += " --mlm-corpus " + shellWord(file.string());
    // A stopped masked-LM stage is followed by a self-alignment not yet begun: its preset and
    // schedule (a begun one reads them from its run directory and ignores these).
    if (!args.mlmCorpora.empty()) {
        if (args.preset != "sapbert") command += " --preset " + shellWord(args.preset);
        if (!args.schedule.empty()) command += " --schedule " + shellWord(args.schedule);
    }
    if (args.corpusOptions.format != "auto") command += " --corpus-format " + args.corpusOptions.format;
    for (const auto& type : args.types) command += " --types " + shellWord(type);
    if (!args.spelling.empty()) command += " --spelling " + shellWord(args.spelling.string());
    if (args.device != "auto") command += " --device " + args.device;
    if (args.checkpointSteps != 0) command += " --checkpoint-steps " + std::to_string(args.checkpointSteps);
    return command;
}

/// The encoder that starts the run in `run`: its checkpoint's on resume, `given` (--model or the
/// masked-LM stage's model), or a new compact one whose vocabulary covers every vocabulary's names
/// and the corpora's mentions.
encoder::TextEncoder startingEncoder(const PretrainArguments& args, const train::TrainingPreset& preset,
                                     const std::optional<fs::path>& models, std::span<const kb::KnowledgeBase> kbs,
                                     const fs::path& run, bool resume, const fs::path& given) {
    encoder::EncoderOptions options;
    options.device = devicePreference(args.device);
    options.maxLength = std::max(preset.maxLength, preset.entityMaxLength);
    options.pooling = preset.pooling;
    if (resume) return encoder::TextEncoder::load(train::checkpointDirectory(run) / "model", options);
    if (!given.empty()) {
        encoder::TextEncoder encoder = encoder::TextEncoder::load(given, options);
        printTokenizerWarnings(given);
        return encoder;
    }

    encoder::CompactEncoderPreset compact =
        encoder::CompactEncoderPreset::load(compactPresetFile(args.compactPreset, models));
    compact.config.pooling = preset.pooling;
    const std::vector<Corpus> corpora = args.corpusOptions.readEach(args.corpora);
    std::vector<const Corpus*> corpusPointers;
    for (const auto& corpus : corpora) corpusPointers.push_back(&corpus);
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < kbs.size(); ++i) {
        // The corpora's mentions once, with the first vocabulary.
        auto more = encoder::vocabularyTexts(
            kbs[i], i == 0 ? std::span<const Corpus* const>(corpusPointers) : std::span<const Corpus* const>());
        texts.insert(texts.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    // Every method's markers, so that the methods that read mentions in context find them in the
    // vocabulary of the encoder they fine-tune.
    const std::vector<std::string> markers = {"[S]", "[E]", "[START]", "[END]"};
    return encoder::createCompactEncoder(compact, texts, markers, options);
}

/// The masked-LM stage's run: OUT/mlm.
fs::path maskedLmRun(const PretrainArguments& args) { return args.out / "mlm"; }

/// What the first stage of a new pretraining starts from: --model as it is on disk, else a new
/// compact encoder.
train::EncoderStart pretrainingStart(const PretrainArguments& args) {
    return args.model.empty() ? train::compactStart() : train::startOfFolder(args.model);
}

/// Runs (or resumes, or finds finished) the masked-LM stage; returns its model's folder.
fs::path runMaskedLmStage(const PretrainArguments& args, const std::optional<fs::path>& models,
                          std::span<const kb::KnowledgeBase> kbs) {
    const fs::path run = maskedLmRun(args);
    const bool started = train::isRunDirectory(run);
    if (started && train::readRunInfo(run).status == "finished") {
        std::cout << "masked-LM stage: finished in " << run.string() << ", its model is kept" << std::endl;
        return train::modelDirectory(run);
    }
    if (started && !args.resume)
        throw Error(run.string() +
                    ": a masked-LM stage was started there; resume it (--resume) or choose another --out");
    if (started) train::recoverInterruptedSwaps(run);  // before its checkpoint is read (run_recovery.h)
    train::TrainingPreset preset = started ? train::loadRunPreset(run, train::readRunInfo(run))
                                           : train::findPreset(args.mlmPreset, models.value_or(fs::path()));
    if (preset.method != train::Method::MaskedLm)
        throw Error("preset \"" + preset.name + "\" is the method " + std::string(train::methodName(preset.method)) +
                    ", not the masked-LM stage (mlm)");
    // On resume, preset.json holds the schedule already applied: its "paper".
    train::ScheduleChoice chosen{"paper", "the schedule the stage was started with"};
    if (!started) {
        const std::string asked = !args.mlmSchedule.empty()
                                      ? args.mlmSchedule
                                      : (preset.schedules.contains(args.schedule) ? args.schedule : std::string());
        chosen = train::chooseSchedule(preset, pretrainingStart(args), asked);
    }
    const std::string& schedule = chosen.schedule;
    (void)preset.schedule(schedule);

    const std::vector<Corpus> corpora = args.corpusOptions.readEach(args.mlmCorpora);
    train::TrainingInputs inputs;
    inputs.kb = &kbs.front();
    for (const auto& corpus : corpora) inputs.textCorpora.push_back(&corpus);
    std::size_t documents = 0;
    for (const auto& corpus : corpora) documents += corpus.size();

    encoder::TextEncoder encoder = startingEncoder(args, preset, models, kbs, run, started, args.model);
    std::cout << "masked-LM stage (preset \"" << preset.name << "\", schedule " << schedule << ") on the titles and "
              << "abstracts of " << documents << " document" << (documents == 1 ? "" : "s") << " into " << run.string()
              << std::endl;
    if (!started) std::cout << "schedule " << schedule << ": " << chosen.reason << std::endl;
    train::TrainerOptions options;
    options.runDirectory = run;
    options.schedule = schedule;
    options.scheduleReason = chosen.reason;
    options.resume = started;
    options.device = devicePreference(args.device);
    options.checkpointSteps = args.checkpointSteps;
    trainOnConsole(preset, std::move(encoder), inputs, options, resumeCommand(args));
    return train::modelDirectory(run);
}

void runPretrain(const PretrainArguments& args) {
    if (args.resume && (!args.model.empty() || !args.compactPreset.empty()))
        throw Error("--resume continues from the run's checkpoint: leave out --model and --compact-preset");
    if (!args.model.empty() && !args.compactPreset.empty())
        throw Error("give either --model DIR or --compact-preset FILE");

    const std::optional<fs::path> models = modelsDirectory();
    // With a masked-LM stage, --resume may find the stage stopped and the self-alignment not begun.
    const bool resume = args.resume && train::isRunDirectory(args.out);
    if (resume) train::recoverInterruptedSwaps(args.out);  // before its checkpoint is read (run_recovery.h)
    if (args.resume && !resume && !train::isRunDirectory(maskedLmRun(args)))
        throw Error(args.out.string() + ": no pretraining to resume there");
    if (args.mlmCorpora.empty() && train::isRunDirectory(maskedLmRun(args)) && !resume)
        throw Error(maskedLmRun(args).string() +
                    ": this pretraining has a masked-LM stage; give its --mlm-corpus again");
    train::TrainingPreset preset = resume ? train::loadRunPreset(args.out, train::readRunInfo(args.out))
                                          : train::findPreset(args.preset, models.value_or(fs::path()));
    if (preset.method != train::Method::SelfAlignment)
        throw Error("preset \"" + preset.name + "\" is the method " + std::string(train::methodName(preset.method)) +
                    ", not the self-alignment pretraining (sapbert); use `linkscope-cli train` for it");
    // On resume, preset.json holds the schedule already applied as its "training": the trainer
    // applies its "paper"; the run's own name is what the command reports.
    train::ScheduleChoice chosen;
    if (resume) {
        chosen = train::chooseSchedule(preset, train::resumeStart(args.out));
    } else if (!args.mlmCorpora.empty()) {
        // After the masked-LM stage, which Linkscope pretrained in OUT/mlm.
        train::EncoderStart afterStage;
        afterStage.kind = train::EncoderStart::Kind::LinkscopeRun;
        afterStage.folder = maskedLmRun(args);
        afterStage.runMethod = train::Method::MaskedLm;
        chosen = train::chooseSchedule(preset, afterStage, args.schedule);
    } else {
        chosen = train::chooseSchedule(preset, pretrainingStart(args), args.schedule);
    }
    const std::string schedule = resume ? std::string("paper") : chosen.schedule;
    (void)preset.schedule(schedule);

    std::vector<kb::KnowledgeBase> kbs;
    kbs.reserve(args.kbs.size());
    for (const auto& path : args.kbs) {
        KbReference reference = kbReferenceOf(path, args.kbFormat, args.kbFilters);
        // The UMLS filters are for the UMLS vocabularies among several --kb.
        if (reference.format != KbFormat::Umls) reference = kbReferenceOf(path, args.kbFormat, {});
        std::vector<Diagnostic> diagnostics;
        kbs.push_back(loadKnowledgeBase(reference, diagnostics));
    }
    std::optional<Corpus> devCorpus;
    if (!args.dev.empty()) devCorpus = args.corpusOptions.read(args.dev);
    std::shared_ptr<const text::SpellingMap> spelling;
    if (!args.spelling.empty())
        spelling = std::make_shared<const text::SpellingMap>(text::SpellingMap::load(args.spelling));

    train::TrainingInputs inputs;
    inputs.kb = &kbs.front();
    inputs.dev = devCorpus ? &*devCorpus : nullptr;
    inputs.queries.types = args.types;
    inputs.queries.normalizer = eval::bioSynQueryNormalizer(spelling);
    for (const auto& kb : kbs) inputs.pretrainingKbs.push_back(&kb);

    // The masked-LM stage, when asked for and the self-alignment has not begun.
    fs::path start = args.model;
    if (!args.mlmCorpora.empty() && !resume) start = runMaskedLmStage(args, models, kbs);
    encoder::TextEncoder encoder = startingEncoder(args, preset, models, kbs, args.out, resume, start);
    std::cout << "pretraining (self-alignment, preset \"" << preset.name << "\", schedule " << chosen.schedule
              << ") on " << kbs.size() << " vocabular" << (kbs.size() == 1 ? "y" : "ies") << " into "
              << args.out.string() << std::endl;
    std::cout << "schedule " << chosen.schedule << ": " << chosen.reason << std::endl;

    train::TrainerOptions options;
    options.runDirectory = args.out;
    options.schedule = schedule;
    options.scheduleReason = chosen.reason;
    options.resume = resume;
    options.device = devicePreference(args.device);
    options.checkpointSteps = args.checkpointSteps;

    trainOnConsole(preset, std::move(encoder), inputs, options, resumeCommand(args));
    std::cout << "fine-tune it with: linkscope-cli train --preset NAME --model " << shellWord(args.out.string())
              << " ...\n";
}

}  // namespace

void addPretrainCommand(CLI::App& app) {
    auto args = std::make_shared<PretrainArguments>();
    CLI::App* cmd = app.add_subcommand("pretrain", std::string(denseOnlyDescription("pretrain")));
    cmd->add_option("--kb", args->kbs, "Vocabulary whose synonyms are paired (repeat for several: MEDIC, CTD, UMLS)")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--kb-format", args->kbFormat, "Vocabulary format of every --kb (default: detected per file)")
        ->check(CLI::IsMember({"auto", "medic", "ctd", "umls"}));
    args->kbFilters.addOptions(*cmd);
    cmd->add_option("--dev", args->dev,
                    "Dev corpus (PubTator, BioC XML or brat folder): linked against the first --kb after every epoch")
        ->check(CLI::ExistingPath);
    cmd->add_option("--types", args->types, "Only dev mentions of these types");
    cmd->add_option("--spelling", args->spelling, "Spelling map for the dev mentions (NCBI's ncbi-spell-check.txt)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--preset", args->preset, "Pretraining preset (default: sapbert, models/sapbert.json)");
    cmd->add_option("--schedule", args->schedule,
                    "Schedule of the preset: short or paper (default: chosen by the start: short for the new compact "
                    "encoder or a run folder, paper for a downloaded --model checkpoint)");
    cmd->add_option("--corpus", args->corpora, "Corpora whose mentions join the new compact vocabulary")
        ->check(CLI::ExistingPath);
    args->corpusOptions.addOptions(*cmd, "any names; every listed split joins the vocabulary");
    cmd->add_option("--mlm-corpus", args->mlmCorpora,
                    "First a masked-LM stage on these corpora's titles and abstracts (repeat for several)")
        ->check(CLI::ExistingPath);
    cmd->add_option("--mlm-preset", args->mlmPreset, "Masked-LM preset (default: mlm, models/mlm.json)");
    cmd->add_option("--mlm-schedule", args->mlmSchedule,
                    "Schedule of the masked-LM preset (default: --schedule when it has one, else chosen by the start)");
    cmd->add_option("--model", args->model, "Start from this checkpoint instead of a new compact encoder")
        ->check(CLI::ExistingDirectory);
    cmd->add_option("--compact-preset", args->compactPreset,
                    "Compact encoder configuration (default: models/compact-encoder.json)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--out", args->out, "Folder to create: a run directory whose model/ is the pretrained encoder")
        ->required();
    cmd->add_flag("--resume", args->resume, "Continue the pretraining in --out from its checkpoint");
    cmd->add_option("--device", args->device, "auto (CUDA when available), cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_option("--checkpoint-steps", args->checkpointSteps,
                    "Also write a checkpoint every N optimizer steps (0: at the end of every epoch only)");
    cmd->callback([args] { runPretrain(*args); });
}

}  // namespace linkscope::cli
