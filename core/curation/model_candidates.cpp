#include "curation/model_candidates.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <span>
#include <unordered_set>

#include "corpus/corpus.h"
#include "curation/feedback_loop.h"
#include "curation/mention_pairs.h"
#include "curation/training_datastore.h"
#include "eval/dictionary.h"
#include "eval/queries.h"
#include "project/datastore_storage.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "retrieval/knn_datastore.h"
#include "text/normalizer.h"
#include "train/method_inputs.h"
#include "train/method_linker.h"
#include "train/run_model.h"
#include "util/error.h"
#include "util/heap_bytes.h"
#include "util/inner_products.h"

namespace linkscope::curation {
namespace {

constexpr std::size_t kBatch = 256;  // mentions per encoding / ranking call: progress and cancel between
constexpr float kTie = 1e-6f;        // cosines this close count as equal (float rounding)

// The mentions of one split as queries: whole (a composite is one target), gold ids kept even
// when the KB lacks them, abbreviations expanded and normalized as the evaluation does.
std::map<std::pair<std::string, std::size_t>, std::string> normalizedMentions(const Corpus& corpus, const kb::KnowledgeBase& kb,
                                                                              const std::shared_ptr<const text::Normalizer>& normalizer) {
    eval::QueryOptions options;
    options.splitComposites = false;
    options.dropUnknownIds = false;
    options.normalizer = normalizer;
    std::map<std::pair<std::string, std::size_t>, std::string> texts;  // (pmid, start) -> text
    for (eval::EvalQuery& query : eval::buildQueries(corpus, kb, options).queries) {
        std::string text;
        for (const std::string& part : query.parts) text += (text.empty() ? "" : " ") + part;
        texts[{query.document, query.start}] = std::move(text);
    }
    return texts;
}

std::vector<std::string> splitIds(const std::string& link) {
    std::vector<std::string> ids;
    std::size_t start = 0;
    while (start <= link.size()) {
        const std::size_t bar = link.find('|', start);
        std::string id = link.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
        if (!id.empty() && id != "-1") ids.push_back(std::move(id));
        if (bar == std::string::npos) break;
        start = bar + 1;
    }
    return ids;
}

}  // namespace

struct ModelCandidates::State {
    std::shared_ptr<const LoadedProject> project;
    ModelCandidatesOptions options;
    std::optional<train::RunModel> model;
    retrieval::NameDictionary dictionary;
    std::optional<train::MethodLinker> linker;
    std::optional<retrieval::KnnDatastore> datastore;
    std::size_t trainingKeys = 0;
    std::optional<AugmentedLinker> augmented;
    std::optional<FeedbackLoop> loop;
    std::vector<project::MentionKey> keys;  // target index -> mention
    std::map<project::MentionKey, std::size_t> targetOf;
    std::vector<TopProposal> proposals;     // per target
    std::vector<float> kthSimilarity;       // per target: its k-th neighbour's cosine (-inf: fewer than k)
    // kNN mode: each target's k nearest datastore keys, as search() would give them now. A key
    // added is merged into the lists it enters (mergeNeighbor, with the similarity search()
    // computes), so ranking the reached mentions again after a decision reads their lists and
    // searches nothing: at MedMentions' size a search reads 210,000 keys, and a decision
    // reaching a few hundred mentions took seconds of the GUI thread. A key removed (undo)
    // makes the lists that held it stale: those mentions are searched when ranked again.
    std::vector<retrieval::DatastoreNeighbor> nearest;  // target t's list at [t * k, t * k + nearestCount[t])
    std::vector<std::uint32_t> nearestCount;
    std::vector<std::uint8_t> nearestStale;  // 1: the list is not the datastore's k nearest; search
    std::vector<float> inverseNorms;        // per target: 1 / |vector|
    struct Fed {
        std::size_t target = 0;
        std::vector<std::uint64_t> keys;
    };
    std::map<std::int64_t, Fed> fed;  // decision id -> its keys
    // Per target, the other targets a key with its vector reaches, found once after the first
    // ranking (mention_pairs.h); empty when there are too many mentions or no datastore.
    std::vector<std::vector<std::pair<std::uint32_t, float>>> reachPairs;

