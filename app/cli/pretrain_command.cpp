// linkscope-cli pretrain --kb FILE [--kb FILE...] [--dev FILE... [--types ..] [--spelling FILE]]
//                        [--preset sapbert] [--schedule paper|short] [--corpus FILE...]
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
// the best model is kept; without, the last epoch's.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <optional>

#include "commands.h"
#include "corpus_arguments.h"
#include "kb_arguments.h"
#include "encoder/compact_encoder.h"
#include "eval/queries.h"
#include "project/loaded_project.h"
#include "text/spelling_map.h"
#include "train/run_directory.h"
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
    std::string schedule = "paper";
    std::vector<fs::path> corpora;
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
    if (args.corpusOptions.format != "auto") command += " --corpus-format " + args.corpusOptions.format;
    for (const auto& type : args.types) command += " --types " + shellWord(type);
    if (!args.spelling.empty()) command += " --spelling " + shellWord(args.spelling.string());
    if (args.device != "auto") command += " --device " + args.device;
    if (args.checkpointSteps != 0) command += " --checkpoint-steps " + std::to_string(args.checkpointSteps);
    return command;
}

/// The encoder that starts the run: the checkpoint's on resume, a given one, or a new compact one
/// whose vocabulary covers every vocabulary's names and the corpora's mentions.
encoder::TextEncoder startingEncoder(const PretrainArguments& args, const train::TrainingPreset& preset,
                                     const std::optional<fs::path>& models, std::span<const kb::KnowledgeBase> kbs) {
    encoder::EncoderOptions options;
    options.device = devicePreference(args.device);
    options.maxLength = std::max(preset.maxLength, preset.entityMaxLength);
    options.pooling = preset.pooling;
    if (args.resume) return encoder::TextEncoder::load(train::checkpointDirectory(args.out) / "model", options);
    if (!args.model.empty()) return encoder::TextEncoder::load(args.model, options);

    encoder::CompactEncoderPreset compact =
        encoder::CompactEncoderPreset::load(compactPresetFile(args.compactPreset, models));
    compact.config.pooling = preset.pooling;
    const std::vector<Corpus> corpora = args.corpusOptions.readEach(args.corpora);
    std::vector<const Corpus*> corpusPointers;
    for (const auto& corpus : corpora) corpusPointers.push_back(&corpus);
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < kbs.size(); ++i) {
        // The corpora's mentions once, with the first vocabulary.
        auto more = encoder::vocabularyTexts(kbs[i], i == 0 ? std::span<const Corpus* const>(corpusPointers)
                                                            : std::span<const Corpus* const>());
        texts.insert(texts.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    // Every method's markers, so that the methods that read mentions in context find them in the
    // vocabulary of the encoder they fine-tune.
    const std::vector<std::string> markers = {"[S]", "[E]", "[START]", "[END]"};
    return encoder::createCompactEncoder(compact, texts, markers, options);
}

void runPretrain(const PretrainArguments& args) {
    if (args.resume && (!args.model.empty() || !args.compactPreset.empty()))
        throw Error("--resume continues from the run's checkpoint: leave out --model and --compact-preset");
    if (!args.model.empty() && !args.compactPreset.empty()) throw Error("give either --model DIR or --compact-preset FILE");

    const std::optional<fs::path> models = modelsDirectory();
    train::TrainingPreset preset =
        args.resume ? train::loadRunPreset(args.out, train::readRunInfo(args.out)) : train::findPreset(args.preset, models.value_or(fs::path()));
    if (preset.method != train::Method::SelfAlignment)
        throw Error("preset \"" + preset.name + "\" is the method " + std::string(train::methodName(preset.method)) +
                    ", not the self-alignment pretraining (sapbert); use `linkscope-cli train` for it");
    // On resume, preset.json holds the schedule already applied as its "training".
    const std::string schedule = args.resume ? std::string("paper") : args.schedule;
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
    if (!args.spelling.empty()) spelling = std::make_shared<const text::SpellingMap>(text::SpellingMap::load(args.spelling));

    train::TrainingInputs inputs;
    inputs.kb = &kbs.front();
    inputs.dev = devCorpus ? &*devCorpus : nullptr;
    inputs.queries.types = args.types;
    inputs.queries.normalizer = eval::bioSynQueryNormalizer(spelling);
    for (const auto& kb : kbs) inputs.pretrainingKbs.push_back(&kb);

    encoder::TextEncoder encoder = startingEncoder(args, preset, models, kbs);
    std::cout << "pretraining (self-alignment, preset \"" << preset.name << "\", schedule " << schedule << ") on "
              << kbs.size() << " vocabular" << (kbs.size() == 1 ? "y" : "ies") << " into " << args.out.string()
              << std::endl;

    train::TrainerOptions options;
    options.runDirectory = args.out;
    options.schedule = schedule;
    options.resume = args.resume;
    options.device = devicePreference(args.device);
    options.checkpointSteps = args.checkpointSteps;

    trainOnConsole(preset, std::move(encoder), inputs, options, resumeCommand(args));
    std::cout << "fine-tune it with: linkscope-cli train --preset NAME --model " << shellWord(args.out.string())
              << " ...\n";
}

}  // namespace

void addPretrainCommand(CLI::App& app) {
    auto args = std::make_shared<PretrainArguments>();
    CLI::App* cmd = app.add_subcommand(
        "pretrain", "Self-alignment pretraining (SapBERT) of an encoder on the synonyms of one or more vocabularies");
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
    cmd->add_option("--schedule", args->schedule, "Schedule of the preset: paper (default) or short");
    cmd->add_option("--corpus", args->corpora, "Corpora whose mentions join the new compact vocabulary")
        ->check(CLI::ExistingPath);
    args->corpusOptions.addOptions(*cmd, "any names; every listed split joins the vocabulary");
    cmd->add_option("--model", args->model, "Start from this checkpoint instead of a new compact encoder")
        ->check(CLI::ExistingDirectory);
    cmd->add_option("--compact-preset", args->compactPreset, "Compact encoder configuration (default: models/compact-encoder.json)")
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
