// Le & Nguyen 2023: a dual-encoder re-ranker trained with a prototype-based triplet loss.
//
// The mentions of one document linked to one entity form a group; within a group, soft-radius
// neighbour clustering (Algorithm 1) draws an anchor, gathers the mentions within lambda + eps of
// it and averages them into a prototype; the loss pulls the prototype towards the gold entity's
// vector and away from the hardest negative entity among the first-stage candidates of the
// cluster's mentions, by a margin on Euclidean distances (eq. 3), plus (lambda - r)^2 for the
// learned radius, which has its own learning rate. The variants of Table 3 replace the clusters:
// one prototype per group without SRN, one triplet per mention, or one drawn mention per group.
//
// Mentions read "left [START] mention [END] right" (average of the two marker outputs); entities
// read "type [SEP] syn1 [SEP] syn2 ..." ([CLS]). Deviations, both for a 2-core CPU: one BERT
// serves as both encoders (the paper trains two), and the hardest negative is chosen with the
// entity vectors of the last refresh (start of each epoch, or every kbRefreshSteps) only to
// shortlist the 8 nearest candidates of a cluster, which are re-encoded with the current model
// (without gradients) to pick the hardest one online, rather than re-encoding all 64 candidates'
// entities in every step; the chosen one is then encoded with gradients.
#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "retrieval/candidate_merge.h"
#include "retrieval/sparse_index.h"
#include "retrieval/tfidf_settings.h"
#include "train/candidate_rows.h"
#include "train/losses.h"
#include "train/objective.h"
#include "util/error.h"

namespace linkscope::train {
namespace {

// Candidates per cluster re-encoded with the current model to find the hardest negative online.
constexpr std::size_t kOnlineNegatives = 8;

class PrototypeObjective final : public Objective {
public:
    PrototypeObjective(const TrainingPreset& preset, const TrainingData& data) : preset_(preset), data_(data) {
        if (data.entityInputs.size() != data.entityIds.size()) throw Error("training: the entity inputs are missing");
        // Groups: (document, gold entity) of the mentions with one gold entity, in corpus order.
        groups_ = groupByDocumentEntity(data.train);
        if (groups_.empty()) throw Error("training: no training mention with a single gold entity");
        firstStage();
        radius_ = torch::full({1}, preset.prototype.radiusInit, torch::kFloat).set_requires_grad(true);
    }

