#include "run_eval.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "encoder/text_encoder.h"
#include "eval/evaluate.h"
#include "eval/report.h"
#include "train/method_linker.h"
#include "train/run_directory.h"
#include "train/training_preset.h"
#include "util/error.h"
#include "util/progress.h"

namespace linkscope::cli {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// "Encoding names: 42 %" on a terminal, overwritten in place; nothing otherwise.
ProgressSink terminalProgress() {
    ProgressSink progress;
    if (isatty(STDERR_FILENO)) {
        progress.report = [last = -1](std::string_view stage, double fraction) mutable {
            const int percent = static_cast<int>(fraction * 100.0);
            if (percent == last) return;
            last = percent;
            std::cerr << '\r' << stage << ": " << percent << " %" << std::flush;
        };
    }
    return progress;
}

void clearProgress(const ProgressSink& progress) {
    if (progress.report) std::cerr << '\r' << std::string(40, ' ') << '\r' << std::flush;
}

std::string numberText(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

// One line for the report: what ranks, and how (the method_linker.h table).
std::string rankerDescription(const train::TrainingPreset& preset, const train::RunInfo& info,
                              const encoder::TextEncoder& encoder) {
    std::string text = std::string(train::methodName(preset.method)) + ": " +
                       std::string(train::similarityName(preset.similarity)) + " over " +
                       std::string(encoder::poolingName(encoder.pooling())) + "-pooled vectors (" + encoder.deviceName() +
                       ")";
    if (preset.method == train::Method::BioSyn) text += " + " + numberText(info.sparseWeight) + " x tf-idf char 1-2";
    if (preset.method == train::Method::PrototypeSrn)
        text += ", re-ranking " + std::to_string(preset.prototype.candidates) + " " +
                std::string(train::candidateSourceName(preset.prototype.candidateSource)) + " candidates";
    return text;
}

}  // namespace

void runEvalOfRun(const RunEvalArguments& args) {
    const auto start = Clock::now();
    if (!train::isRunDirectory(args.run))
        throw Error(args.run.string() + " is not a run directory (it has no run.json and preset.json); "
                                        "`linkscope-cli train --out DIR` makes one");
    const train::TrainingPreset preset = train::TrainingPreset::load(train::presetFile(args.run));
    const train::RunInfo info = train::readRunInfo(args.run);
    const fs::path modelDirectory = train::modelDirectory(args.run);
    if (!fs::exists(modelDirectory / "config.json"))
        throw Error(args.run.string() + " holds no model yet (run status \"" + info.status +
                    "\"): the model is written after the first validated epoch");

    DictionaryArguments data = args.data;
    data.homonymExpansion = data.homonymExpansion || preset.homonymExpansion;
    const CorpusSetup setup = CorpusSetup::read(data);

    // The method's pooling and lengths (the linker encodes mentions and names with the
    // preset's lengths per call; the options' length only bounds what is loaded).
    encoder::EncoderOptions options = args.encoder.options();
    options.pooling = preset.pooling;
    options.maxLength = std::max(preset.maxLength, preset.entityMaxLength);
    options.normalize = false;
    const encoder::TextEncoder encoder = encoder::TextEncoder::load(modelDirectory, options);

    const EvalData evalData = buildEvalData(data, setup);

    const auto indexStart = Clock::now();
    train::LinkerOptions linkerOptions;
    linkerOptions.sparseWeight = info.sparseWeight;
    linkerOptions.threads = args.threads;
    const ProgressSink progress = terminalProgress();
    const train::MethodLinker linker(preset, encoder, evalData.dictionary, setup.kb.get(), linkerOptions, &progress);
    clearProgress(progress);
    const double indexSeconds = secondsSince(indexStart);

    eval::EvalOptions evalOptions;
    evalOptions.k = std::max<std::size_t>(args.k, eval::kMinimumDepth);
    evalOptions.trainingIds = evalData.trainingIds;
    // The context is cut to fit the preset's length by the model's own tokenizer, as the
    // trainer cut it for training and validation.
    evalOptions.partText = train::mentionInputs(preset, setup.evaluated, train::tokenCounterOf(encoder.tokenizer()));
    const eval::EvalResult result =
        eval::evaluate(evalData.queries, evalData.dictionary, linker.rankFunction(), evalOptions);
    const double seconds = secondsSince(start);

    eval::ReportOptions reportOptions;
    reportOptions.extra = {{"method", std::string(train::methodName(preset.method))},
                           {"ranker", rankerDescription(preset, info, encoder)},
                           {"split", data.split},
                           {"knowledge_base", data.kb.string()},
                           {"dictionary_entries", std::to_string(evalData.dictionary.size())},
                           {"index_seconds", std::to_string(indexSeconds)},
                           {"run", args.run.string()},
                           {"preset", train::presetFile(args.run).string()},
                           {"schedule", info.schedule},
                           {"run_status", info.status},
                           {"best_epoch", std::to_string(info.bestEpoch)},
                           {"model", modelDirectory.string()},
                           {"homonym_expansion", data.homonymExpansion ? "yes" : "no"}};
    if (preset.method == train::Method::BioSyn) reportOptions.extra.emplace("sparse_weight", numberText(info.sparseWeight));
    if (!args.report.empty()) eval::writeJsonReport(args.report, result, reportOptions);
    if (!args.perMention.empty())
        eval::writePerMention(args.perMention, result, evalData.queries.queries, evalData.dictionary);

    if (args.json) {
        nlohmann::json report = nlohmann::json::parse(eval::reportJson(result, reportOptions));
        // "seconds" is the whole command: reading, dictionary, encoding and ranking.
        report["seconds"] = seconds;
        report["evaluate_seconds"] = result.seconds;
        std::cout << report.dump(2) << '\n';
    } else {
        std::cout << "run " << args.run.string() << ": " << train::methodName(preset.method) << ", schedule "
                  << info.schedule << ", best epoch " << info.bestEpoch << " (" << info.status << ")\n";
        std::cout << eval::formatTable(result);
        std::cout << "dictionary entries: " << evalData.dictionary.size()
                  << ", linker ready (names encoded, indexes built) in " << indexSeconds << " s, total " << seconds
                  << " s\n";
    }
}

}  // namespace linkscope::cli
