// SparseSearcher: the two ways of scoring a query (see sparse_index.h).
#include <algorithm>

#include "retrieval/sparse_index.h"
#include "retrieval/top_k.h"
#include "util/error.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace linkscope::retrieval {
namespace {

using detail::TopK;

// The inner loops of tiled search have AVX2 versions, on x86-64, picked at run time.
// Multiplication and addition stay separate operations (no fused multiply-add: -ffp-contract=off
// and no "fma" target), so every SIMD lane rounds as scalar code does.
constexpr unsigned kMaxFusedColumns = 6;

// scores[i] = (...((scores[i] + f[0] * c[0][i]) + f[1] * c[1][i]) ...) + f[M-1] * c[M-1][i]: M
// dense columns in one pass, in the order given, with scores[i] loaded and stored once.
template <unsigned M>
inline void addColumns(float* scores, const float* const* c, const float* f, std::uint32_t length) {
    for (std::uint32_t i = 0; i < length; ++i) {
        float sum = scores[i];
        for (unsigned m = 0; m < M; ++m) sum += f[m] * c[m][i];
        scores[i] = sum;
    }
}

// Calls add<M>(scores, c, f, length) for M = count (at most kMaxFusedColumns).
template <template <unsigned> class Add>
inline void addForCount(float* scores, const float* const* c, const float* f, unsigned count, std::uint32_t length) {
    switch (count) {
        case 1:
            Add<1>::run(scores, c, f, length);
            break;
        case 2:
            Add<2>::run(scores, c, f, length);
            break;
        case 3:
            Add<3>::run(scores, c, f, length);
            break;
        case 4:
            Add<4>::run(scores, c, f, length);
            break;
        case 5:
            Add<5>::run(scores, c, f, length);
            break;
        default:
            Add<6>::run(scores, c, f, length);
            break;
    }
}

template <unsigned M>
struct AddPortable {
    static void run(float* scores, const float* const* c, const float* f, std::uint32_t length) {
        addColumns<M>(scores, c, f, length);
    }
};

void addScaledColumnsPortable(float* scores, const float* const* c, const float* f, unsigned count,
                              std::uint32_t length) {
    addForCount<AddPortable>(scores, c, f, count, length);
}

#if defined(__x86_64__)
// The same sums eight names at a time: each lane multiplies, then adds, in the column order given,
// exactly as addColumns<M> does for one name (no fused multiply-add: the target has no "fma").
// The compiler does not vectorise addColumns itself, as the scores may alias the columns.
template <unsigned M>
struct AddAvx2 {
    __attribute__((target("avx2"))) static void run(float* scores, const float* const* c, const float* f,
                                                    std::uint32_t length) {
        __m256 factor[M];
        for (unsigned m = 0; m < M; ++m) factor[m] = _mm256_set1_ps(f[m]);
        std::uint32_t i = 0;
        for (; i + 8 <= length; i += 8) {
            __m256 sum = _mm256_loadu_ps(scores + i);
#pragma GCC unroll 6
            for (unsigned m = 0; m < M; ++m)
                sum = _mm256_add_ps(sum, _mm256_mul_ps(factor[m], _mm256_loadu_ps(c[m] + i)));
            _mm256_storeu_ps(scores + i, sum);
        }
        for (; i < length; ++i) {
            float sum = scores[i];
            for (unsigned m = 0; m < M; ++m) sum += f[m] * c[m][i];
            scores[i] = sum;
        }
    }
};

__attribute__((target("avx2"))) void addScaledColumnsAvx2(float* scores, const float* const* c, const float* f,
                                                          unsigned count, std::uint32_t length) {
    addForCount<AddAvx2>(scores, c, f, count, length);
}
#endif

// Offers every score of scores[0, length) above the k-th best so far (names begin, begin + 1,
// ... in ascending order, so an equal score loses to the lower name already kept), then zeroes
// them. Most tiles hold no such score, so the AVX2 version compares eight scores at a time.
void offerFrom(const float* scores, std::uint32_t from, std::uint32_t to, std::uint32_t begin, TopK& top,
               float& threshold) {
    for (std::uint32_t e = from; e < to; ++e)
        if (scores[e] > threshold) {
            top.offer(begin + e, scores[e]);
            threshold = top.threshold();
        }
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) void offerTileAvx2(float* scores, std::uint32_t length, std::uint32_t begin,
                                                   TopK& top) {
    float threshold = top.threshold();
    std::uint32_t j = 0;
    for (; j + 8 <= length; j += 8) {
        const __m256 above = _mm256_cmp_ps(_mm256_loadu_ps(scores + j), _mm256_set1_ps(threshold), _CMP_GT_OQ);
        if (_mm256_movemask_ps(above) != 0) offerFrom(scores, j, j + 8, begin, top, threshold);
    }
    offerFrom(scores, j, length, begin, top, threshold);
    std::fill(scores, scores + length, 0.0f);
}
#endif

void offerTilePortable(float* scores, std::uint32_t length, std::uint32_t begin, TopK& top) {
    float threshold = top.threshold();
    offerFrom(scores, 0, length, begin, top, threshold);
    std::fill(scores, scores + length, 0.0f);
}

}  // namespace

