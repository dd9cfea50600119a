// linkscope-cli init-model --preset models/compact-encoder.json --kb FILE [--corpus FILE...]
//                          [--markers belhd|le-nguyen|none] --out DIR
//
// Creates the compact encoder before training: a WordPiece vocabulary learned from the KB's
// names and the corpora's mentions, BERT's random initialisation, saved in the Hugging Face
// layout (config.json, vocab.txt, tokenizer files, model.safetensors). `linkscope-cli train
// --model DIR` trains it; `encode`, `index` and `eval --model DIR` use it as any checkpoint.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "commands.h"
#include "corpus_arguments.h"
#include "dense_engine.h"
#include "encoder/compact_encoder.h"
#include "kb_arguments.h"
#include "project/loaded_project.h"
#include "util/error.h"

namespace linkscope::cli {
namespace {

struct InitModelArguments {
    std::filesystem::path preset;
    std::filesystem::path kb;
    std::string kbFormat = "auto";
    std::vector<std::filesystem::path> corpora;
    CorpusArguments corpusOptions;
    KbFilterArguments kbFilters;
    std::string markers = "none";
    std::filesystem::path out;
    bool force = false;
};

std::vector<std::string> markerTokens(const std::string& markers) {
    if (markers == "belhd") return {"[S]", "[E]"};
    if (markers == "le-nguyen") return {"[START]", "[END]"};
    if (markers == "all") return {"[S]", "[E]", "[START]", "[END]"};
    return {};
}

void runInitModel(const InitModelArguments& args) {
    if (std::filesystem::exists(args.out / "model.safetensors") && !args.force)
        throw Error(args.out.string() + " already holds a model; give --force to replace it");
    const encoder::CompactEncoderPreset preset = encoder::CompactEncoderPreset::load(args.preset);

    const KbReference reference = kbReferenceOf(args.kb, args.kbFormat, args.kbFilters);
    std::vector<Diagnostic> diagnostics;
    const kb::KnowledgeBase kb = loadKnowledgeBase(reference, diagnostics);
    const std::vector<Corpus> corpora = args.corpusOptions.readEach(args.corpora);
    std::vector<const Corpus*> corpusPointers;
    for (const auto& corpus : corpora) corpusPointers.push_back(&corpus);

    const std::vector<std::string> texts = encoder::vocabularyTexts(kb, corpusPointers);
    const std::vector<std::string> markers = markerTokens(args.markers);
    encoder::EncoderOptions options;
    options.device = encoder::DevicePreference::Cpu;
    const encoder::TextEncoder model = encoder::createCompactEncoder(preset, texts, markers, options);
    model.save(args.out);
    std::cout << "compact encoder written to " << args.out.string() << ": vocabulary "
              << model.tokenizer().vocabularySize() << " tokens (from " << texts.size() << " texts), "
              << model.config().hiddenSize << " hidden, " << model.config().numHiddenLayers << " layers, "
              << model.config().parameterCount() << " parameters, pooling " << encoder::poolingName(model.pooling())
              << '\n';
}

}  // namespace

void addInitModelCommand(CLI::App& app) {
    auto args = std::make_shared<InitModelArguments>();
    CLI::App* cmd = app.add_subcommand("init-model", std::string(denseOnlyDescription("init-model")));
    cmd->add_option("--preset", args->preset, "Encoder preset (models/compact-encoder.json)")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--kb", args->kb, "Vocabulary source: MEDIC / BioSyn dictionary, CTD TSV or UMLS MRCONSO.RRF")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--kb-format", args->kbFormat, "Vocabulary format (default: detected)")
        ->check(CLI::IsMember({"auto", "medic", "ctd", "umls"}));
    args->kbFilters.addOptions(*cmd);
    cmd->add_option("--corpus", args->corpora,
                    "Corpora (PubTator, BioC XML or brat folders) whose mentions join the vocabulary texts")
        ->check(CLI::ExistingPath);
    args->corpusOptions.addOptions(*cmd, "any names; every listed split joins the vocabulary");
    cmd->add_option("--markers", args->markers,
                    "Mention marker tokens to add: belhd ([S] [E]), le-nguyen ([START] [END]), all, or none")
        ->check(CLI::IsMember({"none", "belhd", "le-nguyen", "all"}));
    cmd->add_option("--out", args->out, "Directory to write the model to")->required();
    cmd->add_flag("--force", args->force, "Replace a model already in --out");
    cmd->callback([args] { runInitModel(*args); });
}

}  // namespace linkscope::cli
