// kNN-BioEL (Lin et al. 2024, §3.2): contrastive learning of mention and entity-name vectors.
// Each training mention is paired with a name of its gold entity; the logits are cosine
// similarities over temperature tau against every name of the batch (in-batch negatives) and
// against p hard negatives, the names of other entities that the current model ranks highest
// for the mention over the whole KB, retrieved again at every refresh (each epoch). Which name
// of the gold entity is the positive is not specified by the paper: we take the one the current
// model ranks highest for the mention (the synonym it finds easiest), refreshed with the
// negatives. Mentions whose gold is a composite (several entities) are left out.
#include <algorithm>
#include <numeric>

#include "train/losses.h"
#include "train/objective.h"
#include "util/error.h"

namespace linkscope::train {
namespace {

// L2-normalizes rows of `dimension` values in place, with the very operation the encoder
// normalizes its output with (torch's normalize over rows, fp32): on the CPU the vectors are bit
// for bit what encoding with normalize = true gives, as each row's norm does not depend on the
// rows beside it. A zero row stays zero.
void normalizeRows(std::vector<float>& rows, std::size_t dimension) {
    if (rows.empty() || dimension == 0) return;
    torch::NoGradGuard noGrad;
    const auto matrix = torch::from_blob(
        rows.data(), {static_cast<std::int64_t>(rows.size() / dimension), static_cast<std::int64_t>(dimension)},
        torch::kFloat);
    matrix.copy_(torch::nn::functional::normalize(matrix, torch::nn::functional::NormalizeFuncOptions().p(2).dim(1)));
}

class ContrastiveObjective final : public Objective {
public:
    ContrastiveObjective(const TrainingPreset& preset, const TrainingData& data)
        : preset_(preset), data_(data), p_(preset.contrastive.hardNegatives) {
        for (std::size_t m = 0; m < data.train.size(); ++m)
            if (data.train[m].gold.size() == 1) mentions_.push_back(m);
        if (mentions_.empty()) throw Error("training: no training mention with a single gold entity");
    }

    std::vector<std::vector<std::size_t>> batches(std::mt19937_64& rng, std::size_t batchSize) const override {
        return shuffledBatches(mentions_.size(), rng, batchSize);
    }

    // The names are encoded raw, as MethodLinker encodes the dictionary, and normalized here.
    bool encodesLinkerNames() const override { return true; }

    void refresh(const encoder::TextEncoder& encoder, const ProgressSink& progress, std::vector<float> names) override {
        const std::size_t dimension = encoder.dimension();
        // Raw vectors normalized here, whether encoded here or handed over by the validation: a
        // resumed run, which encodes them, must see the very vectors the uninterrupted run was
        // handed (the encoder would normalize on its device, on CUDA with other rounding).
        const encoder::EncodeRequest nameRequest{
            .maxLength = preset_.entityMaxLength, .pooling = {}, .normalize = false};
        nameVectors_ = names.empty() ? encoder.encode(data_.nameInputs, nameRequest, &progress)
                                     : handedNames(std::move(names), data_.nameInputs.size(), dimension);
        normalizeRows(nameVectors_, dimension);
        std::vector<std::string> inputs;
        for (const auto m : mentions_) inputs.push_back(data_.train[m].input);
        const auto mentionVectors =
            encoder.encode(inputs, {.maxLength = preset_.maxLength, .pooling = {}, .normalize = true}, &progress);
        // Deep enough to find p names of other entities past the gold entity's own names.
        const std::size_t depth = std::min(data_.dictionary.size(), p_ + 32);
        const auto ranked = denseTopK(mentionVectors, nameVectors_, dimension, depth);
        table_.assign(mentions_.size() * width(), 0);
        for (std::size_t i = 0; i < mentions_.size(); ++i) {
            const auto& mention = data_.train[mentions_[i]];
            const std::uint32_t gold = mention.gold.front();
            // The positive: the gold entity's best-ranked name, else (not in the top) its first name
            // by the exact score.
            std::optional<std::uint32_t> positive;
            std::vector<std::uint32_t> negatives;
            for (const auto entry : ranked[i]) {
                if (data_.isPositive(entry, mention.gold)) {
                    if (!positive) positive = entry;
                } else if (negatives.size() < p_) {
                    negatives.push_back(entry);
                }
            }
            if (!positive) positive = bestName(gold, mentionVectors.data() + i * dimension, dimension);
            for (std::uint32_t entry = 0; negatives.size() < p_ && entry < data_.dictionary.size(); ++entry)
                if (!data_.isPositive(entry, mention.gold)) negatives.push_back(entry);
            table_[i * width()] = *positive;
            std::copy(negatives.begin(), negatives.end(), table_.begin() + long(i * width() + 1));
        }
    }

