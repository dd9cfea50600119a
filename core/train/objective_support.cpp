// What every objective shares: embedding with gradients, dense top-k, and the binary tables a
// checkpoint keeps the refreshed candidates in.
#include <algorithm>
#include <cstring>
#include <fstream>
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

namespace {

constexpr char kTableMagic[8] = {'L', 'S', 'T', 'A', 'B', 'L', 'E', '1'};

template <typename T>
void writeRaw(const std::filesystem::path& file, std::span<const T> values, std::uint64_t width) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    const std::uint64_t count = values.size();
    out.write(kTableMagic, sizeof kTableMagic);
    out.write(reinterpret_cast<const char*>(&width), sizeof width);
    out.write(reinterpret_cast<const char*>(&count), sizeof count);
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size_bytes()));
    out.flush();
    if (!out) throw Error(file.string() + ": cannot write the table");
}

template <typename T>
std::vector<T> readRaw(const std::filesystem::path& file, std::uint64_t& width) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(file.string() + ": cannot open the checkpoint table");
    char magic[sizeof kTableMagic];
    std::uint64_t count = 0;
    in.read(magic, sizeof magic);
    in.read(reinterpret_cast<char*>(&width), sizeof width);
    in.read(reinterpret_cast<char*>(&count), sizeof count);
    if (!in || std::memcmp(magic, kTableMagic, sizeof magic) != 0)
        throw Error(file.string() + ": not a checkpoint table");
    const auto size = std::filesystem::file_size(file);
    if (count > (size - 24) / sizeof(T) || count * sizeof(T) != size - 24)
        throw Error(file.string() + ": the checkpoint table is truncated or has extra bytes");
    std::vector<T> values(count);
    in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(count * sizeof(T)));
    if (!in) throw Error(file.string() + ": cannot read the checkpoint table");
    return values;
}

}  // namespace

void writeTable(const std::filesystem::path& file, std::span<const std::uint32_t> values, std::size_t width) {
    writeRaw(file, values, width);
}

std::vector<std::uint32_t> readTable(const std::filesystem::path& file, std::size_t width) {
    std::uint64_t stored = 0;
    auto values = readRaw<std::uint32_t>(file, stored);
    if (stored != width || (width != 0 && values.size() % width != 0))
        throw Error(file.string() + ": the checkpoint table has rows of " + std::to_string(stored) + ", expected " +
                    std::to_string(width));
    return values;
}

void writeFloats(const std::filesystem::path& file, std::span<const float> values) { writeRaw(file, values, 1); }

std::vector<float> readFloats(const std::filesystem::path& file) {
    std::uint64_t width = 0;
    return readRaw<float>(file, width);
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
                                              kbs.empty() ? std::span<const kb::KnowledgeBase* const>(alone) : kbs);
        }
    }
    throw Error("training: unknown method");
}

}  // namespace linkscope::train
