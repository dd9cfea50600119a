// BioSyn (Sung et al. 2020) and BELHD (Garda & Leser 2024): synonym marginalization over
// iteratively retrieved candidates.
//
// Each mention gets k candidates from the dictionary: BioSyn takes k - floor(alpha k) from the
// sparse (TF-IDF char 1-2) ranking, fixed for the run, and the rest from the dense ranking of the
// current model, refreshed at the start of every epoch (§3.3). BELHD takes its own top 16 dense
// candidates plus the 16 candidates of the other mentions of the same document most similar to
// the mention (candidate sharing, §4.2); when the document offers fewer, the mention's next dense
// candidates fill the row, so every row has k columns (a choice: the paper does not say).
// The score is S = S_dense + lambda * S_sparse (BioSyn eq. 3, lambda learned); BELHD has no
// sparse part. The loss is the marginal likelihood of the candidates naming a gold entity (eq. 8).
// Mentions and candidate names are both encoded with gradients in every step, as BioSyn's
// RerankNet does.
#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "retrieval/hybrid_ranker.h"
#include "retrieval/sparse_index.h"
#include "retrieval/tfidf_settings.h"
#include "train/candidate_rows.h"
#include "train/losses.h"
#include "train/objective.h"
#include "util/error.h"

namespace linkscope::train {
namespace {

class MarginalObjective final : public Objective {
public:
    MarginalObjective(const TrainingPreset& preset, const TrainingData& data)
        : preset_(preset), data_(data), settings_(preset.biosyn) {
        sharing_ = settings_.ownCandidates + settings_.sharedCandidates > 0;
        k_ = sharing_ ? settings_.ownCandidates + settings_.sharedCandidates : settings_.topK;
        if (k_ == 0) throw Error("training: the preset asks for no candidates");
        useSparse_ = settings_.candidates != CandidateSource::Dense;
        if (useSparse_ || settings_.sparseWeight != 0.0) buildSparse();
        lambda_ =
            torch::full({1}, settings_.sparseWeight, torch::kFloat).set_requires_grad(settings_.trainSparseWeight);
        for (const auto& mention : data_.train) documents_.push_back(mention.document);
    }

    std::vector<std::vector<std::size_t>> batches(std::mt19937_64& rng, std::size_t batchSize) const override {
        return shuffledBatches(data_.train.size(), rng, batchSize);
    }

    // The names are encoded as MethodLinker encodes the dictionary (BELHD's homonym-expanded
    // names with their markers included: data_.nameInputs are the linker's fitted name inputs).
    bool encodesLinkerNames() const override { return true; }

    void refresh(const encoder::TextEncoder& encoder, const ProgressSink& progress, std::vector<float> names) override {
        const std::size_t dimension = encoder.dimension();
        encoder::EncodeRequest nameRequest{
            .maxLength = preset_.entityMaxLength, .pooling = preset_.namePooling(), .normalize = false};
        encoder::EncodeRequest mentions{.maxLength = preset_.maxLength, .pooling = {}, .normalize = false};
        nameVectors_ = names.empty() ? encoder.encode(data_.nameInputs, nameRequest, &progress)
                                     : handedNames(std::move(names), data_.nameInputs.size(), dimension);
        std::vector<std::string> inputs;
        inputs.reserve(data_.train.size());
        for (const auto& mention : data_.train) inputs.push_back(mention.input);
        const auto mentionVectors = encoder.encode(inputs, mentions, &progress);
        // Deeper than k: the dense part skips entries the sparse part (or the own part) already has.
        const std::size_t depth = sharing_ ? k_ + settings_.ownCandidates : 2 * settings_.topK;
        const auto dense = denseTopK(mentionVectors, nameVectors_, dimension, depth);

        candidates_.assign(data_.train.size() * k_, 0);
        for (std::size_t m = 0; m < data_.train.size(); ++m) {
            std::vector<std::uint32_t> row;
            if (sharing_) {
                row = sharedRow(m, dense, mentionVectors, dimension);
            } else if (settings_.candidates == CandidateSource::Dense) {
                row = dense[m];
            } else {
                std::vector<retrieval::Candidate> denseList;
                for (const auto entry : dense[m]) denseList.push_back({entry, 0.0f});
                const double ratio = settings_.candidates == CandidateSource::Sparse ? 0.0 : settings_.denseRatio;
                row = retrieval::selectTrainingCandidates(sparseLists_[m], denseList, k_, ratio);
            }
            if (row.size() < k_) throw Error("training: the dictionary has fewer names than the candidates asked for");
            if (settings_.candidates == CandidateSource::Dense) injectGold(m, row, mentionVectors, dimension);
            std::copy_n(row.begin(), k_, candidates_.begin() + long(m * k_));
        }
        computeSparseScores();
    }

