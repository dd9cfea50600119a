// A checkpoint report written out: lines for a terminal, or one JSON object with the same facts.
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "encoder/checkpoint_report.h"

namespace linkscope::encoder {
namespace {

using Json = nlohmann::ordered_json;

/// 109482240 as "109,482,240".
std::string grouped(std::uint64_t value) {
    std::string digits = std::to_string(value);
    for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3)
        digits.insert(static_cast<std::size_t>(at), ",");
    return digits;
}

/// "F32 x 199" for each dtype, over `files`.
std::string dtypeSummary(const std::map<std::string, std::size_t>& dtypes) {
    std::string text;
    for (const auto& [dtype, count] : dtypes)
        text += (text.empty() ? "" : ", ") + dtype + " x " + std::to_string(count);
    return text;
}

std::map<std::string, std::size_t> allDtypes(const CheckpointReport& report) {
    std::map<std::string, std::size_t> dtypes;
    for (const auto& file : report.weights)
        for (const auto& [dtype, count] : file.dtypes) dtypes[dtype] += count;
    return dtypes;
}

std::string casingText(const CheckpointReport& report) {
    if (!report.lowerCase) return {};
    return std::string(*report.lowerCase ? "lower-cased" : "cased") + " (from " + report.casingSource + ")";
}

std::string maxLengthText(const CheckpointReport& report) {
    std::string text = std::to_string(report.maxTokens) + " tokens (max_position_embeddings " +
                       std::to_string(report.maxPositionEmbeddings);
    if (report.maxPositionEmbeddings > report.maxTokens)
        text += " less XLM-R's position offset " + std::to_string(report.maxPositionEmbeddings - report.maxTokens);
    text += ")";
    if (report.tokenizerMaxLength > 0)
        text += "; the tokenizer's model_max_length " + std::to_string(report.tokenizerMaxLength);
    return text;
}

}  // namespace

std::string reportText(const CheckpointReport& report) {
    std::ostringstream out;
    out << "folder: " << report.directory.string() << '\n';
    if (!report.modelType.empty()) {
        out << "architecture: " << report.modelType << " (hidden " << report.hiddenSize << ", " << report.layers
            << " layers, " << report.heads << " heads, vocab_size " << report.vocabSize << ")\n";
        out << "pooling: " << report.pooling << '\n';
        out << "max length: " << maxLengthText(report) << '\n';
        out << "projection head: "
            << (report.projectionDim > 0 ? report.projectionHead + ", to " + std::to_string(report.projectionDim)
                                         : std::string("none"))
            << '\n';
    }
    if (!report.tokenizerKind.empty()) {
        out << "tokenizer: " << report.tokenizerKind << " from " << report.tokenizerFile.filename().string() << " ("
            << report.tokenizerIds << " ids)\n";
        out << "casing: " << casingText(report) << '\n';
    }
    if (!report.weightsLayout.empty()) {
        out << "weights: " << report.weightsLayout << '\n';
        out << "weights choice: " << report.weightsChoice << '\n';
    }
    for (const auto& file : report.weights)
        out << "weights file: " << file.file.filename().string() << " (" << file.format << "; "
            << dtypeSummary(file.dtypes) << " tensors; " << grouped(file.parameters) << " parameters)\n";
    if (!report.weights.empty()) {
        out << "dtypes: " << dtypeSummary(allDtypes(report)) << '\n';
        out << "parameters: " << grouped(report.storedParameters) << " stored";
        if (report.encoderParameters > 0)
            out << "; the encoder loads " << grouped(report.encoderParameters) << " (config.json's sizes)";
        out << '\n';
    }
    if (report.sparseWeight)
        out << "biosyn sparse weight: " << *report.sparseWeight << " from "
            << report.sparseWeightFile.filename().string() << '\n';
    if (!report.sparseEncoderFile.empty())
        out << "biosyn sparse encoder: " << report.sparseEncoderFile.filename().string()
            << " (never unpickled; the sparse index is refit)\n";
    for (const auto& note : report.notes) out << "note: " << note << '\n';
    for (const auto& warning : report.warnings) out << "warning: " << warning << '\n';
    for (const auto& error : report.errors) out << "error: " << error << '\n';
    out << "status: " << (report.loadable() ? "loads" : "cannot be loaded") << '\n';
    return out.str();
}

std::string reportJson(const CheckpointReport& report) {
    Json root;
    root["folder"] = report.directory.string();
    root["loadable"] = report.loadable();
    root["errors"] = report.errors;
    root["warnings"] = report.warnings;
    root["notes"] = report.notes;
    if (!report.modelType.empty()) {
        root["architecture"] = {
            {"model_type", report.modelType}, {"hidden_size", report.hiddenSize},
            {"layers", report.layers},        {"heads", report.heads},
            {"vocab_size", report.vocabSize}, {"max_position_embeddings", report.maxPositionEmbeddings}};
        root["pooling"] = report.pooling;
        root["max_length"] = report.maxTokens;
        root["projection_head"] =
            report.projectionDim > 0 ? Json{{"kind", report.projectionHead}, {"dim", report.projectionDim}} : Json();
    }
    if (!report.tokenizerKind.empty())
        root["tokenizer"] = {{"kind", report.tokenizerKind},
                             {"file", report.tokenizerFile.filename().string()},
                             {"ids", report.tokenizerIds},
                             {"model_max_length", report.tokenizerMaxLength},
                             {"lower_case", report.lowerCase.value_or(true)},
                             {"casing_source", report.casingSource}};
    if (!report.weightsLayout.empty()) {
        Json weights{{"layout", report.weightsLayout}, {"choice", report.weightsChoice}};
        std::set<std::string> formats;
        Json files = Json::array();
        for (const auto& file : report.weights) {
            formats.insert(file.format);
            files.push_back({{"file", file.file.filename().string()},
                             {"format", file.format},
                             {"tensors", file.tensors},
                             {"parameters", file.parameters},
                             {"dtypes", file.dtypes}});
        }
        weights["format"] = formats.size() == 1 ? Json(*formats.begin()) : Json();
        weights["files"] = std::move(files);
        weights["dtypes"] = allDtypes(report);
        Json unused = Json::array();
        for (const auto& path : report.unusedWeights) unused.push_back(path.filename().string());
        weights["unused"] = std::move(unused);
        root["weights"] = std::move(weights);
        root["parameters"] = {{"stored", report.storedParameters},
                              {"encoder", report.encoderParameters},
                              {"pretraining_head", report.headParameters}};
    }
    if (report.sparseWeight || !report.sparseEncoderFile.empty()) {
        Json biosyn;
        biosyn["sparse_weight"] = report.sparseWeight ? Json(*report.sparseWeight) : Json();
        biosyn["sparse_weight_file"] =
            report.sparseWeightFile.empty() ? Json() : Json(report.sparseWeightFile.filename().string());
        biosyn["sparse_encoder_file"] =
            report.sparseEncoderFile.empty() ? Json() : Json(report.sparseEncoderFile.filename().string());
        biosyn["sparse_index"] = "refit from the dictionary with BioSyn's settings; the vectorizer is never unpickled";
        root["biosyn"] = std::move(biosyn);
    }
    return root.dump(2) + "\n";
}

}  // namespace linkscope::encoder
