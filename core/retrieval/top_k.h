#pragma once
// Internal to core/retrieval: keeping the k best candidates of a stream, in the ranking order
// of SparseIndex (higher score first, then lower entry index).
#include <algorithm>
#include <cstddef>
#include <vector>

#include "retrieval/name_dictionary.h"

namespace linkscope::retrieval::detail {

inline bool ranksBefore(const Candidate& a, const Candidate& b) noexcept {
    return a.score > b.score || (a.score == b.score && a.entry < b.entry);
}

/// The k best candidates offered so far, kept in the caller's vector as a heap whose front is
/// the worst of them; finish() sorts them best first.
class TopK {
public:
    TopK(std::vector<Candidate>& heap, std::size_t k) : heap_(heap), k_(k) {
        heap_.clear();
        heap_.reserve(k);
    }

    bool full() const noexcept { return heap_.size() >= k_; }
    /// The score a candidate must reach to be kept (0 until k are kept). Candidates offered in
    /// ascending entry order need to exceed it: an equal score loses to the lower entry kept.
    float threshold() const noexcept { return full() && k_ > 0 ? heap_.front().score : 0.0f; }

    /// Candidates may come in any order.
    void offer(std::uint32_t entry, float score) {
        const Candidate candidate{entry, score};
        if (k_ == 0) return;
        if (!full()) {
            heap_.push_back(candidate);
            std::push_heap(heap_.begin(), heap_.end(), ranksBefore);
        } else if (ranksBefore(candidate, heap_.front())) {
            std::pop_heap(heap_.begin(), heap_.end(), ranksBefore);
            heap_.back() = candidate;
            std::push_heap(heap_.begin(), heap_.end(), ranksBefore);
        }
    }

    void finish() { std::sort_heap(heap_.begin(), heap_.end(), ranksBefore); }

private:
    std::vector<Candidate>& heap_;
    std::size_t k_;
};

}  // namespace linkscope::retrieval::detail
