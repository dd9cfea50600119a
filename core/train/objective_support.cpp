// What every objective shares: embedding with gradients, shuffled batches, dense top-k, and the
// choice of the method's objective.
#include <algorithm>
#include <numeric>

#include "encoder/token_batch.h"
#include "retrieval/dense_index.h"
#include "train/objective.h"
#include "util/error.h"

namespace linkscope::train {

GradientEncoder::GradientEncoder(encoder::BertEncoderModel& model, const encoder::BertTokenizer& tokenizer,
                                 torch::Device device)
    : model_(model), tokenizer_(tokenizer), device_(device) {}

torch::Tensor GradientEncoder::embed(std::span<const std::string> texts, std::size_t maxLength,
                                     encoder::Pooling pooling, bool normalize) {
    const auto spec = encoder::poolingSpecFor(tokenizer_, pooling);
    const auto encodings = encoder::tokenizeForPooling(tokenizer_, texts, maxLength, spec);
    const auto batch = encoder::makeTokenBatch(encodings, {}, tokenizer_.padId());
    return model_.embed(batch.ids.to(device_), batch.mask.to(device_), batch.types.to(device_), spec, normalize);
}

std::vector<std::vector<std::size_t>> shuffledBatches(std::size_t count, std::mt19937_64& rng, std::size_t batchSize) {
    std::vector<std::size_t> order(count);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::vector<std::size_t>> out;
    for (std::size_t at = 0; at < order.size(); at += batchSize)
        out.emplace_back(order.begin() + long(at), order.begin() + long(std::min(order.size(), at + batchSize)));
    return out;
}

std::vector<std::vector<std::uint32_t>> denseTopK(std::span<const float> queries, std::span<const float> names,
                                                  std::size_t dimension, std::size_t k) {
    const auto index = retrieval::DenseIndex::build(names, dimension, "training");
    const auto found = index.search(queries, k);
    std::vector<std::vector<std::uint32_t>> rows;
    rows.reserve(found.size());
    for (const auto& list : found) {
        auto& row = rows.emplace_back();
        row.reserve(list.size());
        for (const auto& candidate : list) row.push_back(candidate.entry);
    }
    return rows;
}

std::unique_ptr<Objective> makeObjective(const TrainingPreset& preset, const TrainingData& data,
                                         const kb::KnowledgeBase& kb, std::span<const kb::KnowledgeBase* const> kbs) {
    switch (preset.method) {
        case Method::BioSyn:
        case Method::Belhd:
            return makeMarginalObjective(preset, data);
        case Method::Triplet:
            return makeTripletObjective(preset, data);
        case Method::PrototypeSrn:
            return makePrototypeObjective(preset, data, kb);
        case Method::KnnBioel:
            return makeContrastiveObjective(preset, data);
        case Method::ContextAlignment:
            return makeContextAlignmentObjective(preset, data);
        case Method::MaskedLm:
            // Its texts and tokenizer are the trainer's (makeMaskedLmObjective), not a TrainingData.
            throw Error("training: the masked-LM stage is made from its corpora's texts, not from training mentions");
        case Method::SelfAlignment: {
            const kb::KnowledgeBase* const alone[] = {&kb};
            return makeSelfAlignmentObjective(preset,
                                              kbs.empty() ? std::span<const kb::KnowledgeBase* const>(alone) : kbs,
                                              data.holdout.empty() ? nullptr : &data.holdout);
        }
    }
    throw Error("training: unknown method");
}

}  // namespace linkscope::train
