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
//   - half of the time (drawn per mention and step) the words between the markers are not the
//     mention's own but a knowledge-base name, drawn among those that fit the input's token
//     budget, and the target is that name's [CLS] vector: NCBI Disease's training set has about
//     1,500 distinct mention texts, and trained on them alone the stage learned to recognise
//     those (dev Acc@1 stayed at 0.38, docs/results.md), not to read any words it is given;
//   - loss = InfoNCE between the pooled mention and the targets of the batch (in-batch
//     negatives, cosine / temperature from the preset's contrastive.temperature, other mentions
//     of the same text masked) + the squared distance to its own target relative to the
//     target's squared norm: the direction for BELHD's inner product, the norm as well for
//     prototype-srn's Euclidean distance.
// It reads the training corpus's mention boundaries and text, never their gold ids, so it
// learns nothing the methods' own training does not see.
#include <algorithm>
#include <array>
#include <optional>
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

class ContextAlignmentObjective final : public Objective {
public:
    ContextAlignmentObjective(const TrainingPreset& preset, const TrainingData& data) : preset_(preset), data_(data) {
        if (preset.markers == ContextMarkers::None)
            throw Error("preset \"" + preset.name + "\": the context alignment needs markers (\"belhd\" or \"le-nguyen\")");
        if (preset.nameMarkers() != ContextMarkers::None)
            throw Error("preset \"" + preset.name + "\": the context alignment reads names alone (entity_pooling \"cls\")");
        const auto [open, close] = markerTokens(preset.markers);
        for (const auto& mention : data.train) {
            const auto inside = mentionInsideMarkers(mention.input, preset.markers);
            if (!inside) throw Error("context alignment: a training input lacks its markers: " + mention.input);
            const auto [it, added] = textIndex_.emplace(std::string(*inside), std::int64_t(texts_.size()));
            if (added) texts_.emplace_back(*inside);
            target_.push_back(it->second);
            // The words around the markers, to put another name between them.
            const std::string_view input = mention.input;
            const std::size_t openAt = input.find(open);
            const std::size_t closeAt = input.find(close, openAt + open.size());
            left_.emplace_back(input.substr(0, openAt));
            right_.emplace_back(input.substr(closeAt + close.size()));
        }
        // Mask keys: equal texts (a mention's and a KB name's alike) share one, so that neither
        // is the other's negative.
        nameKey_.reserve(data.nameInputs.size());
        for (const auto& name : data.nameInputs)
            nameKey_.push_back(textIndex_.emplace(name, std::int64_t(texts_.size() + nameKey_.size())).first->second);
    }

    std::vector<std::vector<std::size_t>> batches(std::mt19937_64& rng, std::size_t batchSize) const override {
        return shuffledBatches(target_.size(), rng, batchSize);
    }

    // The validation's name vectors ([CLS] of the plain names, entityMaxLength) are the targets
    // of the substituted names: refresh takes them when handed.
    bool encodesLinkerNames() const override { return true; }

    void refresh(const encoder::TextEncoder& encoder, const ProgressSink& progress, std::vector<float> names) override {
        const encoder::EncodeRequest cls{.maxLength = preset_.entityMaxLength, .pooling = encoder::Pooling::Cls,
                                         .normalize = false};
        targets_ = encoder.encode(texts_, cls, &progress);
        nameVectors_ = names.empty() ? encoder.encode(data_.nameInputs, cls, &progress)
                                     : handedNames(std::move(names), data_.nameInputs.size(), encoder.dimension());
        if (budget_.empty()) countTokens(encoder.tokenizer());
    }

