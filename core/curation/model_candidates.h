#pragma once
// The curation GUI's candidates from a trained run: every mention of a project linked the way the
// run's method links (train/method_linker.h), combined with a kNN datastore of the training
// mentions and of the curator's decisions (curation/augmented_linker.h), and a decision fed into
// that datastore at once (curation/feedback_loop.h): the curation loop.
//
// Built once on a worker thread (the model loaded, the KB's names encoded, the training
// datastore built or read from the project file, every mention encoded and ranked), then used
// from one thread only: a decision adds its keys and returns the mentions whose ranking that can
// change, which the caller ranks again (rerank) a few at a time: on NCBI Disease a frequent
// surface form reaches so many mentions that ranking them all is too long for one turn of a GUI
// loop (benchmarks/ui_stall).
//
// Which mentions a key can change: the interpolation reads a mention's k nearest keys, so a new
// key changes a mention's ranking exactly when its cosine with the mention is at least that of
// the mention's k-th neighbour (or the mention has fewer than k). The k-th neighbour's cosine is
// kept per mention, so a decision costs one pass over the mention vectors, not a new search of
// every mention. In kNN mode each mention's nearest keys are kept too (retrieval/neighbour_lists.h):
// a new key is merged into the lists it enters and a removed one (undo) taken out, so ranking a
// reached mention again reads its list and searches nothing, and gives what a search would (the
// same similarities, the same ties); a list is searched again only after k undos took keys out
// of it. The sieve reads the nearest key (k = 1); its concept-vector strategies (-C) are moved by
// every key of the entity, which this test does not see (the GUI links with kNN by default).
//
// The dictionary is BioSyn's evaluation dictionary: the KB's names (homonym-expanded when the
// preset trains on the expanded KB) and the training split's mentions; the datastore keys are
// the training split's mentions (a project without a split named "train" starts with an empty
// datastore). Mentions are whole (a composite mention is one target; its decision's ids are
// each a key), normalized and abbreviation-expanded as the evaluation does.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "curation/augmented_linker.h"
#include "curation/candidate_row.h"
#include "curation/entity_neighbourhood.h"
#include "curation/target_vectors.h"
#include "project/curation_decision.h"
#include "util/progress.h"

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::curation {

struct ModelCandidatesOptions {
    std::filesystem::path run;  ///< a training run directory (train/run_directory.h)
    /// knn: kNN-BioEL's interpolation (the paper's NCBI settings); sieve: `sieve`; model: the
    /// method alone, decisions then change no ranking.
    LinkMode mode = LinkMode::Knn;
    retrieval::KnnSettings knn = retrieval::KnnSettings::ncbi();
    /// The sieve's stages: OD-T (one search over names and datastore), which the linking menu
    /// offers; an empty spec is refused by the linker ("no search stage given").
    retrieval::SieveSpec sieve = retrieval::parseSieve("OD-T");
    /// The sieve's threshold; unset: the run preset's `triplet.sieve_threshold` (0.95, the paper's).
    std::optional<double> sieveThreshold;
    /// The project file the training datastore is kept in (project/datastore_storage.h), opened
    /// with its own connection; empty: built every time, kept nowhere.
    std::filesystem::path projectFile;
    bool cpuOnly = false;  ///< CPU even when LibTorch has CUDA
    /// The mentions' vectors stay float up to this many bytes, half precision above
    /// (curation/target_vectors.h: MedMentions' 350 k mentions).
    std::size_t floatVectorBudget = TargetVectors::kDefaultFloatBudget;
};

/// A mention's top entity, as the filters and the document view read it.
struct TopProposal {
    std::string entity;  ///< "" when nothing was ranked
    double score = 0.0;
    double margin = 0.0;  ///< its lead over the second entity (its score when alone)
};

/// What ranking mentions again changed.
struct ProposalChanges {
    std::vector<project::MentionKey> reranked;    ///< mentions ranked again (their scores may differ)
    std::vector<project::MentionKey> topChanged;  ///< of those, the ones whose top entity changed
};

class ModelCandidates {
public:
    /// Loads the run and links every mention of the project (minutes on MEDIC and a CPU: call it
    /// on a worker thread). `decisions` are the project's decisions in effect: each accept and
    /// correct becomes a key, as if just made. Progress by stage; Cancelled; Error when the run
    /// holds no model or its datastore in the project file was made by another model.
    ModelCandidates(std::shared_ptr<const LoadedProject> project, const ModelCandidatesOptions& options,
                    const std::vector<project::Decision>& decisions, const ProgressSink& progress = {});
    ~ModelCandidates();
    ModelCandidates(const ModelCandidates&) = delete;
    ModelCandidates& operator=(const ModelCandidates&) = delete;

    /// "triplet (run NAME), kNN interpolation over 5,131 keys".
    std::string description() const;
    std::string runName() const;
    LinkMode mode() const noexcept;
    std::size_t datastoreKeys() const noexcept;
    std::size_t curatorKeys() const noexcept;

    bool knows(const project::MentionKey& mention) const;
    /// The top k entities of a mention with the datastore as it is now; empty for an unknown mention.
    std::vector<CandidateRow> rank(const project::MentionKey& mention, std::size_t k);
    /// The top entity of a mention as last ranked (at building, or after a decision reached it).
    const TopProposal* proposal(const project::MentionKey& mention) const;
    /// Low confidence for this ranker: kNN p below 0.5 or a lead below 0.1; sieve cosine below
    /// its threshold; model alone: a lead below 1 % of the score.
    bool lowConfidence(const TopProposal& proposal) const;

    /// Feeds a decision in effect: accept / correct add one key per id of `decision`'s new link
    /// (an id the dictionary lacks is passed over); reject, NIL and skip add none. Re-feeding a
    /// decision id already fed does nothing. Returns the mentions the keys reach (in kNN mode
    /// exactly those whose k nearest keys they entered): their proposals are stale until
    /// rerank() (rank() always reads the datastore as it is), so that a caller on the GUI
    /// thread can rank them again a few at a time.
    std::vector<project::MentionKey> feed(const project::Decision& decision);
    /// Takes a decision's keys back (undo); nothing when it had none. Returns the mentions the
    /// keys were among the nearest of, stale as after feed() (in kNN mode exactly those whose k
    /// nearest they were among).
    std::vector<project::MentionKey> unfeed(std::int64_t decisionId);
    /// The other mentions a decision on `mention` would reach before it is made: those whose k
    /// nearest keys a key with this mention's vector would enter (the same test as feed(), so
    /// whatever entity the decision links to). Empty for an unknown mention or without a
    /// datastore (model mode). One pass over the mention vectors, no ranking.
    std::vector<project::MentionKey> reachOf(const project::MentionKey& mention) const;
    /// A mention whose proposal a decision would move, with its proposal now and after.
    struct ProposalMove {
        project::MentionKey mention;
        std::string before;
        std::string after;
    };
    /// Before a decision linking `mention` to `entity` is made: the other mentions whose top
    /// entity it would change through the datastore, exactly. The decision's key is added for a
    /// moment, the mentions it reaches (reachOf) ranked again, and the key taken back; `before`
    /// is each mention's proposal as last ranked. Empty for an unknown mention or entity, or
    /// without a datastore. Costs one batched ranking of the reached mentions.
    std::vector<ProposalMove> wouldMove(const project::MentionKey& mention, const std::string& entity);
    /// The review queue's reach of every mention at once (review_queue.h): for each mention, how
    /// many other mentions for which `decided` is false a decision's key would reach (reachOf()
    /// restricted to them), from the pairs of mentions found once when the linking was built
    /// and filtered by the k-th neighbours as they are now. Unset without a datastore, or for a
    /// project of more than kReachPairMentions mentions (the pairs are an n^2 product). An undo
    /// of a decision that was in effect at building can lower a k-th neighbour below what the
    /// pairs were found with: the counts may then miss a mention or two until the next building.
    std::optional<std::map<project::MentionKey, std::size_t>> reachCounts(
        const std::function<bool(const project::MentionKey&)>& decided) const;
    static constexpr std::size_t kReachPairMentions = 50'000;
    /// Ranks mentions again with the datastore as it is: their proposals and k-th neighbours.
    ProposalChanges rerank(std::span<const project::MentionKey> mentions);

    /// The run's vectors of free texts (normalized as queries, wrapped as the method wraps a
    /// name, encoded as it encodes mentions), for the embedding plot's distances in the run's own
    /// space. Mentions are encoded without their sentence, an approximation for the context
    /// methods (belhd, prototype-srn). It only encodes, so it may run on another thread than the
    /// one that ranks; the function keeps `model` alive.
    static TextEmbedding textEmbedding(std::shared_ptr<const ModelCandidates> model);
    /// Bytes held for the project's mentions (their vectors, model lists, texts, keys, proposals
    /// and reach pairs), for reports: what grows with the corpus, beside the model, the KB's
    /// vectors and the datastore.
    std::size_t mentionMemoryBytes() const;
    /// Whether the mentions' vectors are kept in half precision (floatVectorBudget).
    bool halfPrecisionVectors() const;

    /// The decisions whose keys are in the datastore, by id.
    std::vector<std::int64_t> fedDecisions() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace linkscope::curation