    torch::Tensor loss(std::span<const std::size_t> batch, GradientEncoder& encoder, std::mt19937_64&) override {
        std::vector<std::string> mentionInputs, positiveInputs, negativeInputs;
        std::vector<std::int64_t> entityIds;
        for (const auto i : batch) {
            const auto& mention = data_.train[mentions_[i]];
            mentionInputs.push_back(mention.input);
            positiveInputs.push_back(data_.nameInputs[table_[i * width()]]);
            for (std::size_t n = 0; n < p_; ++n)
                negativeInputs.push_back(data_.nameInputs[table_[i * width() + 1 + n]]);
            entityIds.push_back(mention.gold.front());
        }
        const auto rows = static_cast<std::int64_t>(batch.size());
        const auto mentions = encoder.embed(mentionInputs, preset_.maxLength, preset_.pooling, true);
        const auto positives = encoder.embed(positiveInputs, preset_.entityMaxLength, preset_.pooling, true);
        torch::Tensor negatives = p_ == 0
                                      ? torch::zeros({rows, 0, mentions.size(1)}, mentions.options())
                                      : encoder.embed(negativeInputs, preset_.entityMaxLength, preset_.pooling, true)
                                            .reshape({rows, static_cast<std::int64_t>(p_), -1});
        return infoNceLoss(mentions, positives, negatives, preset_.contrastive.temperature,
                           torch::tensor(entityIds, torch::kLong).to(mentions.device()));
    }

    const std::vector<float>& nameVectors() const override { return nameVectors_; }

    void saveState(const std::filesystem::path& directory) const override {
        writeIdTable(directory / "candidates.bin", table_, width());
        writeVectorTable(directory / "names.bin", nameVectors_);
    }
    void loadState(const std::filesystem::path& directory, std::size_t dimension) override {
        // The ids index the dictionary's name inputs (the loss reads them).
        table_ = readIdTable(directory / "candidates.bin", mentions_.size(), width(), data_.nameInputs.size());
        nameVectors_ = readVectorTable(directory / "names.bin", data_.nameInputs.size(), dimension);
    }

private:
    std::size_t width() const noexcept { return 1 + p_; }

    std::uint32_t bestName(std::uint32_t entity, const float* mention, std::size_t dimension) const {
        std::uint32_t best = data_.entityEntries[entity].front();
        float bestScore = -2.0f;
        for (const auto entry : data_.entityEntries[entity]) {
            const float* name = nameVectors_.data() + std::size_t(entry) * dimension;
            const float score = std::inner_product(mention, mention + dimension, name, 0.0f);
            if (score > bestScore) {
                bestScore = score;
                best = entry;
            }
        }
        return best;
    }

    const TrainingPreset& preset_;
    const TrainingData& data_;
    std::size_t p_;
    std::vector<std::size_t> mentions_;  // training mentions with one gold entity
    std::vector<float> nameVectors_;
    std::vector<std::uint32_t> table_;  // per mention: positive entry, p negative entries
};

}  // namespace

std::unique_ptr<Objective> makeContrastiveObjective(const TrainingPreset& preset, const TrainingData& data) {
    return std::make_unique<ContrastiveObjective>(preset, data);
}

}  // namespace linkscope::train
