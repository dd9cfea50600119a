#include "curation/feedback_loop.h"

#include <algorithm>

#include "retrieval/knn_datastore.h"
#include "util/error.h"
#include "util/heap_bytes.h"

namespace linkscope::curation {

std::string_view decisionKindName(DecisionKind kind) noexcept {
    switch (kind) {
        case DecisionKind::Accept:
            return "accept";
        case DecisionKind::Correct:
            return "correct";
        case DecisionKind::Reject:
            return "reject";
    }
    return "accept";
}

FeedbackLoop::FeedbackLoop(const AugmentedLinker& linker, retrieval::KnnDatastore& datastore,
                           std::vector<LinkTarget> targets, std::size_t floatVectorBudget)
    : linker_(&linker),
      datastore_(&datastore),
      targets_(std::move(targets)),
      vectors_(targets_.size(), floatVectorBudget),
      models_(targets_.size()) {
    for (std::size_t t = 0; t < targets_.size(); ++t) byText_[targets_[t].text].push_back(t);
}

void FeedbackLoop::checkTarget(std::size_t target) const {
    if (target >= targets_.size())
        throw Error("curation: mention " + std::to_string(target) + " of " + std::to_string(targets_.size()));
}

void FeedbackLoop::prepare(std::span<const std::size_t> targets) {
    std::vector<std::size_t> missing;
    for (const std::size_t t : targets) {
        checkTarget(t);
        if (!vectors_.has(t) && std::find(missing.begin(), missing.end(), t) == missing.end()) missing.push_back(t);
    }
    if (missing.empty()) return;
    std::vector<std::string> inputs;
    inputs.reserve(missing.size());
    for (const std::size_t t : missing) inputs.push_back(targets_[t].input);
    const auto vectors = linker_->encode(inputs);
    // The model lists from the float vectors, whatever precision the vectors are kept in.
    auto models = linker_->modelLists(inputs, vectors);
    const std::size_t dimension = vectors.size() / missing.size();
    for (std::size_t i = 0; i < missing.size(); ++i) {
        vectors_.set(missing[i], std::span<const float>(vectors).subspan(i * dimension, dimension));
        models[i].shrink_to_fit();
        models_[missing[i]] = std::move(models[i]);
    }
}

FeedbackLoop::Batch FeedbackLoop::batchOf(std::span<const std::size_t> targets) {
    prepare(targets);
    Batch batch;
    for (const std::size_t t : targets) {
        batch.inputs.push_back(targets_[t].input);
        const std::vector<float> row = vectors_.get(t);
        batch.vectors.insert(batch.vectors.end(), row.begin(), row.end());
        batch.models.push_back(models_[t]);
    }
    return batch;
}

std::vector<std::vector<RankedEntity>> FeedbackLoop::predict(
    std::span<const std::size_t> targets, std::size_t k,
    std::vector<std::vector<retrieval::DatastoreNeighbor>>* neighbors) {
    const Batch batch = batchOf(targets);
    return linker_->combine(batch.inputs, batch.vectors, batch.models, k, neighbors);
}

std::vector<std::vector<RankedEntity>> FeedbackLoop::predictWith(
    std::span<const std::size_t> targets, std::size_t k,
    std::span<const std::span<const retrieval::DatastoreNeighbor>> neighbors) {
    const Batch batch = batchOf(targets);
    return linker_->combineWith(batch.inputs, batch.vectors, batch.models, neighbors, k);
}

std::vector<std::string> FeedbackLoop::topEntities(std::span<const std::size_t> targets) {
    std::vector<std::string> tops;
    if (targets.empty()) return tops;
    for (const auto& ranked : predict(targets, 1))
        tops.push_back(ranked.empty() ? std::string() : linker_->entityId(ranked.front().entity));
    return tops;
}

DecisionEffect FeedbackLoop::record(std::size_t target, std::string_view entity, DecisionKind kind,
                                    bool listSameSurface) {
    checkTarget(target);
    if (!linker_->findEntity(entity))
        throw Error("curation: the entity " + std::string(entity) + " is not in the linker's dictionary");
    DecisionEffect effect;
    const auto others = listSameSurface ? sameSurface(target) : std::vector<std::size_t>{};
    const auto before = topEntities(others);
    if (kind != DecisionKind::Reject) {
        prepare(std::span<const std::size_t>(&target, 1));
        const auto origin =
            kind == DecisionKind::Accept ? retrieval::KeyOrigin::Accepted : retrieval::KeyOrigin::Corrected;
        effect.key = datastore_->add(vectors_.get(target), entity, origin, targets_[target].text);
    }
    const auto after = topEntities(others);
    for (std::size_t i = 0; i < others.size(); ++i) effect.sameSurface.push_back({others[i], before[i], after[i]});
    return effect;
}

std::vector<float> FeedbackLoop::vector(std::size_t target) const {
    checkTarget(target);
    return vectors_.get(target);
}

std::size_t FeedbackLoop::memoryBytes() const noexcept {
    std::size_t bytes =
        vectors_.memoryBytes() + models_.capacity() * sizeof(ModelList) + targets_.capacity() * sizeof(LinkTarget);
    for (const ModelList& list : models_) bytes += list.capacity() * sizeof(train::LinkedCandidate);
    for (const LinkTarget& target : targets_)
        bytes += util::heapBytes(target.document) + util::heapBytes(target.text) + util::heapBytes(target.input);
    // byText_: a node per distinct text (its copy of the text, the list, the hash and the link).
    bytes += byText_.bucket_count() * sizeof(void*);
    for (const auto& [text, list] : byText_)
        bytes += sizeof(std::string) + sizeof(list) + 2 * sizeof(void*) + util::heapBytes(text) +
                 list.capacity() * sizeof(std::size_t);
    return bytes;
}

bool FeedbackLoop::undo(std::uint64_t key) { return datastore_->remove(key); }

std::vector<std::size_t> FeedbackLoop::sameSurface(std::size_t target) const {
    checkTarget(target);
    std::vector<std::size_t> others;
    for (const std::size_t t : byText_.at(targets_[target].text))
        if (t != target) others.push_back(t);
    return others;
}

}  // namespace linkscope::curation