    torch::Tensor loss(std::span<const std::size_t> batch, GradientEncoder& encoder, std::mt19937_64& rng) override {
        if (targets_.empty()) throw Error("context alignment: loss before refresh");
        std::bernoulli_distribution coin(0.5);
        std::array<std::vector<std::string>, kStyles> texts;
        std::array<std::vector<const float*>, kStyles> targetRows;
        std::array<std::vector<std::int64_t>, kStyles> keys;
        const std::size_t dimension = targets_.size() / texts_.size();
        for (const std::size_t m : batch) {
            const std::size_t style = coin(rng) ? 1 : 0;
            const auto [open, close] = markerTokens(kStyleMarkers[style]);
            std::string_view inside = texts_[std::size_t(target_[m])];
            const float* target = targets_.data() + std::size_t(target_[m]) * dimension;
            std::int64_t key = target_[m];
            if (const auto entry = coin(rng) ? fittingName(m, rng) : std::nullopt) {
                inside = data_.nameInputs[*entry];
                target = nameVectors_.data() + *entry * dimension;
                key = nameKey_[*entry];
            }
            std::string input = left_[m];
            input += open;
            input += ' ';
            input += inside;
            input += ' ';
            input += close;
            input += right_[m];
            texts[style].push_back(std::move(input));
            targetRows[style].push_back(target);
            keys[style].push_back(key);
        }
        std::vector<torch::Tensor> pooled;
        std::vector<float> targetValues;
        std::vector<std::int64_t> order;
        for (std::size_t style = 0; style < kStyles; ++style) {
            if (texts[style].empty()) continue;
            pooled.push_back(encoder.embed(texts[style], preset_.maxLength, kStylePooling[style], false));
            for (const float* row : targetRows[style]) targetValues.insert(targetValues.end(), row, row + dimension);
            order.insert(order.end(), keys[style].begin(), keys[style].end());
        }
        const auto mentions = torch::cat(pooled);
        const auto rows = static_cast<std::int64_t>(order.size());
        const auto targets = torch::tensor(targetValues, torch::kFloat).reshape({rows, -1}).to(mentions.device());
        const auto noHardNegatives = torch::zeros({rows, 0, mentions.size(1)}, mentions.options());
        const auto contrastive = infoNceLoss(mentions, targets, noHardNegatives, preset_.contrastive.temperature,
                                             torch::tensor(order, torch::kLong).to(mentions.device()));
        const auto relativeDistance =
            ((mentions - targets).pow(2).sum(1) / targets.pow(2).sum(1).clamp_min(1e-6)).mean();
        return contrastive + relativeDistance;
    }

    const std::vector<float>& nameVectors() const override { return nameVectors_; }

    void saveState(const std::filesystem::path& directory) const override {
        writeFloats(directory / "context_targets.bin", targets_);
        writeFloats(directory / "names.bin", nameVectors_);
    }
    void loadState(const std::filesystem::path& directory) override {
        targets_ = readFloats(directory / "context_targets.bin");
        nameVectors_ = readFloats(directory / "names.bin");
        if (texts_.empty() || targets_.size() % texts_.size() != 0 ||
            nameVectors_.size() != targets_.size() / texts_.size() * data_.nameInputs.size())
            throw Error(directory.string() + ": context alignment targets made for other training data");
    }

private:
    // Token counts: of each name (by count, for drawing one that fits) and the room each
    // mention's input leaves for the words between its markers.
    void countTokens(const encoder::BertTokenizer& tokenizer) {
        const auto count = tokenCounterOf(tokenizer);
        std::vector<std::pair<std::size_t, std::uint32_t>> byLength;
        byLength.reserve(data_.nameInputs.size());
        for (std::size_t entry = 0; entry < data_.nameInputs.size(); ++entry)
            byLength.emplace_back(count(data_.nameInputs[entry]) - 2, std::uint32_t(entry));  // without [CLS], [SEP]
        std::sort(byLength.begin(), byLength.end());
        for (const auto& [length, entry] : byLength) {
            namesByLength_.push_back(entry);
            nameLengths_.push_back(length);
        }
        budget_.reserve(target_.size());
        for (std::size_t m = 0; m < target_.size(); ++m) {
            const std::size_t used = count(data_.train[m].input);
            const std::size_t own = count(texts_[std::size_t(target_[m])]) - 2;
            budget_.push_back(used <= preset_.maxLength ? preset_.maxLength - used + own : own);
        }
    }

    // A KB name whose tokens fit where mention m's own words are, drawn uniformly; none when
    // no name is that short.
    std::optional<std::size_t> fittingName(std::size_t m, std::mt19937_64& rng) const {
        const auto fitting = std::size_t(std::upper_bound(nameLengths_.begin(), nameLengths_.end(), budget_[m]) -
                                         nameLengths_.begin());
        if (fitting == 0) return std::nullopt;
        return namesByLength_[std::uniform_int_distribution<std::size_t>(0, fitting - 1)(rng)];
    }

    const TrainingPreset& preset_;
    const TrainingData& data_;
    std::vector<std::string> texts_;                        ///< distinct mention texts
    std::unordered_map<std::string, std::int64_t> textIndex_;  ///< text -> mask key (mention texts first)
    std::vector<std::int64_t> target_;                      ///< each mention's index into texts_
    std::vector<std::string> left_, right_;                 ///< each mention's words before and after its markers
    std::vector<std::int64_t> nameKey_;                     ///< each KB name's mask key
    std::vector<std::uint32_t> namesByLength_;              ///< KB entries by token count
    std::vector<std::size_t> nameLengths_;                  ///< their token counts, ascending
    std::vector<std::size_t> budget_;                       ///< tokens each mention's markers may enclose
    std::vector<float> targets_;                            ///< [texts_ x dimension], the epoch's [CLS] vectors
    std::vector<float> nameVectors_;                        ///< [KB names x dimension], the same
};

}  // namespace

std::unique_ptr<Objective> makeContextAlignmentObjective(const TrainingPreset& preset, const TrainingData& data) {
    return std::make_unique<ContextAlignmentObjective>(preset, data);
}

}  // namespace linkscope::train