    torch::Tensor loss(std::span<const std::size_t> batch, GradientEncoder& encoder, std::mt19937_64&) override {
        const auto rows = static_cast<std::int64_t>(batch.size());
        std::vector<std::string> mentionInputs, candidateInputs;
        auto positives = torch::zeros({rows, static_cast<std::int64_t>(k_)}, torch::kBool);
        auto sparse = torch::zeros({rows, static_cast<std::int64_t>(k_)}, torch::kFloat);
        auto positiveAccess = positives.accessor<bool, 2>();
        auto sparseAccess = sparse.accessor<float, 2>();
        for (std::int64_t row = 0; row < rows; ++row) {
            const std::size_t m = batch[static_cast<std::size_t>(row)];
            mentionInputs.push_back(data_.train[m].input);
            for (std::size_t c = 0; c < k_; ++c) {
                const std::uint32_t entry = candidates_[m * k_ + c];
                candidateInputs.push_back(data_.nameInputs[entry]);
                positiveAccess[row][long(c)] = data_.isPositive(entry, data_.train[m].gold);
                sparseAccess[row][long(c)] = sparseScores_.empty() ? 0.0f : sparseScores_[m * k_ + c];
            }
        }
        const auto pooling = preset_.pooling;
        const auto mentionVectors = encoder.embed(mentionInputs, preset_.maxLength, pooling, false);
        const auto candidateVectors =
            encoder.embed(candidateInputs, preset_.entityMaxLength, preset_.namePooling(), false)
                .reshape({rows, static_cast<std::int64_t>(k_), -1});
        auto scores = torch::bmm(candidateVectors, mentionVectors.unsqueeze(2)).squeeze(2);
        if (!sparseScores_.empty()) scores = scores + lambda_.to(scores.device()) * sparse.to(scores.device());
        return marginalLikelihoodLoss(scores, positives.to(scores.device()));
    }

    std::vector<LearnedScalar> scalars() override {
        if (!settings_.trainSparseWeight) return {};
        return {{"sparse_weight", lambda_, settings_.sparseWeightLearningRate}};
    }
    const std::vector<float>& nameVectors() const override { return nameVectors_; }

    void saveState(const std::filesystem::path& directory) const override {
        writeIdTable(directory / "candidates.bin", candidates_, k_);
        writeVectorTable(directory / "names.bin", nameVectors_);
    }
    void loadState(const std::filesystem::path& directory, std::size_t dimension) override {
        // The ids index the dictionary and its name inputs (the sparse scores and the loss read
        // both), so each is checked against the smaller before either is read.
        const std::size_t entries = std::min(data_.dictionary.size(), data_.nameInputs.size());
        candidates_ = readIdTable(directory / "candidates.bin", data_.train.size(), k_, entries);
        nameVectors_ = readVectorTable(directory / "names.bin", data_.nameInputs.size(), dimension);
        computeSparseScores();
    }

private:
    void buildSparse() {
        sparse_ = retrieval::SparseIndex::build(data_.dictionary, retrieval::TfidfSettings::bioSyn());
        std::vector<std::string> parts;
        for (const auto& mention : data_.train) parts.push_back(mention.part);
        if (useSparse_) sparseLists_ = sparse_->search(std::span<const std::string>(parts), k_, 0);
        mentionSparse_.reserve(parts.size());
        for (const auto& part : parts) mentionSparse_.push_back(sparse_->vectorizer().transform(part));
    }

