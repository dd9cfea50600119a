#pragma once
// Internal to core/retrieval: keeping the k best items of a stream. The one heap of the ranked
// lists here: SparseIndex's and DenseIndex's candidates (TopK) and the kNN datastore's
// neighbours (knn_datastore_search.cpp), each with its own ranking order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "retrieval/name_dictionary.h"

namespace linkscope::retrieval::detail {

/// The k best items offered so far, kept in the caller's vector as a heap whose front is the
/// worst of them; finish() sorts them best first. `Order` is a default-constructible strict weak
/// ordering, Order{}(a, b) true when a ranks before (is better than) b. When it orders every two
/// items offered (ties broken, by a row or key id), the k kept are one well-defined list
/// whatever order the items come in.
template <typename Item, typename Order>
class BasicTopK {
public:
    BasicTopK(std::vector<Item>& heap, std::size_t k) : heap_(&heap), k_(k) {
        heap_->clear();
        heap_->reserve(k);
    }

    std::size_t k() const noexcept { return k_; }
    bool full() const noexcept { return heap_->size() >= k_; }
    /// The worst item kept, which a new item must rank before to enter; only when full() and k() > 0.
    const Item& worst() const noexcept { return heap_->front(); }

    /// Items may come in any order.
    void offer(const Item& item) {
        if (k_ == 0) return;
        const Order ranksBefore{};
        if (!full()) {
            heap_->push_back(item);
            std::push_heap(heap_->begin(), heap_->end(), ranksBefore);
        } else if (ranksBefore(item, heap_->front())) {
            std::pop_heap(heap_->begin(), heap_->end(), ranksBefore);
            heap_->back() = item;
            std::push_heap(heap_->begin(), heap_->end(), ranksBefore);
        }
    }

    /// Sorts the kept items best first (the vector is then no longer a heap: offer no more).
    void finish() { std::sort_heap(heap_->begin(), heap_->end(), Order{}); }

private:
    std::vector<Item>* heap_;
    std::size_t k_;
};

/// The ranking order of SparseIndex and DenseIndex: higher score first, then lower entry index.
struct CandidateOrder {
    bool operator()(const Candidate& a, const Candidate& b) const noexcept {
        return a.score > b.score || (a.score == b.score && a.entry < b.entry);
    }
};

inline bool ranksBefore(const Candidate& a, const Candidate& b) noexcept { return CandidateOrder{}(a, b); }

/// The k best candidates in CandidateOrder.
class TopK : public BasicTopK<Candidate, CandidateOrder> {
public:
    using BasicTopK::BasicTopK;
    using BasicTopK::offer;

    /// The score a candidate must reach to be kept (0 until k are kept). Candidates offered in
    /// ascending entry order need to exceed it: an equal score loses to the lower entry kept.
    float threshold() const noexcept { return full() && k() > 0 ? worst().score : 0.0f; }

    void offer(std::uint32_t entry, float score) { offer(Candidate{entry, score}); }
};

}  // namespace linkscope::retrieval::detail
