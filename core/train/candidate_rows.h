#pragma once
// The candidate choices of the objectives, as plain functions of indexes and scores so that each
// rule is tested on its own: BELHD's candidate sharing and the gold injection of the marginal
// objective, Le & Nguyen's (document, entity) groups and their shortlist of negative entities.
// Torch-free.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "train/training_data.h"

namespace linkscope::train {

/// Scores an entry (or a candidate row) for one mention; higher is more similar.
using EntryScore = std::function<float(std::uint32_t)>;

/// BELHD's candidate sharing (Garda & Leser 2024, §4.2) for mention m: its own first `own` dense
/// candidates, then up to `shared` entries from the first `own` dense candidates of the other
/// mentions of its document (`documents[i]`: mention i's document), the highest `score` first (ties
/// in the order met), then more of its own dense candidates until the row has own + shared
/// entries or its list ends. No entry appears twice.
std::vector<std::uint32_t> sharedCandidateRow(std::size_t m, std::span<const std::vector<std::uint32_t>> dense,
                                              std::span<const std::uint32_t> documents, std::size_t own,
                                              std::size_t shared, const EntryScore& score);

/// When no entry of `row` is positive, the highest-scored of `goldEntries` replaces the last entry
/// (ties: the first of goldEntries). True when it replaced one. Training from random weights, a
/// dense row rarely holds a gold name, and a row without one teaches the marginal likelihood
/// nothing.
bool injectGold(std::vector<std::uint32_t>& row, const std::function<bool(std::uint32_t)>& isPositive,
                std::span<const std::uint32_t> goldEntries, const EntryScore& score);

/// The mentions of one gold entity in one document (Le & Nguyen's unit).
struct MentionGroup {
    std::uint32_t entity = 0;
    std::vector<std::size_t> mentions;  ///< indexes into the training mentions, in corpus order
};

/// Groups the mentions that have exactly one gold entity by (document, entity), in the order
/// of their first mention; mentions with several gold entities are left out.
std::vector<MentionGroup> groupByDocumentEntity(std::span<const TrainingMention> mentions);

/// Le & Nguyen's negatives for a cluster: among the candidate rows of its mentions
/// (`candidateRows[m]`, rows of a table whose entity is `entityOf(row)`), those not of `gold`,
/// each once, the `count` nearest by `distance` (smallest first, ties in the order met); when
/// the mentions have no other candidate, the same over every row 0..rows-1. Their entities,
/// nearest first.
std::vector<std::uint32_t> shortlistNegatives(std::span<const std::size_t> mentions,
                                              std::span<const std::vector<std::uint32_t>> candidateRows,
                                              const std::function<std::uint32_t(std::uint32_t)>& entityOf,
                                              std::uint32_t rows, std::uint32_t gold, const EntryScore& distance,
                                              std::size_t count);

}  // namespace linkscope::train