namespace {

// Both sorted by term: a merge, summing in ascending term order as the exact search does.
template <class Term>
float rowScoreOf(const SparseRowsView<Term>& rows, const SparseVector& query, std::uint32_t entry) noexcept {
    const auto terms = rows.rowTerms(entry);
    const auto weights = rows.rowWeights(entry);
    float score = 0.0f;
    std::size_t r = 0;
    for (const auto& term : query) {
        while (r < terms.size() && terms[r] < term.term) ++r;
        if (r == terms.size()) break;
        if (terms[r] == term.term) score += term.weight * weights[r];
    }
    return score;
}

}  // namespace

float SparseIndex::rowScore(const SparseVector& query, std::uint32_t entry) const noexcept {
    return std::visit([&](const auto& rows) { return rowScoreOf(rows, query, entry); }, rows_);
}

SparseSearcher::SparseSearcher(const SparseIndex& index)
    : index_(&index), analyzer_(index.settings()), scores_(index.approximate() ? 0 : index.size(), 0.0f) {
    if (index.approximate()) trigramScratch_.emplace(index.trigrams_);
}

std::vector<Candidate> SparseSearcher::search(std::string_view query, std::size_t k) {
    std::vector<Candidate> out;
    search(query, k, out);
    return out;
}

void SparseSearcher::search(std::string_view query, std::size_t k, std::vector<Candidate>& out) {
    if (index_->approximate()) return searchApproximate(query, k, out);
    index_->vectorizer().transform(query, analyzer_, query_);
    search(query_, k, out);
}

void SparseSearcher::searchApproximate(std::string_view text, std::size_t k, std::vector<Candidate>& out) {
    out.clear();
    k = std::min<std::size_t>(k, index_->size());
    index_->vectorizer().transform(text, analyzer_, query_);
    if (k == 0 || query_.empty()) return;
    index_->trigrams_.candidates(text, *trigramScratch_, picked_);
    TopK top(out, k);
    for (const std::uint32_t entry : picked_) {
        const float score = index_->rowScore(query_, entry);
        if (score > 0.0f) top.offer(entry, score);
    }
    top.finish();
}

void SparseSearcher::search(const SparseVector& query, std::size_t k, std::vector<Candidate>& out) {
    search(std::span<const SparseVector>(&query, 1), k, std::span<std::vector<Candidate>>(&out, 1));
}

void SparseSearcher::search(std::span<const SparseVector> queries, std::size_t k,
                            std::span<std::vector<Candidate>> out) {
    if (out.size() != queries.size()) throw Error("search: one result list per query is needed");
    if (index_->approximate())
        throw Error("search: an index of " + std::to_string(index_->size()) +
                    " names is searched approximately and needs the query text, not its vector");
    k = std::min<std::size_t>(k, index_->size());
    tiledQueries_.clear();
    tiledOut_.clear();
    const std::size_t vocabulary = index_->vectorizer().vocabularySize();
    for (std::size_t i = 0; i < queries.size(); ++i) {
        out[i].clear();
        for (std::size_t t = 0; t < queries[i].size(); ++t)
            if (queries[i][t].term >= vocabulary || (t > 0 && queries[i][t].term <= queries[i][t - 1].term))
                throw Error("search: a query vector's terms must be distinct vocabulary ids in ascending order");
        if (k == 0 || queries[i].empty()) continue;
        if (scoresEveryName(queries[i])) {
            tiledQueries_.push_back(&queries[i]);
            tiledOut_.push_back(&out[i]);
        } else {
            searchTouched(queries[i], k, out[i]);
        }
    }
    if (!tiledQueries_.empty()) searchTiled(tiledQueries_, k, tiledOut_);
}

bool SparseSearcher::scoresEveryName(const SparseVector& query) const noexcept {
    // Remembering touched entries pays while the query's postings cover a small part of the
    // names; beyond that, or when a dense column is involved, every name is scored.
    const auto& index = *index_;
    std::uint64_t postingCount = 0;
    for (const auto& term : query) {
        if (index.denseSlot_[term.term] != SparseIndex::kNotDense) return true;
        postingCount += index.postings_.offsets[term.term + 1] - index.postings_.offsets[term.term];
    }
    return postingCount >= index.size() / 4;
}