    std::size_t neighbours() const {
        switch (options.mode) {
        case LinkMode::Knn: return options.knn.k;
        case LinkMode::Sieve: return 1;
        case LinkMode::Model: return 0;
        }
        return 0;
    }
    // As the loop keeps it (half precision for a large project, feedback_loop.h).
    std::vector<float> vector(std::size_t target) const { return loop->vector(target); }

    bool keepsLists() const { return options.mode == LinkMode::Knn; }
    std::span<retrieval::DatastoreNeighbor> listOf(std::size_t target) {
        return std::span(nearest).subspan(target * neighbours(), neighbours());
    }
    std::span<const retrieval::DatastoreNeighbor> heldList(std::size_t target) const {
        return std::span(nearest).subspan(target * neighbours(), nearestCount[target]);
    }
    void keepList(std::size_t target, std::span<const retrieval::DatastoreNeighbor> found) {
        const auto list = listOf(target);
        const std::size_t count = std::min(found.size(), list.size());
        std::copy_n(found.begin(), count, list.begin());
        nearestCount[target] = static_cast<std::uint32_t>(count);
        nearestStale[target] = 0;
        kthSimilarity[target] = kthOf(target);
    }
    float kthOf(std::size_t target) const {
        const std::size_t k = neighbours();
        return nearestCount[target] < k ? -std::numeric_limits<float>::infinity() : nearest[target * k + k - 1].similarity;
    }
    // How far below a target's k-th cosine reachedBy() looks when the lists are merged into: its
    // cosines (double, over the loop's vectors) and the datastore's (float, over normalized
    // copies) differ by rounding only, within the bound of util/inner_products.h for each.
    float mergeSlack() const {
        return static_cast<float>(2.0 * util::innerProductRoundingBound(linker->dimension())) + kTie;
    }

    // The top `depth` entities of each target with the datastore as it is: in kNN mode a target
    // with a list reads it, a stale one is searched and its list kept; otherwise a search each.
    std::vector<std::vector<RankedEntity>> rankTargets(std::span<const std::size_t> batch, std::size_t depth) {
        if (!keepsLists()) return loop->predict(batch, depth);
        std::vector<std::size_t> searched, held;  // positions in batch
        for (std::size_t i = 0; i < batch.size(); ++i) (nearestStale[batch[i]] ? searched : held).push_back(i);
        std::vector<std::vector<RankedEntity>> ranked(batch.size());
        if (!searched.empty()) {
            std::vector<std::size_t> targets;
            for (const std::size_t i : searched) targets.push_back(batch[i]);
            std::vector<std::vector<retrieval::DatastoreNeighbor>> found;
            auto result = loop->predict(targets, depth, &found);
            for (std::size_t j = 0; j < targets.size(); ++j) {
                keepList(targets[j], found[j]);
                ranked[searched[j]] = std::move(result[j]);
            }
        }
        if (!held.empty()) {
            std::vector<std::size_t> targets;
            std::vector<std::span<const retrieval::DatastoreNeighbor>> lists;
            for (const std::size_t i : held) {
                targets.push_back(batch[i]);
                lists.push_back(heldList(batch[i]));
            }
            auto result = loop->predictWith(targets, depth, lists);
            for (std::size_t j = 0; j < targets.size(); ++j) ranked[held[j]] = std::move(result[j]);
        }
        return ranked;
    }

