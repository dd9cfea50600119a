// Context alignment: a second pretraining stage, ours (no paper's), for the methods that read a
// mention in its sentence and pool it at markers (BELHD: [S]/[E]; Le & Nguyen: [START]/[END]).
//
// Why: the papers fine-tune BERTs pretrained on running text, whose marker outputs already say
// what the marked words are. Our start is the compact encoder after SapBERT's self-alignment,
// which has read names alone, pooled at [CLS]; its marker outputs in a 128-token sentence hardly
// depend on the mention (docs/results.md: BELHD from that start links no dev mention right
// before training and collapsed after it; prototype-srn's re-ranker starts at 0.04). This stage
// teaches the encoder to read "left [S] mention [E] right" as it reads "mention" alone:
//   - the target of a training mention is the [CLS] vector of its text alone (what the
//     pretraining taught), computed with the model of the epoch's start and held fixed for the
//     epoch (refresh), so the stage moves the marker pooling toward the name space, not the
//     name space toward it;
//   - each mention is read with one of the two marker styles, drawn per mention and step, so
//     one stage serves both methods;
//   - loss = InfoNCE between the pooled mention and the targets of the batch (in-batch
//     negatives, cosine / temperature from the preset's contrastive.temperature, other mentions
//     of the same text masked) + the squared distance to its own target relative to the
//     target's squared norm: the direction for BELHD's inner product, the norm as well for
//     prototype-srn's Euclidean distance.
// It reads the training corpus's mention boundaries and text, never their gold ids, so it
// learns nothing the methods' own training does not see.
#include <array>
#include <random>
#include <unordered_map>
#include <utility>

#include "train/losses.h"
#include "train/method_inputs.h"
#include "train/objective.h"
#include "util/error.h"

namespace linkscope::train {
namespace {

constexpr std::size_t kStyles = 2;
constexpr ContextMarkers kStyleMarkers[kStyles] = {ContextMarkers::Belhd, ContextMarkers::LeNguyen};
constexpr encoder::Pooling kStylePooling[kStyles] = {encoder::Pooling::Markers, encoder::Pooling::StartEnd};

/// `input` ("left OPEN inside CLOSE right" in the `from` markers) with the `to` markers instead.
std::string withMarkers(std::string_view input, ContextMarkers from, ContextMarkers to) {
    const auto [open, close] = markerTokens(from);
    const auto [newOpen, newClose] = markerTokens(to);
    const std::size_t begin = input.find(open);
    const std::size_t end = begin == std::string_view::npos ? begin : input.find(close, begin + open.size());
    if (end == std::string_view::npos)
        throw Error("context alignment: an input lost its markers: " + std::string(input));
    std::string out(input.substr(0, begin));
    out += newOpen;
    out += input.substr(begin + open.size(), end - begin - open.size());
    out += newClose;
    out += input.substr(end + close.size());
    return out;
}

class ContextAlignmentObjective final : public Objective {
public:
    ContextAlignmentObjective(const TrainingPreset& preset, const TrainingData& data) : preset_(preset) {
        if (preset.markers == ContextMarkers::None)
            throw Error("preset \"" + preset.name +
                        "\": the context alignment needs markers (\"belhd\" or \"le-nguyen\")");
        std::unordered_map<std::string, std::int64_t> textIndex;
        for (const auto& mention : data.train) {
            const auto inside = mentionInsideMarkers(mention.input, preset.markers);
            if (!inside) throw Error("context alignment: a training input lacks its markers: " + mention.input);
            const auto [it, added] = textIndex.emplace(std::string(*inside), std::int64_t(texts_.size()));
            if (added) texts_.emplace_back(*inside);
            target_.push_back(it->second);
            for (std::size_t style = 0; style < kStyles; ++style)
                inputs_[style].push_back(preset.markers == kStyleMarkers[style]
                                             ? mention.input
                                             : withMarkers(mention.input, preset.markers, kStyleMarkers[style]));
        }
    }

    std::vector<std::vector<std::size_t>> batches(std::mt19937_64& rng, std::size_t batchSize) const override {
        return shuffledBatches(target_.size(), rng, batchSize);
    }

    void refresh(const encoder::TextEncoder& encoder, const ProgressSink& progress, std::vector<float>) override {
        targets_ = encoder.encode(
            texts_, {.maxLength = preset_.entityMaxLength, .pooling = encoder::Pooling::Cls, .normalize = false},
            &progress);
    }

    torch::Tensor loss(std::span<const std::size_t> batch, GradientEncoder& encoder, std::mt19937_64& rng) override {
        if (targets_.empty()) throw Error("context alignment: loss before refresh");
        std::bernoulli_distribution coin(0.5);
        std::array<std::vector<std::string>, kStyles> texts;
        std::array<std::vector<std::int64_t>, kStyles> ids;
        for (const std::size_t m : batch) {
            const std::size_t style = coin(rng) ? 1 : 0;
            texts[style].push_back(inputs_[style][m]);
            ids[style].push_back(target_[m]);
        }
        std::vector<torch::Tensor> pooled;
        std::vector<std::int64_t> order;
        for (std::size_t style = 0; style < kStyles; ++style) {
            if (texts[style].empty()) continue;
            pooled.push_back(encoder.embed(texts[style], preset_.maxLength, kStylePooling[style], false));
            order.insert(order.end(), ids[style].begin(), ids[style].end());
        }
        const auto mentions = torch::cat(pooled);
        const auto rows = static_cast<std::int64_t>(order.size());
        const auto dimension = mentions.size(1);
        const auto all =
            torch::from_blob(targets_.data(), {static_cast<std::int64_t>(texts_.size()), dimension}, torch::kFloat);
        const auto idTensor = torch::tensor(order, torch::kLong);
        const auto targets = all.index_select(0, idTensor).to(mentions.device());
        const auto noHardNegatives = torch::zeros({rows, 0, dimension}, mentions.options());
        const auto contrastive = infoNceLoss(mentions, targets, noHardNegatives, preset_.contrastive.temperature,
                                             idTensor.to(mentions.device()));
        const auto relativeDistance =
            ((mentions - targets).pow(2).sum(1) / targets.pow(2).sum(1).clamp_min(1e-6)).mean();
        return contrastive + relativeDistance;
    }

    void saveState(const std::filesystem::path& directory) const override {
        writeVectorTable(directory / "context_targets.bin", targets_);
    }
    void loadState(const std::filesystem::path& directory, std::size_t dimension) override {
        targets_ = readVectorTable(directory / "context_targets.bin", texts_.size(), dimension);
    }

private:
    const TrainingPreset& preset_;
    std::vector<std::string> texts_;                        ///< distinct mention texts
    std::vector<std::int64_t> target_;                      ///< each mention's index into texts_
    std::array<std::vector<std::string>, kStyles> inputs_;  ///< each mention in each marker style
    std::vector<float> targets_;                            ///< [texts_ x dimension], the epoch's [CLS] vectors
};

}  // namespace

std::unique_ptr<Objective> makeContextAlignmentObjective(const TrainingPreset& preset, const TrainingData& data) {
    return std::make_unique<ContextAlignmentObjective>(preset, data);
}

}  // namespace linkscope::train
