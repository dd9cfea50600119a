#pragma once
// A finished training run for tests that link or evaluate with one: the triplet preset of
// models/triplet.json and a tiny random BERT (tiny_bert.h) whose vocabulary is learned from the
// files the run will read (lower-cased), written in the layout `linkscope-cli train --out` makes.
// Rankings are arbitrary but deterministic; a mention that reads exactly as a name gets that
// name's vector (cosine 1). Needs LibTorch.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "test_data.h"
#include "tiny_bert.h"
#include "train/run_directory.h"
#include "train/training_preset.h"

namespace linkscope::test {

inline void writeTinyTripletRun(const std::filesystem::path& run, const std::vector<std::filesystem::path>& texts) {
    std::filesystem::create_directories(run);
    const train::TrainingPreset preset =
        train::TrainingPreset::load(std::filesystem::path(LINKSCOPE_SOURCE_DIR) / "models" / "triplet.json");
    std::vector<std::string> contents;
    for (const auto& file : texts) {
        std::string text = readFile(file);
        std::transform(text.begin(), text.end(), text.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        contents.push_back(std::move(text));
    }
    tinyBert(contents, preset.pooling).save(train::modelDirectory(run));
    writeFile(train::presetFile(run), preset.toJson());
    train::RunInfo info;
    info.status = "finished";
    info.preset = "triplet";
    train::writeRunInfo(run, info);
}

}  // namespace linkscope::test