    // Merges a key just added into the held lists of `targets` it enters; returns the targets
    // whose k nearest changed, and the stale ones (searched when ranked again), in target order.
    std::vector<std::size_t> mergeKey(std::span<const std::size_t> targets, std::uint64_t key) {
        std::vector<float> queries;
        queries.reserve(targets.size() * linker->dimension());
        for (const std::size_t t : targets) {
            const std::vector<float> row = vector(t);
            queries.insert(queries.end(), row.begin(), row.end());
        }
        const auto entries = datastore->asNeighbors(queries, key);
        std::vector<std::size_t> changed;
        for (std::size_t i = 0; i < targets.size(); ++i) {
            const std::size_t t = targets[i];
            if (nearestStale[t]) {
                changed.push_back(t);
                continue;
            }
            std::size_t count = nearestCount[t];
            if (!retrieval::mergeNeighbor(listOf(t), count, entries[i])) continue;
            nearestCount[t] = static_cast<std::uint32_t>(count);
            kthSimilarity[t] = kthOf(t);
            changed.push_back(t);
        }
        return changed;
    }

    // Refreshes the k-th neighbour cosine and the proposal of the targets given (ranked again).
    void refresh(std::span<const std::size_t> targets, const ProgressSink* progress, std::string_view stage) {
        const std::size_t k = neighbours();
        for (std::size_t from = 0; from < targets.size(); from += kBatch) {
            if (progress) {
                progress->checkCancelled();
                (*progress)(stage, static_cast<double>(from) / static_cast<double>(targets.size()));
            }
            const auto batch = targets.subspan(from, std::min(kBatch, targets.size() - from));
            // In kNN mode the ranking keeps each target's k nearest (rankTargets), which give
            // the k-th cosine: a stale list costs one search per batch, a held one none.
            const auto ranked = rankTargets(batch, 2);
            if (k > 0 && !keepsLists()) {
                // The sieve reads its nearest key inside its stages: one more search here.
                std::vector<float> queries;
                for (const std::size_t t : batch) {
                    const std::vector<float> row = vector(t);
                    queries.insert(queries.end(), row.begin(), row.end());
                }
                const auto found = datastore->search(queries, k);
                for (std::size_t i = 0; i < batch.size(); ++i)
                    kthSimilarity[batch[i]] =
                        found[i].size() < k ? -std::numeric_limits<float>::infinity() : found[i].back().similarity;
            }
            for (std::size_t i = 0; i < batch.size(); ++i) {
                TopProposal proposal;
                if (!ranked[i].empty()) {
                    proposal.entity = augmented->entityId(ranked[i][0].entity);
                    proposal.score = ranked[i][0].score;
                    proposal.margin = ranked[i].size() > 1 ? ranked[i][0].score - ranked[i][1].score : ranked[i][0].score;
                }
                proposals[batch[i]] = std::move(proposal);
            }
        }
    }

    // The targets whose k nearest keys a key with the vector of `source` enters (or left, for a
    // removed key: it was among them exactly when its cosine reached the k-th's).
    // `slack` widens the test by that much below the k-th cosine (kTie: float rounding).
    std::vector<std::size_t> reachedBy(std::size_t source, float slack = kTie) const {
        std::vector<std::size_t> reached;
        if (neighbours() == 0) return reached;
        // The source's vector once, then one pass over the targets' vectors in place.
        const std::vector<float> x = vector(source);
        const double sourceScale = inverseNorms[source];
        for (std::size_t t = 0; t < keys.size(); ++t) {
            const auto cosine = static_cast<float>(loop->dot(x, t) * sourceScale * inverseNorms[t]);
            if (cosine >= kthSimilarity[t] - slack) reached.push_back(t);
        }
        return reached;
    }