void SparseSearcher::searchTouched(const SparseVector& query, std::size_t k, std::vector<Candidate>& out) {
    const auto& postings = index_->postings_;
    const std::uint32_t* documents = postings.documents.data();
    const float* weights = postings.weights.data();
    float* scores = scores_.data();
    touched_.clear();
    for (const auto& term : query) {  // ascending term order: the ranking contract's sum
        const float q = term.weight;
        const std::uint64_t end = postings.offsets[term.term + 1];
        for (std::uint64_t p = postings.offsets[term.term]; p < end; ++p) {
            const std::uint32_t entry = documents[p];
            if (scores[entry] == 0.0f) touched_.push_back(entry);
            scores[entry] += q * weights[p];
        }
    }
    TopK top(out, k);
    for (const std::uint32_t entry : touched_) {
        // An entry appears twice only if a product underflowed to zero; the reset below makes
        // its second appearance score zero, so it is never returned twice.
        if (scores[entry] > 0.0f) top.offer(entry, scores[entry]);
        scores[entry] = 0.0f;
    }
    top.finish();
}

void SparseSearcher::searchTiled(std::span<const SparseVector* const> queries, std::size_t k,
                                 std::span<std::vector<Candidate>* const> out) {
    // Every name is scored, tile by tile (kTile names, 4 KiB of scores that stay in the L1
    // cache). For each tile the queries of the group take turns: a query visits its terms in
    // ascending order, adding runs of consecutive dense terms in one fused pass and scattering
    // the postings of the others, so every name's score is summed in the same order as in
    // searchTouched() and in a brute-force dot product. The group's queries read the same
    // slices of the dense columns one after the other: from memory once, then from the cache.
    constexpr std::uint32_t kTile = 1024;
    const auto& index = *index_;
    const auto& postings = index.postings_;
    const std::uint32_t* documents = postings.documents.data();
    const float* weights = postings.weights.data();
    const std::uint32_t names = index.size();
    const float* dense = index.dense_.data();

    std::vector<TopK> tops;
    tops.reserve(queries.size());
    std::vector<std::size_t> firstCursor;
    cursors_.clear();
    for (std::size_t g = 0; g < queries.size(); ++g) {
        tops.emplace_back(*out[g], k);
        firstCursor.push_back(cursors_.size());
        for (const auto& term : *queries[g]) cursors_.push_back(postings.offsets[term.term]);
    }
    float* tile = scores_.data();  // scores_[0, kTile) serves as the tile; it is zeroed after use
    const float* columns[kMaxFusedColumns];
    float factors[kMaxFusedColumns];
#if defined(__x86_64__)
    const bool avx2 = __builtin_cpu_supports("avx2");
#endif

    for (std::uint32_t begin = 0; begin < names; begin += kTile) {
        const std::uint32_t end = std::min(names, begin + kTile);
        const std::uint32_t length = end - begin;
        for (std::size_t g = 0; g < queries.size(); ++g) {
            const SparseVector& query = *queries[g];
            std::uint64_t* cursor = cursors_.data() + firstCursor[g];
            for (std::size_t i = 0; i < query.size();) {
                if (index.denseSlot_[query[i].term] != SparseIndex::kNotDense) {
                    unsigned fused = 0;
                    while (i < query.size() && fused < kMaxFusedColumns &&
                           index.denseSlot_[query[i].term] != SparseIndex::kNotDense) {
                        columns[fused] = dense + std::size_t{index.denseSlot_[query[i].term]} * names + begin;
                        factors[fused] = query[i].weight;
                        ++fused;
                        ++i;
                    }
#if defined(__x86_64__)
                    if (avx2)
                        addScaledColumnsAvx2(tile, columns, factors, fused, length);
                    else
                        addScaledColumnsPortable(tile, columns, factors, fused, length);
#else
                    addScaledColumnsPortable(tile, columns, factors, fused, length);
#endif
                    continue;
                }
                const float q = query[i].weight;
                std::uint64_t p = cursor[i];
                const std::uint64_t last = postings.offsets[query[i].term + 1];
                for (; p < last && documents[p] < end; ++p) tile[documents[p] - begin] += q * weights[p];
                cursor[i] = p;
                ++i;
            }
#if defined(__x86_64__)
            if (avx2) {
                offerTileAvx2(tile, length, begin, tops[g]);
                continue;
            }
#endif
            offerTilePortable(tile, length, begin, tops[g]);
        }
    }
    for (auto& top : tops) top.finish();
}

}  // namespace linkscope::retrieval