    std::vector<std::vector<std::size_t>> batches(std::mt19937_64& rng, std::size_t batchSize) const override {
        std::vector<std::size_t> order(groups_.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<std::vector<std::size_t>> out(1);
        std::size_t mentions = 0;
        for (const auto g : order) {
            if (!out.back().empty() && mentions + groups_[g].mentions.size() > batchSize) {
                out.emplace_back();
                mentions = 0;
            }
            out.back().push_back(g);
            mentions += groups_[g].mentions.size();
        }
        return out;
    }

    std::size_t examples(std::span<const std::size_t> batch) const override {
        std::size_t count = 0;
        for (const auto g : batch) count += groups_[g].mentions.size();
        return count;
    }

    // Entity inputs with [CLS] pooling, not the dictionary's names: the validation's name vectors
    // (encodesLinkerNames false) are of no use here.
    void refresh(const encoder::TextEncoder& encoder, const ProgressSink& progress, std::vector<float>) override {
        std::vector<std::string> inputs;
        for (const auto entity : candidateEntities_) inputs.push_back(data_.entityInputs[entity]);
        entityVectors_ = encoder.encode(
            inputs, {.maxLength = preset_.entityMaxLength, .pooling = encoder::Pooling::Cls, .normalize = false},
            &progress);
        dimension_ = encoder.dimension();
    }

    torch::Tensor loss(std::span<const std::size_t> batch, GradientEncoder& encoder, std::mt19937_64& rng) override {
        std::vector<std::string> inputs;
        std::vector<std::size_t> groupRowBegin;
        for (const auto g : batch) {
            groupRowBegin.push_back(inputs.size());
            for (const auto m : groups_[g].mentions) inputs.push_back(data_.train[m].input);
        }
        const auto mentionVectors = encoder.embed(inputs, preset_.maxLength, preset_.pooling, false);
        const auto device = mentionVectors.device();
        const auto radius = radius_.to(device);

        // Clusters: rows of mentionVectors and the gold entity of each.
        std::vector<std::int64_t> memberRows, clusterOf;
        std::vector<std::uint32_t> clusterEntity;
        std::vector<std::vector<std::size_t>> clusterMentions;
        std::vector<torch::Tensor> radiusLosses;
        for (std::size_t b = 0; b < batch.size(); ++b) {
            const std::size_t g = batch[b];
            const std::size_t size = groups_[g].mentions.size();
            const auto begin = static_cast<std::int64_t>(groupRowBegin[b]);
            std::vector<std::size_t> local;
            switch (preset_.prototype.variant) {
                case PrototypeVariant::PrototypeSrn: {
                    const auto group = mentionVectors.slice(0, begin, begin + static_cast<std::int64_t>(size));
                    auto cluster = softRadiusCluster(group, rng, radius, preset_.prototype.epsilon);
                    radiusLosses.push_back(cluster.radiusLoss);
                    // Read on the host in one copy, not element by element.
                    const auto members = cluster.members.to(torch::kCPU, torch::kBool).contiguous();
                    const bool* member = members.data_ptr<bool>();
                    for (std::size_t row = 0; row < size; ++row)
                        if (member[row]) local.push_back(row);
                    break;
                }
                case PrototypeVariant::Prototype:
                    local.resize(size);
                    std::iota(local.begin(), local.end(), std::size_t{0});
                    break;
                case PrototypeVariant::TripletDownsampled:
                    local.push_back(std::uniform_int_distribution<std::size_t>(0, size - 1)(rng));
                    break;
                case PrototypeVariant::TripletAll:
                    for (std::size_t row = 0; row < size; ++row) {
                        const std::size_t one[] = {row};
                        addClusterAt(b, g, one, groupRowBegin, memberRows, clusterOf, clusterEntity, clusterMentions);
                    }
                    continue;
            }
            addClusterAt(b, g, local, groupRowBegin, memberRows, clusterOf, clusterEntity, clusterMentions);
        }

        const auto rows = torch::tensor(memberRows, torch::kLong).to(device);
        const auto members = mentionVectors.index_select(0, rows);
        const auto clusters = torch::tensor(clusterOf, torch::kLong).to(device);
        const auto count = static_cast<std::int64_t>(clusterEntity.size());
        // Prototypes without gradients, to pick each cluster's hardest negative.
        torch::Tensor prototypes;
        {
            torch::NoGradGuard noGrad;
            prototypes = torch::zeros({count, members.size(1)}, members.options())
                             .index_add_(0, clusters, members.detach())
                             .div_(torch::bincount(clusters, {}, count).unsqueeze(1).to(members.dtype()))
                             .to(torch::kCPU, torch::kFloat)
                             .contiguous();
        }
        // The hardest negative, online: the kOnlineNegatives nearest candidates by the refreshed
        // entity vectors are re-encoded with the current model (no gradients) and the nearest of
        // those to the prototype is taken.
        std::vector<std::vector<std::uint32_t>> shortlists(static_cast<std::size_t>(count));
        std::vector<std::uint32_t> shortlisted;
        std::unordered_map<std::uint32_t, std::int64_t> shortlistRow;
        for (std::int64_t c = 0; c < count; ++c) {
            shortlists[std::size_t(c)] =
                nearestNegatives(clusterMentions[std::size_t(c)], clusterEntity[std::size_t(c)],
                                 prototypes.data_ptr<float>() + c * prototypes.size(1));
            for (const auto entity : shortlists[std::size_t(c)])
                if (shortlistRow.try_emplace(entity, static_cast<std::int64_t>(shortlisted.size())).second)
                    shortlisted.push_back(entity);
        }
        torch::Tensor current;
        {
            torch::NoGradGuard noGrad;
            std::vector<std::string> texts;
            for (const auto entity : shortlisted) texts.push_back(data_.entityInputs[entity]);
            current = encoder.embed(texts, preset_.entityMaxLength, encoder::Pooling::Cls, false)
                          .to(torch::kCPU, torch::kFloat);
        }
        const auto distances = shortlistDistances(shortlists, shortlistRow, prototypes, current);
        std::vector<std::string> positiveInputs, negativeInputs;
        std::size_t pair = 0;
        for (std::int64_t c = 0; c < count; ++c) {
            positiveInputs.push_back(data_.entityInputs[clusterEntity[std::size_t(c)]]);
            // The nearest of the shortlist by hardestNegative (losses.h: the first of equals, never
            // a NaN; the first when none compares). The shortlist holds negatives only.
            const auto& shortlist = shortlists[std::size_t(c)];
            const auto size = static_cast<std::int64_t>(shortlist.size());
            const auto own =
                torch::from_blob(const_cast<float*>(distances.data()) + pair, {size}, torch::kFloat).clone();
            pair += shortlist.size();
            const auto chosen = hardestNegative(own, torch::zeros({size}, torch::kBool));
            negativeInputs.push_back(data_.entityInputs[chosen ? shortlist[std::size_t(*chosen)] : shortlist.front()]);
        }
        const auto positive = encoder.embed(positiveInputs, preset_.entityMaxLength, encoder::Pooling::Cls, false);
        const auto negative = encoder.embed(negativeInputs, preset_.entityMaxLength, encoder::Pooling::Cls, false);
        auto loss = prototypeTripletLoss(members, clusters, positive, negative, preset_.prototype.margin);
        if (!radiusLosses.empty()) loss = loss + torch::stack(radiusLosses).mean();
        return loss;
    }

    std::vector<LearnedScalar> scalars() override {
        if (preset_.prototype.variant != PrototypeVariant::PrototypeSrn) return {};
        return {{"radius", radius_, preset_.prototype.radiusLearningRate}};
    }

    void saveState(const std::filesystem::path& directory) const override {
        writeVectorTable(directory / "entities.bin", entityVectors_);
    }
    void loadState(const std::filesystem::path& directory, std::size_t dimension) override {
        entityVectors_ = readVectorTable(directory / "entities.bin", candidateEntities_.size(), dimension);
        dimension_ = dimension;
    }

private:
    void addClusterAt(std::size_t b, std::size_t g, std::span<const std::size_t> local,
                      const std::vector<std::size_t>& groupRowBegin, std::vector<std::int64_t>& memberRows,
                      std::vector<std::int64_t>& clusterOf, std::vector<std::uint32_t>& clusterEntity,
                      std::vector<std::vector<std::size_t>>& clusterMentions) const {
        auto& mentions = clusterMentions.emplace_back();
        for (const auto row : local) {
            memberRows.push_back(static_cast<std::int64_t>(groupRowBegin[b] + row));
            clusterOf.push_back(static_cast<std::int64_t>(clusterEntity.size()));
            mentions.push_back(groups_[g].mentions[row]);
        }
        clusterEntity.push_back(groups_[g].entity);
    }

    // The distance of each cluster's prototype to each entity of its shortlist, in shortlist
    // order, cluster after cluster, with one tensor operation for the batch. Only the pairs that
    // are compared are computed, each as the norm of the difference, as the per-pair loop this
    // replaces did: torch::cdist's matrix-product form (||a||^2 + ||b||^2 - 2ab) rounds
    // differently and could swap near-equal negatives.
    static std::vector<float> shortlistDistances(const std::vector<std::vector<std::uint32_t>>& shortlists,
                                                 const std::unordered_map<std::uint32_t, std::int64_t>& shortlistRow,
                                                 const torch::Tensor& prototypes, const torch::Tensor& current) {
        torch::NoGradGuard noGrad;
        std::vector<std::int64_t> clusterRows, entityRows;
        for (std::size_t c = 0; c < shortlists.size(); ++c)
            for (const auto entity : shortlists[c]) {
                clusterRows.push_back(static_cast<std::int64_t>(c));
                entityRows.push_back(shortlistRow.at(entity));
            }
        const auto differences = current.index_select(0, torch::tensor(entityRows, torch::kLong)) -
                                 prototypes.index_select(0, torch::tensor(clusterRows, torch::kLong));
        const auto norms = differences.norm(2, {1}).contiguous();
        return {norms.data_ptr<float>(), norms.data_ptr<float>() + norms.numel()};
    }

    // The first stage (Le & Nguyen's sparse retrieval: char 2-5 and word TF-IDF, merged): the
    // candidate entities of every training mention, fixed for the run.
    void firstStage() {
        // k entities (the paper's 64), read from k * 8 ranked entries.
        const std::size_t k = preset_.prototype.candidates;
        const std::size_t depth = k * kFirstStageEntriesPerEntity;
        std::vector<std::string> parts;
        for (const auto& mention : data_.train) parts.push_back(mention.part);
        const auto chars = retrieval::SparseIndex::build(data_.dictionary, retrieval::TfidfSettings::leNguyenChars());
        const auto words = retrieval::SparseIndex::build(data_.dictionary, retrieval::TfidfSettings::leNguyenWords());
        const auto charLists = chars.search(std::span<const std::string>(parts), depth, 0);
        const auto wordLists = words.search(std::span<const std::string>(parts), depth, 0);
        std::unordered_map<std::uint32_t, std::uint32_t> rowOf;
        mentionCandidates_.resize(parts.size());
        for (std::size_t m = 0; m < parts.size(); ++m) {
            const std::vector<retrieval::Candidate> lists[] = {charLists[m], wordLists[m]};
            std::unordered_set<std::uint32_t> seen;
            for (const auto& candidate : retrieval::mergeCandidates(lists, depth))
                for (const auto entity : data_.entryEntities[candidate.entry])
                    if (mentionCandidates_[m].size() < k && seen.insert(entity).second) {
                        auto [it, added] =
                            rowOf.try_emplace(entity, static_cast<std::uint32_t>(candidateEntities_.size()));
                        if (added) candidateEntities_.push_back(entity);
                        mentionCandidates_[m].push_back(it->second);
                    }
        }
        if (candidateEntities_.empty()) throw Error("training: the first stage found no candidate");
    }

    // Among the candidate entities of the cluster's mentions (not gold), the kOnlineNegatives
    // nearest to the prototype by the refreshed entity vectors, nearest first (ties to the first
    // seen). With no other candidate, those of the whole candidate table.
    std::vector<std::uint32_t> nearestNegatives(std::span<const std::size_t> mentions, std::uint32_t gold,
                                                const float* prototype) const {
        const auto distance = [&](std::uint32_t row) {
            const float* v = entityVectors_.data() + std::size_t(row) * dimension_;
            float sum = 0.0f;
            for (std::size_t d = 0; d < dimension_; ++d) sum += (v[d] - prototype[d]) * (v[d] - prototype[d]);
            return sum;
        };
        auto entities = shortlistNegatives(
            mentions, mentionCandidates_, [this](std::uint32_t row) { return candidateEntities_[row]; },
            static_cast<std::uint32_t>(candidateEntities_.size()), gold, distance, kOnlineNegatives);
        if (entities.empty())
            throw Error("training: no negative entity for the prototype loss (the KB has one entity)");
        return entities;
    }

    const TrainingPreset& preset_;
    const TrainingData& data_;
    std::vector<MentionGroup> groups_;
    std::vector<std::uint32_t> candidateEntities_;               // entities met in the first stage
    std::vector<std::vector<std::uint32_t>> mentionCandidates_;  // rows of candidateEntities_
    std::vector<float> entityVectors_;                           // [candidateEntities_ x dimension]
    std::size_t dimension_ = 0;
    torch::Tensor radius_;
};

}  // namespace

std::unique_ptr<Objective> makePrototypeObjective(const TrainingPreset& preset, const TrainingData& data,
                                                  const kb::KnowledgeBase&) {
    return std::make_unique<PrototypeObjective>(preset, data);
}

}  // namespace linkscope::train