    std::vector<project::MentionKey> keysOf(const std::vector<std::size_t>& targets) const {
        std::vector<project::MentionKey> found;
        found.reserve(targets.size());
        for (const std::size_t t : targets) found.push_back(keys[t]);
        return found;
    }
};

ModelCandidates::ModelCandidates(std::shared_ptr<const LoadedProject> project, const ModelCandidatesOptions& options,
                                 const std::vector<project::Decision>& decisions, const ProgressSink& progress)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.project = std::move(project);
    s.options = options;
    const LoadedProject& loaded = *s.project;
    progress("Loading the model", 0.0);
    encoder::EncoderOptions encoderOptions;
    if (options.cpuOnly) encoderOptions.device = encoder::DevicePreference::Cpu;
    s.model.emplace(train::loadRunModel(options.run, encoderOptions));
    const train::TrainingPreset& preset = s.model->preset;
    const auto counter = train::tokenCounterOf(s.model->encoder.tokenizer());
    const auto normalizer = eval::bioSynQueryNormalizer();

    // BioSyn's dictionary: the KB's names, then the training mentions (eval's preprocessing).
    const SplitCorpus* train = nullptr;
    for (const SplitCorpus& split : loaded.splits)
        if (split.split == "train") train = &split;
    eval::DictionaryOptions dictionaryOptions;
    dictionaryOptions.homonymExpansion = preset.homonymExpansion;
    eval::EvalDictionaryBuilder builder(dictionaryOptions);
    builder.addKnowledgeBase(*loaded.kb);
    const std::size_t kbEntries = builder.size();
    eval::QueryOptions trainOptions;
    trainOptions.normalizer = normalizer;
    const std::vector<eval::EvalQuery> trainQueries =
        train ? eval::buildQueries(train->corpus, *loaded.kb, trainOptions).queries : std::vector<eval::EvalQuery>{};
    builder.addMentions(trainQueries);
    s.dictionary = builder.build().entries;

    train::LinkerOptions linkerOptions;
    linkerOptions.sparseWeight = s.model->info.sparseWeight;
    s.linker.emplace(preset, s.model->encoder, s.dictionary, loaded.kb.get(), linkerOptions, &progress);

    // The training datastore: from the project file when this model made one there before.
    const std::string fingerprint = s.model->encoder.fingerprint();
    std::optional<project::ProjectStore> store;
    if (!options.projectFile.empty()) {
        store.emplace(project::ProjectStore::open(options.projectFile));
        s.datastore = project::loadDatastore(*store, project::trainingDatastoreName(fingerprint), fingerprint);
    }
    if (!s.datastore) {
        if (train) {
            const auto inputs = train::mentionInputs(preset, train->corpus, counter);
            s.datastore.emplace(buildTrainingDatastore(*s.linker, trainQueries, inputs, fingerprint, &progress));
        } else {
            s.datastore.emplace(s.linker->dimension(), fingerprint);
        }
        if (store) project::saveDatastore(*store, project::trainingDatastoreName(fingerprint), *s.datastore);
    }
    s.trainingKeys = s.datastore->size();

    AugmentedOptions augmentedOptions;
    augmentedOptions.mode = options.mode;
    augmentedOptions.knn = options.knn;
    augmentedOptions.sieve = options.sieve;
    augmentedOptions.sieve.threshold = options.sieveThreshold.value_or(preset.triplet.sieveThreshold);
    augmentedOptions.ontologyEntries = kbEntries;
    s.augmented.emplace(*s.linker, s.dictionary, &*s.datastore, augmentedOptions);

