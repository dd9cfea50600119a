#include "curation/model_candidates.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <span>
#include <unordered_set>

#include "corpus/corpus.h"
#include "corpus/id_list.h"
#include "curation/feedback_loop.h"
#include "curation/mention_pairs.h"
#include "curation/training_datastore.h"
#include "eval/dictionary.h"
#include "eval/queries.h"
#include "project/datastore_storage.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "retrieval/knn_datastore.h"
#include "retrieval/neighbour_lists.h"
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
std::map<std::pair<std::string, std::size_t>, std::string> normalizedMentions(
    const Corpus& corpus, const kb::KnowledgeBase& kb, const std::shared_ptr<const text::Normalizer>& normalizer) {
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

// The entity ids a decision's link names (none for a CUI-less "-1").
std::vector<std::string> linkedIds(std::string_view link) {
    std::vector<std::string> ids;
    for (const std::string_view id : splitIdList(link))
        if (!id.empty() && id != "-1") ids.emplace_back(id);
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
    std::vector<TopProposal> proposals;  // per target
    std::vector<float> kthSimilarity;    // per target: its k-th neighbour's cosine (-inf: fewer than k)
    // kNN mode: each target's nearest datastore keys (retrieval/neighbour_lists.h), kept exact
    // as decisions add keys and undos take them away, so ranking the mentions a decision or an
    // undo reached reads their lists and searches nothing: at MedMentions' size a search reads
    // every training key, and an undo reaching many mentions would search for long on the GUI
    // thread (benchmarks/model_linking).
    std::optional<retrieval::NeighbourLists> lists;
    std::vector<float> inverseNorms;  // per target: 1 / |vector|
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
            case LinkMode::Knn:
                return options.knn.k;
            case LinkMode::Sieve:
                return 1;
            case LinkMode::Model:
                return 0;
        }
        return 0;
    }
    // As the loop keeps it (half precision for a large project, feedback_loop.h).
    std::vector<float> vector(std::size_t target) const { return loop->vector(target); }

    bool keepsLists() const { return lists.has_value(); }
    // The k-th neighbour's cosine of a target, as last ranked or merged into.
    float kth(std::size_t target) const { return lists ? lists->kth(target) : kthSimilarity[target]; }
    // How far below a target's threshold reachedBy() looks when the lists are merged into: its
    // cosines (double, over the loop's vectors) and the datastore's (float, over normalized
    // copies) differ by rounding only, within the bound of util/inner_products.h for each.
    float mergeSlack() const {
        return static_cast<float>(2.0 * util::innerProductRoundingBound(linker->dimension())) + kTie;
    }
    std::vector<float> vectorsOf(std::span<const std::size_t> targets) const {
        std::vector<float> rows;
        rows.reserve(targets.size() * linker->dimension());
        for (const std::size_t t : targets) {
            const std::vector<float> row = vector(t);
            rows.insert(rows.end(), row.begin(), row.end());
        }
        return rows;
    }

    // The top `depth` entities of each target with the datastore as it is: in kNN mode a stale
    // list is searched and kept, and every target ranked from its list; otherwise a search each.
    // Sieve mode: `sieveNearest` (when given) as AugmentedLinker::combine fills it.
    std::vector<std::vector<RankedEntity>> rankTargets(
        std::span<const std::size_t> batch, std::size_t depth,
        std::vector<std::vector<retrieval::DatastoreNeighbor>>* sieveNearest = nullptr) {
        if (!keepsLists()) return loop->predict(batch, depth, sieveNearest);
        std::vector<std::size_t> stale;
        for (const std::size_t t : batch)
            if (lists->stale(t)) stale.push_back(t);
        if (!stale.empty()) {
            const auto found = datastore->search(vectorsOf(stale), lists->depth());
            for (std::size_t j = 0; j < stale.size(); ++j) lists->keep(stale[j], found[j]);
        }
        std::vector<std::span<const retrieval::DatastoreNeighbor>> nearest;
        for (const std::size_t t : batch) nearest.push_back(lists->nearest(t));
        return loop->predictWith(batch, depth, nearest);
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
            // In kNN mode the lists give the k-th cosine: a stale list costs one search per
            // batch, a held one none. The sieve gives each mention's nearest key when one of
            // its stages searched the keys; only the others (an exact match decided them all)
            // are searched here.
            std::vector<std::vector<retrieval::DatastoreNeighbor>> nearest;
            const bool sieveKth = k > 0 && !keepsLists();
            const auto ranked = rankTargets(batch, 2, sieveKth ? &nearest : nullptr);
            if (sieveKth) {
                nearest.resize(batch.size());
                std::vector<std::size_t> unsearched;  // positions in the batch
                if (datastore->size() > 0)
                    for (std::size_t i = 0; i < batch.size(); ++i)
                        if (nearest[i].empty()) unsearched.push_back(i);
                if (!unsearched.empty()) {
                    std::vector<std::size_t> searched;
                    for (const std::size_t i : unsearched) searched.push_back(batch[i]);
                    auto found = datastore->search(vectorsOf(searched), k);
                    for (std::size_t j = 0; j < unsearched.size(); ++j) nearest[unsearched[j]] = std::move(found[j]);
                }
                for (std::size_t i = 0; i < batch.size(); ++i)
                    kthSimilarity[batch[i]] =
                        nearest[i].size() < k ? -std::numeric_limits<float>::infinity() : nearest[i][k - 1].similarity;
            }
            for (std::size_t i = 0; i < batch.size(); ++i) {
                TopProposal proposal;
                if (!ranked[i].empty()) {
                    proposal.entity = augmented->entityId(ranked[i][0].entity);
                    proposal.score = ranked[i][0].score;
                    proposal.margin =
                        ranked[i].size() > 1 ? ranked[i][0].score - ranked[i][1].score : ranked[i][0].score;
                }
                proposals[batch[i]] = std::move(proposal);
            }
        }
    }

    // The targets whose k nearest keys a key with the vector of `source` enters (or left, for a
    // removed key: it was among them exactly when its cosine reached the k-th's). With
    // `intoLists`, those whose kept list it may enter (its floor, below the k-th), `slack`
    // widening the test by that much (kTie: float rounding).
    std::vector<std::size_t> reachedBy(std::size_t source, float slack = kTie, bool intoLists = false) const {
        std::vector<std::size_t> reached;
        if (neighbours() == 0) return reached;
        // The source's vector once, then one pass over the targets' vectors in place.
        const std::vector<float> x = vector(source);
        const double sourceScale = inverseNorms[source];
        for (std::size_t t = 0; t < keys.size(); ++t) {
            const auto cosine = static_cast<float>(loop->dot(x, t) * sourceScale * inverseNorms[t]);
            const float threshold = intoLists ? lists->floor(t) : kth(t);
            if (cosine >= threshold - slack) reached.push_back(t);
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
    // Room for a curator's keys now, on this worker: the first key added to a full datastore
    // would copy every training key on the GUI thread (hundreds of MB at MedMentions' size).
    s.datastore->reserve(s.trainingKeys + std::max<std::size_t>(4096, s.trainingKeys / 16));

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
                std::string input = train::fittedMentionInput(document, mention.start, mention.end, text,
                                                              preset.markers, preset.maxLength, counter);
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
        progress("Encoding the mentions",
                 static_cast<double>(from) / static_cast<double>(std::max<std::size_t>(count, 1)));
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
    // Twice k: an undo takes a decision's keys out of the lists that hold them, and a list
    // searched once outlives k such removals before it must be searched again.
    if (options.mode == LinkMode::Knn) s.lists.emplace(count, s.neighbours(), 2 * s.neighbours());
    s.refresh(all, &progress, "Ranking every mention");
    if (s.neighbours() > 0 && count <= kReachPairMentions) {
        std::vector<float> units(count * s.linker->dimension());
        for (std::size_t t = 0; t < count; ++t) {
            const auto row = s.vector(t);
            for (std::size_t i = 0; i < row.size(); ++i) units[t * row.size() + i] = row[i] * s.inverseNorms[t];
        }
        std::vector<float> thresholds(count);
        for (std::size_t t = 0; t < count; ++t) thresholds[t] = s.kth(t);
        s.reachPairs = pairsAboveThresholds(units, s.linker->dimension(), thresholds, kTie, &progress);
    }
    // One pass over every mention's vector, as a decision's reach makes, here on the worker: at
    // MedMentions' size the first such pass after building is several times slower than the ones
    // after it (benchmarks/model_linking; the cause is not known), and the first decision would
    // pay it on the GUI thread.
    if (s.neighbours() > 0 && count > 0) (void)s.reachedBy(0);
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
        case LinkMode::Knn:
            text += ", kNN interpolation over " + std::to_string(datastoreKeys()) + " keys";
            break;
        case LinkMode::Sieve:
            text += ", sieve " + retrieval::sieveName(s.augmented->options().sieve);
            break;
        case LinkMode::Model:
            text += ", the model alone";
            break;
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
            case LinkMode::Sieve:
                row.sieveStage = entity.sieveStage;
                break;
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
        case LinkMode::Knn:
            return proposal.score < 0.5 || proposal.margin < 0.1;
        case LinkMode::Sieve:
            return proposal.score < state_->augmented->options().sieve.threshold;
        case LinkMode::Model:
            return proposal.margin < 0.01 * std::abs(proposal.score);
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
    const DecisionKind kind =
        decision.kind == project::DecisionKind::Accept ? DecisionKind::Accept : DecisionKind::Correct;
    State::Fed fed{t, {}};
    for (const std::string& id : linkedIds(decision.newLink))
        if (s.augmented->findEntity(id))
            if (const auto key = s.loop->record(t, id, kind, /*listSameSurface=*/false).key) fed.keys.push_back(*key);
    if (fed.keys.empty()) return {};
    const std::vector<std::uint64_t> added = fed.keys;
    s.fed.emplace(decision.id, std::move(fed));
    // While building, nothing is ranked yet: the first ranking reads the keys.
    if (s.proposals.empty()) return {};
    if (!s.keepsLists()) return s.keysOf(s.reachedBy(t));
    // The keys share the mention's vector: one pass finds the lists they may enter, a merge
    // per key and list says whose k nearest changed.
    const std::vector<std::size_t> candidates = s.reachedBy(t, s.mergeSlack(), /*intoLists=*/true);
    const std::vector<float> queries = s.vectorsOf(candidates);
    std::vector<std::uint8_t> changed(candidates.size(), 0);
    for (const std::uint64_t key : added) {
        const auto entries = s.datastore->asNeighbors(queries, key);
        for (std::size_t i = 0; i < candidates.size(); ++i)
            if (s.lists->merge(candidates[i], entries[i])) changed[i] = 1;
    }
    std::vector<std::size_t> reached;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        if (changed[i]) reached.push_back(candidates[i]);
    return s.keysOf(reached);
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
    // With lists, the k-th cosines decide too, with room for rounding: the exact merge follows.
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
            // Each list's k nearest with the key merged into a copy; the ones it does not change
            // keep their ranking and are left out, the stale ones are searched.
            const auto entries = s.datastore->asNeighbors(s.vectorsOf(reached), key);
            std::vector<std::size_t> kept, searched;
            std::vector<std::vector<retrieval::DatastoreNeighbor>> lists;
            for (std::size_t i = 0; i < reached.size(); ++i) {
                const std::size_t u = reached[i];
                if (s.lists->stale(u)) {
                    searched.push_back(u);
                } else if (auto nearest = s.lists->withKey(u, entries[i])) {
                    kept.push_back(u);
                    lists.push_back(std::move(*nearest));
                }
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
            if (!done[u] && cosine >= s.kth(u) - kTie) ++count;
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
                        (s.lists ? s.lists->memoryBytes() : 0);
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
    // Found before the keys go: the mentions that had them among their k nearest (in kNN mode
    // the lists that held them, taken out of them after).
    const std::vector<std::size_t> reached =
        s.keepsLists() ? std::vector<std::size_t>{} : s.reachedBy(fed->second.target);
    for (const std::uint64_t key : fed->second.keys) s.loop->undo(key);
    const std::vector<std::size_t> changed = s.keepsLists() ? s.lists->remove(fed->second.keys) : reached;
    s.fed.erase(fed);
    return s.keysOf(changed);
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
