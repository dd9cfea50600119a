// Xu & Bethard 2021: a vector space of names trained with online hard triplet mining. Every
// batch holds pairs of texts of the same concept (P concepts x 2 texts, after Hermans et al.'s
// P x K sampling, so that each anchor has a positive in the batch); the loss takes, per anchor,
// the farthest positive and the nearest negative in the batch and applies the soft margin
// ln(1 + e^(d_ap - d_an)) on Euclidean distances (eq. 3-5). Train:O uses the ontology's names;
// Train:OD adds the training mentions, repeated until |D| / |O| reaches the preset's ratio (1/3).
// Nothing is retrieved during training, so refresh() has nothing to do.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "train/losses.h"
#include "train/objective.h"
#include "util/error.h"

namespace linkscope::train {
namespace {

class TripletObjective final : public Objective {
public:
    TripletObjective(const TrainingPreset& preset, const TrainingData& data) : preset_(preset) {
        for (std::uint32_t entry = 0; entry < data.dictionary.size(); ++entry)
            for (const auto entity : data.entryEntities[entry]) items_.push_back({data.dictionary[entry].name, entity});
        const std::size_t ontology = items_.size();
        if (preset.triplet.trainingSet == TripletTrainingSet::OntologyAndData) {
            std::vector<const TrainingMention*> mentions;
            for (const auto& mention : data.train)
                if (mention.gold.size() == 1) mentions.push_back(&mention);
            if (!mentions.empty()) {
                const auto wanted =
                    static_cast<std::size_t>(std::llround(preset.triplet.mentionRatio * double(ontology)));
                const std::size_t count = std::max(wanted, mentions.size());
                for (std::size_t i = 0; i < count; ++i) {
                    const auto& mention = *mentions[i % mentions.size()];
                    items_.push_back({mention.part, mention.gold.front()});
                }
            }
        }
        if (items_.empty()) throw Error("training: no name to train the triplet objective on");
        // Items by concept, for the pair sampling.
        std::uint32_t entities = 0;
        for (const auto& item : items_) entities = std::max(entities, item.entity + 1);
        byEntity_.resize(entities);
        for (std::size_t i = 0; i < items_.size(); ++i) byEntity_[items_[i].entity].push_back(i);
    }

    std::vector<std::vector<std::size_t>> batches(std::mt19937_64& rng, std::size_t batchSize) const override {
        // Each concept's texts in a random order, cut into pairs (a last one alone); the pairs
        // shuffled and packed into batches: every text once per epoch.
        std::vector<std::vector<std::size_t>> pairs;
        for (const auto& texts : byEntity_) {
            std::vector<std::size_t> shuffled = texts;
            std::shuffle(shuffled.begin(), shuffled.end(), rng);
            for (std::size_t at = 0; at < shuffled.size(); at += 2)
                pairs.emplace_back(shuffled.begin() + long(at),
                                   shuffled.begin() + long(std::min(shuffled.size(), at + 2)));
        }
        std::shuffle(pairs.begin(), pairs.end(), rng);
        std::vector<std::vector<std::size_t>> out(1);
        for (const auto& pair : pairs) {
            if (out.back().size() + pair.size() > std::max<std::size_t>(batchSize, 2)) out.emplace_back();
            out.back().insert(out.back().end(), pair.begin(), pair.end());
        }
        if (out.back().empty()) out.pop_back();
        return out;
    }

    void refresh(const encoder::TextEncoder&, const ProgressSink&, std::vector<float>) override {}

    torch::Tensor loss(std::span<const std::size_t> batch, GradientEncoder& encoder, std::mt19937_64&) override {
        std::vector<std::string> texts;
        std::vector<std::int64_t> labels;
        for (const auto index : batch) {
            texts.push_back(items_[index].text);
            labels.push_back(items_[index].entity);
        }
        const auto embeddings = encoder.embed(texts, preset_.maxLength, preset_.pooling, false);
        return batchHardSoftMarginLoss(embeddings, torch::tensor(labels, torch::kLong).to(embeddings.device()));
    }

    void saveState(const std::filesystem::path&) const override {}
    void loadState(const std::filesystem::path&, std::size_t) override {}

private:
    struct Item {
        std::string text;
        std::uint32_t entity = 0;
    };
    const TrainingPreset& preset_;
    std::vector<Item> items_;
    std::vector<std::vector<std::size_t>> byEntity_;
};

}  // namespace

std::unique_ptr<Objective> makeTripletObjective(const TrainingPreset& preset, const TrainingData& data) {
    return std::make_unique<TripletObjective>(preset, data);
}

}  // namespace linkscope::train