    // Every mention of every split is a target.
    std::vector<LinkTarget> targets;
    for (const SplitCorpus& split : loaded.splits) {
        const auto texts = normalizedMentions(split.corpus, *loaded.kb, normalizer);
        for (const Document& document : split.corpus.documents())
            for (const Mention& mention : document.mentions) {
                const auto found = texts.find({document.pmid(), mention.start});
                // A CUI-less mention is no query of the evaluation: normalized alone.
                std::string text = found != texts.end() ? found->second : normalizer->normalize(mention.text);
                if (text.empty()) text = mention.text;
                std::string input = train::fittedMentionInput(document, mention.start, mention.end, text, preset.markers,
                                                              preset.maxLength, counter);
                targets.push_back({document.pmid(), mention.start, mention.end, std::move(text), std::move(input)});
                s.keys.push_back({split.split, document.pmid(), mention.start, mention.end});
                s.targetOf.emplace(s.keys.back(), s.keys.size() - 1);
            }
    }
    s.loop.emplace(*s.augmented, *s.datastore, std::move(targets), options.floatVectorBudget);
    const std::size_t count = s.keys.size();
    std::vector<std::size_t> all(count);
    for (std::size_t t = 0; t < count; ++t) all[t] = t;
    for (std::size_t from = 0; from < count; from += kBatch) {
        progress.checkCancelled();
        progress("Encoding the mentions", static_cast<double>(from) / static_cast<double>(std::max<std::size_t>(count, 1)));
        s.loop->prepare(std::span<const std::size_t>(all).subspan(from, std::min(kBatch, count - from)));
    }
    s.inverseNorms.resize(count);
    for (std::size_t t = 0; t < count; ++t) {
        double norm = 0.0;
        for (const float v : s.vector(t)) norm += static_cast<double>(v) * v;
        s.inverseNorms[t] = norm > 0.0 ? static_cast<float>(1.0 / std::sqrt(norm)) : 0.0f;
    }
    // The decisions in effect become keys before anything is ranked.
    for (const project::Decision& decision : decisions) {
        progress.checkCancelled();
        const auto target = s.targetOf.find(decision.mention);
        if (target == s.targetOf.end()) continue;  // a mention the corpus no longer has
        feed(decision);
    }
    s.proposals.assign(count, {});
    s.kthSimilarity.assign(count, -std::numeric_limits<float>::infinity());
    if (s.keepsLists()) {
        s.nearest.assign(count * s.neighbours(), {});
        s.nearestCount.assign(count, 0);
        s.nearestStale.assign(count, 1);  // searched by the first ranking
    }
    s.refresh(all, &progress, "Ranking every mention");
    if (s.neighbours() > 0 && count <= kReachPairMentions) {
        std::vector<float> units(count * s.linker->dimension());
        for (std::size_t t = 0; t < count; ++t) {
            const auto row = s.vector(t);
            for (std::size_t i = 0; i < row.size(); ++i) units[t * row.size() + i] = row[i] * s.inverseNorms[t];
        }
        s.reachPairs = pairsAboveThresholds(units, s.linker->dimension(), s.kthSimilarity, kTie, &progress);
    }
    progress("Every mention ranked", 1.0);
}

ModelCandidates::~ModelCandidates() = default;

std::string ModelCandidates::runName() const { return state_->options.run.filename().string(); }

LinkMode ModelCandidates::mode() const noexcept { return state_->options.mode; }

std::size_t ModelCandidates::datastoreKeys() const noexcept { return state_->datastore->size(); }

std::size_t ModelCandidates::curatorKeys() const noexcept { return state_->datastore->size() - state_->trainingKeys; }

std::string ModelCandidates::description() const {
    const State& s = *state_;
    std::string text = std::string(train::methodName(s.model->preset.method)) + " (run " + runName() + ")";
    switch (s.options.mode) {
    case LinkMode::Knn: text += ", kNN interpolation over " + std::to_string(datastoreKeys()) + " keys"; break;
    case LinkMode::Sieve: text += ", sieve " + retrieval::sieveName(s.augmented->options().sieve); break;
    case LinkMode::Model: text += ", the model alone"; break;
    }
    return text;
}

bool ModelCandidates::knows(const project::MentionKey& mention) const { return state_->targetOf.contains(mention); }