    void computeSparseScores() {
        sparseScores_.clear();
        if (!sparse_) return;
        sparseScores_.resize(candidates_.size());
        std::vector<std::optional<retrieval::SparseVector>> nameCache(data_.dictionary.size());
        for (std::size_t m = 0; m < data_.train.size(); ++m)
            for (std::size_t c = 0; c < k_; ++c) {
                const auto entry = candidates_[m * k_ + c];
                auto& name = nameCache[entry];
                if (!name) name = sparse_->vectorizer().transform(data_.dictionary[entry].name);
                sparseScores_[m * k_ + c] = retrieval::sparseDot(mentionSparse_[m], *name);
            }
    }

    // Dense-only candidates from a model trained from scratch rarely hold a gold name, and a row
    // without one teaches nothing (the marginal likelihood drops it): the gold entity's name
    // nearest to the mention then replaces the last candidate (candidate_rows.h). A deviation for
    // training from random weights; BELHD starts from BioBERT, whose candidates hold the gold
    // often enough.
    void injectGold(std::size_t m, std::vector<std::uint32_t>& row, std::span<const float> mentionVectors,
                    std::size_t dimension) const {
        const auto& gold = data_.train[m].gold;
        std::vector<std::uint32_t> goldEntries;
        for (const auto entity : gold)
            goldEntries.insert(goldEntries.end(), data_.entityEntries[entity].begin(),
                               data_.entityEntries[entity].end());
        train::injectGold(
            row, [&](std::uint32_t entry) { return data_.isPositive(entry, gold); }, goldEntries,
            nameScore(mentionVectors.data() + m * dimension, dimension));
    }

    // BELHD's row (candidate_rows.h): own dense candidates, then those of the document's other
    // mentions most similar to this one, then more of its own dense ones.
    std::vector<std::uint32_t> sharedRow(std::size_t m, const std::vector<std::vector<std::uint32_t>>& dense,
                                         std::span<const float> mentionVectors, std::size_t dimension) const {
        return sharedCandidateRow(m, dense, documents_, settings_.ownCandidates, settings_.sharedCandidates,
                                  nameScore(mentionVectors.data() + m * dimension, dimension));
    }

    // The inner product of a mention vector with an entry's name vector.
    EntryScore nameScore(const float* mention, std::size_t dimension) const {
        return [this, mention, dimension](std::uint32_t entry) {
            const float* name = nameVectors_.data() + std::size_t(entry) * dimension;
            return std::inner_product(mention, mention + dimension, name, 0.0f);
        };
    }

    const TrainingPreset& preset_;
    const TrainingData& data_;
    BioSynSettings settings_;
    bool sharing_ = false;
    std::vector<std::uint32_t> documents_;  // the document of every training mention
    bool useSparse_ = false;
    std::size_t k_ = 0;
    std::optional<retrieval::SparseIndex> sparse_;
    std::vector<std::vector<retrieval::Candidate>> sparseLists_;
    std::vector<retrieval::SparseVector> mentionSparse_;
    torch::Tensor lambda_;
    std::vector<float> nameVectors_;
    std::vector<std::uint32_t> candidates_;  // [mentions x k]
    std::vector<float> sparseScores_;        // [mentions x k]
};

}  // namespace

std::unique_ptr<Objective> makeMarginalObjective(const TrainingPreset& preset, const TrainingData& data) {
    return std::make_unique<MarginalObjective>(preset, data);
}

}  // namespace linkscope::train
