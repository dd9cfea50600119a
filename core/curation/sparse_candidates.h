#pragma once
// The candidates a project shows before any model is trained: BioSyn's sparse TF-IDF (character
// uni- and bigrams) over the knowledge base's names, homonym-expanded as BELHD does when asked,
// ranked as entities. It needs no encoder, so it works in every build and on the demo project.
//
// A name shared by several entities (an unresolved homonym) ranks each of them at its score;
// an entity is listed once, at its best name.
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "curation/candidate_row.h"
#include "util/progress.h"

namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::curation {

class SparseCandidates {
public:
    /// Builds the dictionary and the index (long for a large KB: call it off the GUI thread).
    /// Throws Cancelled when `progress` asks to stop.
    SparseCandidates(const kb::KnowledgeBase& kb, bool homonymExpansion, const ProgressSink& progress = {});
    SparseCandidates(SparseCandidates&&) noexcept;
    SparseCandidates& operator=(SparseCandidates&&) noexcept;
    ~SparseCandidates();

    /// The top k entities for a mention's surface text (normalized as the dictionary is).
    /// Safe to call from several threads at once.
    std::vector<CandidateRow> rank(std::string_view mention, std::size_t k) const;
    /// rank() of many mentions at once: the same rows, from one batched search that answers each
    /// distinct text once on `threads` threads (0: one per core): what ranking every mention of a
    /// MedMentions-size project against UMLS takes.
    std::vector<std::vector<CandidateRow>> rankAll(std::span<const std::string> mentions, std::size_t k,
                                                   unsigned threads = 0) const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace linkscope::curation