std::vector<CandidateRow> ModelCandidates::rank(const project::MentionKey& mention, std::size_t k) {
    State& s = *state_;
    const auto target = s.targetOf.find(mention);
    if (target == s.targetOf.end()) return {};
    const std::size_t t = target->second;
    // Before the first ranking (a decision fed while building) the lists do not exist yet.
    const auto ranked = s.proposals.empty() ? s.loop->predict(std::span<const std::size_t>(&t, 1), k)
                                            : s.rankTargets(std::span<const std::size_t>(&t, 1), k);
    const bool sparse = s.model->preset.method == train::Method::BioSyn;
    std::vector<CandidateRow> rows;
    for (const RankedEntity& entity : ranked.front()) {
        CandidateRow row;
        row.entity = s.augmented->entityId(entity.entity);
        const retrieval::DictionaryEntry& entry = s.dictionary.at(entity.entry);
        row.matchedName = entry.name;
        row.sharedName = entry.ids.size() > 1;
        row.score = entity.score;
        switch (s.options.mode) {
        case LinkMode::Knn:
            row.modelProbability = entity.modelProbability;
            row.knnProbability = entity.knnProbability;
            [[fallthrough]];
        case LinkMode::Model:
            row.dense = entity.dense;
            if (sparse) row.sparse = entity.sparse;
            break;
        case LinkMode::Sieve: row.sieveStage = entity.sieveStage; break;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

const TopProposal* ModelCandidates::proposal(const project::MentionKey& mention) const {
    const auto target = state_->targetOf.find(mention);
    return target == state_->targetOf.end() ? nullptr : &state_->proposals[target->second];
}

bool ModelCandidates::lowConfidence(const TopProposal& proposal) const {
    if (proposal.entity.empty()) return true;
    switch (state_->options.mode) {
    case LinkMode::Knn: return proposal.score < 0.5 || proposal.margin < 0.1;
    case LinkMode::Sieve: return proposal.score < state_->augmented->options().sieve.threshold;
    case LinkMode::Model: return proposal.margin < 0.01 * std::abs(proposal.score);
    }
    return false;
}

std::vector<project::MentionKey> ModelCandidates::feed(const project::Decision& decision) {
    State& s = *state_;
    if (decision.kind != project::DecisionKind::Accept && decision.kind != project::DecisionKind::Correct) return {};
    if (s.fed.contains(decision.id)) return {};
    const auto target = s.targetOf.find(decision.mention);
    if (target == s.targetOf.end()) return {};
    const std::size_t t = target->second;
    const DecisionKind kind = decision.kind == project::DecisionKind::Accept ? DecisionKind::Accept : DecisionKind::Correct;
    State::Fed fed{t, {}};
    for (const std::string& id : splitIds(decision.newLink))
        if (s.augmented->findEntity(id))
            if (const auto key = s.loop->record(t, id, kind, /*listSameSurface=*/false).key) fed.keys.push_back(*key);
    if (fed.keys.empty()) return {};
    const std::vector<std::uint64_t> added = fed.keys;
    s.fed.emplace(decision.id, std::move(fed));
    // While building, nothing is ranked yet: the first ranking reads the keys.
    if (s.proposals.empty()) return {};
    if (!s.keepsLists()) return s.keysOf(s.reachedBy(t));
    // The keys share the mention's vector: one pass finds the lists they may enter, a merge
    // per key says which did.
    const std::vector<std::size_t> candidates = s.reachedBy(t, s.mergeSlack());
    std::vector<std::size_t> changed;
    for (const std::uint64_t key : added) {
        std::vector<std::size_t> entered = s.mergeKey(candidates, key);
        std::vector<std::size_t> both;
        std::set_union(changed.begin(), changed.end(), entered.begin(), entered.end(), std::back_inserter(both));
        changed = std::move(both);
    }
    return s.keysOf(changed);
}

std::vector<project::MentionKey> ModelCandidates::reachOf(const project::MentionKey& mention) const {
    const State& s = *state_;
    const auto target = s.targetOf.find(mention);
    if (target == s.targetOf.end() || s.proposals.empty()) return {};
    std::vector<std::size_t> reached = s.reachedBy(target->second);
    std::erase(reached, target->second);  // its own key: the mention is the one being decided
    return s.keysOf(reached);
}

std::vector<ModelCandidates::ProposalMove> ModelCandidates::wouldMove(const project::MentionKey& mention,
                                                                      const std::string& entity) {
    State& s = *state_;
    const auto target = s.targetOf.find(mention);
    if (target == s.targetOf.end() || s.proposals.empty() || s.neighbours() == 0 || !s.augmented->findEntity(entity))
        return {};
    const std::size_t t = target->second;
    std::vector<std::size_t> reached = s.reachedBy(t, s.keepsLists() ? s.mergeSlack() : kTie);
    std::erase(reached, t);
    if (reached.empty()) return {};
    // The key for a moment: the ranking reads the datastore as it is.
    const std::uint64_t key = s.datastore->add(s.vector(t), entity, retrieval::KeyOrigin::Corrected, "preview");
    std::vector<std::vector<RankedEntity>> ranked;
    try {
        if (!s.keepsLists()) {
            ranked = s.loop->predict(reached, 1);
        } else {
            // Copies of the held lists with the key merged in; the ones it does not enter keep
            // their ranking and are left out, the stale ones are searched.
            std::vector<float> queries;
            for (const std::size_t u : reached) {
                const std::vector<float> row = s.vector(u);
                queries.insert(queries.end(), row.begin(), row.end());
            }
            const auto entries = s.datastore->asNeighbors(queries, key);
            std::vector<std::size_t> kept, searched;
            std::vector<std::vector<retrieval::DatastoreNeighbor>> lists;
            for (std::size_t i = 0; i < reached.size(); ++i) {
                const std::size_t u = reached[i];
                if (s.nearestStale[u]) {
                    searched.push_back(u);
                    continue;
                }
                std::vector<retrieval::DatastoreNeighbor> list(s.neighbours());
                std::copy_n(s.heldList(u).begin(), s.nearestCount[u], list.begin());
                std::size_t count = s.nearestCount[u];
                if (!retrieval::mergeNeighbor(list, count, entries[i])) continue;
                list.resize(count);
                kept.push_back(u);
                lists.push_back(std::move(list));
            }
            const std::vector<std::span<const retrieval::DatastoreNeighbor>> spans(lists.begin(), lists.end());
            ranked = s.loop->predictWith(kept, 1, spans);
            auto more = s.loop->predict(searched, 1);
            reached = std::move(kept);
            reached.insert(reached.end(), searched.begin(), searched.end());
            ranked.insert(ranked.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
        }
    } catch (...) {
        s.datastore->remove(key);
        throw;
    }
    s.datastore->remove(key);
    std::vector<ProposalMove> moves;
    for (std::size_t i = 0; i < reached.size(); ++i) {
        const std::string after = ranked[i].empty() ? std::string() : s.augmented->entityId(ranked[i].front().entity);
        const std::string& before = s.proposals[reached[i]].entity;
        if (after != before) moves.push_back({s.keys[reached[i]], before, after});
    }
    return moves;
}

std::optional<std::map<project::MentionKey, std::size_t>> ModelCandidates::reachCounts(
    const std::function<bool(const project::MentionKey&)>& decided) const {
    const State& s = *state_;
    if (s.reachPairs.empty()) return std::nullopt;
    std::vector<std::uint8_t> done(s.keys.size());
    for (std::size_t t = 0; t < s.keys.size(); ++t) done[t] = decided(s.keys[t]) ? 1 : 0;
    std::map<project::MentionKey, std::size_t> counts;
    for (std::size_t t = 0; t < s.keys.size(); ++t) {
        std::size_t count = 0;
        for (const auto& [u, cosine] : s.reachPairs[t])
            if (!done[u] && cosine >= s.kthSimilarity[u] - kTie) ++count;
        counts.emplace_hint(counts.end(), s.keys[t], count);
    }
    return counts;
}

TextEmbedding ModelCandidates::textEmbedding(std::shared_ptr<const ModelCandidates> model) {
    return [model = std::move(model)](std::span<const std::string> texts) {
        const State& s = *model->state_;
        const auto normalizer = eval::bioSynQueryNormalizer();
        std::vector<std::string> inputs;
        inputs.reserve(texts.size());
        for (const std::string& text : texts) {
            std::string normalized = normalizer->normalize(text);
            inputs.push_back(train::nameInput(normalized.empty() ? text : normalized, s.model->preset.markers));
        }
        return s.linker->encodeMentions(inputs);
    };
}

std::size_t ModelCandidates::mentionMemoryBytes() const {
    const State& s = *state_;
    std::size_t bytes = s.loop->memoryBytes() + s.keys.capacity() * sizeof(project::MentionKey) +
                        s.proposals.capacity() * sizeof(TopProposal) + s.kthSimilarity.capacity() * sizeof(float) +
                        s.inverseNorms.capacity() * sizeof(float) + s.reachPairs.capacity() * sizeof(s.reachPairs[0]) +
                        s.nearest.capacity() * sizeof(retrieval::DatastoreNeighbor) +
                        s.nearestCount.capacity() * sizeof(std::uint32_t) + s.nearestStale.capacity();
    for (const project::MentionKey& key : s.keys) bytes += util::heapBytes(key.split) + util::heapBytes(key.document);
    for (const TopProposal& proposal : s.proposals) bytes += util::heapBytes(proposal.entity);
    for (const auto& pairs : s.reachPairs) bytes += pairs.capacity() * sizeof(pairs[0]);
    // targetOf: a red-black tree node per mention (its key, the index, three pointers and the colour).
    bytes += s.targetOf.size() * (sizeof(project::MentionKey) + sizeof(std::size_t) + 4 * sizeof(void*));
    return bytes;
}

bool ModelCandidates::halfPrecisionVectors() const { return state_->loop->halfPrecision(); }

std::vector<std::int64_t> ModelCandidates::fedDecisions() const {
    std::vector<std::int64_t> ids;
    for (const auto& [id, fed] : state_->fed) ids.push_back(id);
    return ids;
}

std::vector<project::MentionKey> ModelCandidates::unfeed(std::int64_t decisionId) {
    State& s = *state_;
    const auto fed = s.fed.find(decisionId);
    if (fed == s.fed.end()) return {};
    // Found before the keys go: the mentions that had them among their k nearest (in kNN mode,
    // the held lists that name one, which are searched again when ranked again).
    std::vector<std::size_t> reached;
    if (s.keepsLists()) {
        const auto& keys = fed->second.keys;
        for (std::size_t t = 0; t < s.keys.size(); ++t) {
            if (s.nearestStale[t]) continue;
            const auto list = s.heldList(t);
            if (std::any_of(list.begin(), list.end(), [&](const retrieval::DatastoreNeighbor& n) {
                    return std::find(keys.begin(), keys.end(), n.key) != keys.end();
                })) {
                s.nearestStale[t] = 1;
                reached.push_back(t);
            }
        }
    } else {
        reached = s.reachedBy(fed->second.target);
    }
    for (const std::uint64_t key : fed->second.keys) s.loop->undo(key);
    s.fed.erase(fed);
    return s.keysOf(reached);
}

ProposalChanges ModelCandidates::rerank(std::span<const project::MentionKey> mentions) {
    State& s = *state_;
    std::vector<std::size_t> targets;
    std::vector<std::string> before;
    for (const project::MentionKey& mention : mentions) {
        const auto target = s.targetOf.find(mention);
        if (target == s.targetOf.end()) continue;
        targets.push_back(target->second);
        before.push_back(s.proposals[target->second].entity);
    }
    s.refresh(targets, nullptr, {});
    ProposalChanges changes;
    for (std::size_t i = 0; i < targets.size(); ++i) {
        changes.reranked.push_back(s.keys[targets[i]]);
        if (s.proposals[targets[i]].entity != before[i]) changes.topChanged.push_back(s.keys[targets[i]]);
    }
    return changes;
}

}  // namespace linkscope::curation
