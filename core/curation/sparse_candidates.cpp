#include "curation/sparse_candidates.h"

#include <algorithm>
#include <mutex>
#include <unordered_set>

#include "eval/dictionary.h"
#include "kb/knowledge_base.h"
#include "retrieval/sparse_index.h"
#include "retrieval/tfidf_settings.h"
#include "text/normalizer.h"

namespace linkscope::curation {

struct SparseCandidates::State {
    retrieval::NameDictionary dictionary;
    retrieval::SparseIndex index;
    std::shared_ptr<const text::Normalizer> normalizer;
    // Searchers not in use. A searcher's scratch holds a score per name (large for a UMLS-size
    // dictionary's 3-gram stage); making one per call put that allocation and its page faults on
    // every candidate list the GUI thread asks for (see benchmarks/ui_stall, at the ranker's
    // arrival). So searchers are kept and reused, and the first is made by the worker that
    // builds the ranker.
    std::mutex searchersMutex;
    std::vector<std::unique_ptr<retrieval::SparseSearcher>> idleSearchers;

    // A searcher for one call, given back when the lease ends (one per concurrent caller).
    struct Lease {
        State* state;
        std::unique_ptr<retrieval::SparseSearcher> searcher;
        explicit Lease(State& owner) : state(&owner) {
            {
                const std::lock_guard lock(owner.searchersMutex);
                if (!owner.idleSearchers.empty()) {
                    searcher = std::move(owner.idleSearchers.back());
                    owner.idleSearchers.pop_back();
                }
            }
            if (!searcher) searcher = std::make_unique<retrieval::SparseSearcher>(owner.index);
        }
        ~Lease() {
            const std::lock_guard lock(state->searchersMutex);
            state->idleSearchers.push_back(std::move(searcher));
        }
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
    };
};

SparseCandidates::SparseCandidates(const kb::KnowledgeBase& kb, bool homonymExpansion, const ProgressSink& progress)
    : state_(std::make_unique<State>()) {
    progress("Building the name dictionary", 0.0);
    eval::DictionaryOptions options;
    options.homonymExpansion = homonymExpansion;
    options.normalizer = eval::bioSynDictionaryNormalizer();
    state_->normalizer = options.normalizer;
    eval::EvalDictionaryBuilder builder(options);
    builder.addKnowledgeBase(kb);
    state_->dictionary = builder.build().entries;
    progress.checkCancelled();
    progress("Indexing names (TF-IDF)", 0.4);
    state_->index = retrieval::SparseIndex::build(state_->dictionary, retrieval::TfidfSettings::bioSyn());
    progress.checkCancelled();
    state_->idleSearchers.push_back(std::make_unique<retrieval::SparseSearcher>(state_->index));
    progress("Names indexed", 1.0);
}

SparseCandidates::SparseCandidates(SparseCandidates&&) noexcept = default;
SparseCandidates& SparseCandidates::operator=(SparseCandidates&&) noexcept = default;
SparseCandidates::~SparseCandidates() = default;

namespace {

// Entries, not entities, are ranked: a homonym entry stands for several entities, and one entity
// has many names. The search goes deeper than k so that k distinct entities usually remain.
std::size_t entryDepth(std::size_t k) noexcept { return k * 4 + 16; }

std::vector<CandidateRow> rowsOf(const retrieval::NameDictionary& dictionary,
                                 std::span<const retrieval::Candidate> entries, std::size_t k) {
    std::vector<CandidateRow> rows;
    std::unordered_set<std::string_view> listed;
    for (const retrieval::Candidate& candidate : entries) {
        const retrieval::DictionaryEntry& entry = dictionary[candidate.entry];
        for (const std::string& id : entry.ids) {
            if (!listed.insert(id).second) continue;
            CandidateRow row;
            row.entity = id;
            row.matchedName = entry.name;
            row.score = candidate.score;
            row.sparse = candidate.score;
            row.sharedName = entry.ids.size() > 1;
            rows.push_back(std::move(row));
            if (rows.size() == k) return rows;
        }
    }
    return rows;
}

}  // namespace

std::vector<CandidateRow> SparseCandidates::rank(std::string_view mention, std::size_t k) const {
    if (k == 0) return {};
    const std::string query = state_->normalizer->normalize(mention);
    if (query.empty()) return {};
    const State::Lease lease(*state_);
    std::vector<retrieval::Candidate> found;
    lease.searcher->search(query, entryDepth(k), found);
    return rowsOf(state_->dictionary, found, k);
}

std::vector<std::vector<CandidateRow>> SparseCandidates::rankAll(std::span<const std::string> mentions, std::size_t k,
                                                                 unsigned threads) const {
    std::vector<std::vector<CandidateRow>> rows(mentions.size());
    if (k == 0) return rows;
    std::vector<std::string> queries;
    queries.reserve(mentions.size());
    for (const std::string& mention : mentions) queries.push_back(state_->normalizer->normalize(mention));
    const auto found = state_->index.search(std::span<const std::string>(queries), entryDepth(k), threads);
    for (std::size_t i = 0; i < mentions.size(); ++i)
        if (!queries[i].empty()) rows[i] = rowsOf(state_->dictionary, found[i], k);
    return rows;
}

}  // namespace linkscope::curation
