#pragma once
// Linking every mention of a corpus with a ranking function, for `linkscope-cli link`: the
// mentions become queries as `eval` builds them (eval/queries.h: abbreviations expanded from the
// document, BioSyn's normalization, a composite split into one part per id it lists), except that
// no mention is left out: a mention without ids, with ids the KB does not know, or of any type is
// linked too. Each part is ranked; the mention's link is the best entry of each part, its ids
// joined as alternatives ('|'), and its score the lowest of the parts' best scores.
//
// A mention that cannot be ranked (no text after normalization, or longer than
// CorpusLinkOptions::maxMentionCharacters) is not dropped: it is linked as NIL ("-1") and listed
// in CorpusLinks::unrankable with its document and offsets, for the caller to report.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "eval/evaluate.h"
#include "eval/queries.h"
#include "retrieval/name_dictionary.h"
#include "util/progress.h"

namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::curation {

struct CorpusLinkOptions {
    /// Candidates kept per mention (the link is the first); at least 1.
    std::size_t top = 1;
    /// A mention whose score is below this is linked as NIL ("-1").
    std::optional<double> nilBelow;
    /// Mentions longer than this (characters of the mention text) are not ranked.
    std::size_t maxMentionCharacters = 1000;
    /// Parts ranked per call of the ranking function (progress and cancellation between calls).
    std::size_t batchSize = 4096;
    /// Ranking depth asked of the ranking function; at least `top`.
    std::size_t depth = eval::kMinimumDepth;
    /// What the ranking function is given for a part; unset: the part itself (see EvalOptions).
    std::function<std::string(const eval::EvalQuery&, std::size_t part)> partText;
    ProgressSink progress;
};

/// One candidate of a mention: the ids of its parts' entries at one rank.
struct LinkCandidate {
    std::vector<std::string> ids;  ///< canonical ids, distinct, in part order
    /// The ids of each part's entry (one list per part of the mention's query).
    std::vector<std::vector<std::string>> parts;
    double score = 0.0;  ///< the lowest of the parts' scores at this rank
};

/// The link of one mention.
struct MentionLink {
    std::vector<LinkCandidate> candidates;  ///< best first, at most CorpusLinkOptions::top; empty when unrankable
    bool nil = false;                       ///< written as "-1": unrankable, or below nilBelow
    std::string unrankable;                 ///< why the mention was not ranked; empty when it was
};

/// A mention that could not be ranked, for the report on standard error.
struct UnrankableMention {
    std::string document;
    std::size_t start = 0;
    std::size_t end = 0;
    std::string reason;
};

struct CorpusLinks {
    /// links[d][m]: the link of corpus.documents()[d].mentions[m].
    std::vector<std::vector<MentionLink>> links;
    std::vector<UnrankableMention> unrankable;
    std::size_t mentions = 0;
    std::size_t linked = 0;    ///< given an entity
    std::size_t nilBelow = 0;  ///< ranked, but under CorpusLinkOptions::nilBelow
};

/// The queries of every mention of `corpus`, one per mention in corpus order (see the header
/// comment); `options`' types and dropUnknownIds are ignored.
eval::QuerySet linkQueries(const Corpus& corpus, const kb::KnowledgeBase& kb, eval::QueryOptions options);

/// Links every mention of `corpus` (whose queries `linkQueries` made) by ranking the dictionary.
CorpusLinks linkCorpus(const Corpus& corpus, const eval::QuerySet& queries, const retrieval::NameDictionary& dictionary,
                       const eval::RankFn& rank, const CorpusLinkOptions& options);

/// The id column written for a link: "-1" for NIL, else the ids of the first candidate in the
/// short form of the NCBI and BC5CDR files, joined by '|'.
std::string linkColumnFor(const MentionLink& link);

/// The corpus with each mention's id column replaced by its link (Mention::ids and idColumn);
/// everything else as it was.
Corpus withLinks(const Corpus& corpus, const CorpusLinks& links);

}  // namespace linkscope::curation
