#pragma once
// Evaluation queries: the mentions of a corpus turned into what a name-based linker is asked,
// following BioSyn's preprocessing of NCBI Disease and BC5CDR (dmis-lab/BioSyn,
// preprocess/query_preprocess.py), in its order:
//   1. CUI-less mentions ("-1") are dropped, and so are mentions with an id the KB does not
//      know (BioSyn's filter_cuiless); both are counted;
//   2. abbreviations in the mention are expanded from the document's own definitions
//      (Schwartz & Hearst here, Ab3P in BioSyn), e.g. "HD" -> "Huntington disease", by
//      default token by token as BioSyn does (see AbbreviationMatching);
//   3. a composite mention (several ids) is split into as many parts as it has ids: the corpus'
//      own parts when it lists them (BC5CDR), else when the splitter manages it ("breast and
//      ovarian cancer" -> "breast cancer", "ovarian cancer"); otherwise it stays one part. Ids
//      joined by '+' are treated like '|', as BioSyn does;
//   4. the parts are normalized (lower case, spelling map, punctuation removed).
// Gold ids are mapped to the KB's primary ids (KnowledgeBase::findEntity), so a corpus id
// "OMIM:613097" meets MEDIC's concept "MESH:C567755" that lists 613097 as an alternative.
//
// Two of BioSyn's quirks are reproduced by default because the default aims at BioSyn's own
// processed queries (see QueryOptions): the parts of a split mention are normalized as ONE
// string joined by '|', so a token glued to the bar escapes the spelling map ("pineal
// tumours|retinal tumours" -> "pineal tumours|retinal tumors"); and an id list mixing OMIM and
// MeSH ids keeps its MeSH ids only ("OMIM:201400|C535668" -> "C535668").
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "corpus/concept_id.h"

namespace linkscope {
class Corpus;
}
namespace linkscope::kb {
class KnowledgeBase;
}
namespace linkscope::text {
class Normalizer;
class SpellingMap;
}  // namespace linkscope::text

namespace linkscope::eval {

/// How a document's abbreviation definitions are applied to its mentions.
enum class AbbreviationMatching {
    /// BioSyn's apply_abbr_dict: whole white-space tokens only (eval/biosyn_abbreviations.h).
    /// The default, because it is what BioSyn's processed queries hold.
    BioSynTokens,
    /// text::expandAbbreviations: short forms anywhere between non-alphanumeric characters,
    /// multi-word short forms too ("HPRT-deficient", "Hex A deficiency" are expanded).
    Anywhere,
};

struct QueryOptions {
    /// Mention types to keep ("Disease"; a MedMentions TUI such as "T047" matches mentions
    /// whose type list holds it; "st21pv" matches MedMentions ST21pv's 21 TUIs exactly, which
    /// is what its corpus writes). Empty: every mention.
    std::vector<std::string> types;
    /// Expand abbreviations defined in the same document (title + "\n" + abstract).
    bool expandAbbreviations = true;
    AbbreviationMatching abbreviationMatching = AbbreviationMatching::BioSynTokens;
    /// Split composite mentions into one part per id when the splitter can.
    bool splitComposites = true;
    /// Take the parts of a composite mention from the corpus when it lists them, one per id
    /// (BC5CDR's 7th column "Ocular toxicity|auditory toxicity"), as BioSyn's
    /// bc5cdr_preprocess does; the splitter then only handles the others. Needs splitComposites.
    bool useIndividualMentions = true;
    /// Let the splitter prefer splits whose parts are names of the KB (after normalization).
    /// Off by default: BioSyn's splitter has no vocabulary.
    bool splitWithVocabulary = false;
    /// Normalize the parts as one '|'-joined string, as BioSyn does (see the header comment).
    /// When false, every part is normalized on its own.
    bool normalizeJoinedParts = true;
    /// In an id list that mixes OMIM and other ids, keep only the others (BioSyn's
    /// composite_resolve treats the OMIM ids there as auxiliary).
    bool dropOmimFromMixedIds = true;
    /// Drop a mention when one of its ids is not in the KB (BioSyn's filter_cuiless). When
    /// false the unknown id is kept as gold (canonical form); no prediction can match it.
    bool dropUnknownIds = true;
    /// The query normalization; null: BioSyn's (bioSynQueryNormalizer() without spelling map).
    std::shared_ptr<const text::Normalizer> normalizer;
};

/// BioSyn's query normalization: lower case, the spelling map when given, ASCII punctuation
/// removed except '|' (which separates the parts of a split composite mention).
std::shared_ptr<const text::Normalizer> bioSynQueryNormalizer(
    std::shared_ptr<const text::SpellingMap> spelling = nullptr);

/// One mention to link.
struct EvalQuery {
    std::string document;   ///< PMID
    std::size_t start = 0;  ///< character offsets in the document text, end exclusive
    std::size_t end = 0;
    std::string mention;  ///< as written in the corpus
    std::string type;
    std::string idColumn;  ///< the corpus' id column as written
    std::string expanded;  ///< the mention after abbreviation expansion (== mention if none)
    /// The normalized query parts: one per id for a split composite mention, else one.
    std::vector<std::string> parts;
    /// Gold concepts as KB primary ids (canonical, distinct, in corpus order).
    std::vector<std::string> goldIds;
    IdJoin join = IdJoin::Single;
    bool composite = false;             ///< more than one id (after the mixed-id filter)
    bool abbreviationExpanded = false;  ///< a short form was replaced
    bool splitFailed = false;           ///< composite, but left as one part
    /// BELHD §3: the gold entity has a homonym name nearly identical to the mention. Unset
    /// until markHomonymAffected() runs.
    std::optional<bool> homonymAffected;
    std::string sourceFile;  ///< where the mention was read, for messages
    std::size_t sourceLine = 0;
};

/// What building the queries counted.
struct QueryStatistics {
    std::size_t documents = 0;
    std::size_t mentions = 0;           ///< all mentions of the corpus
    std::size_t filteredByType = 0;     ///< left out by QueryOptions::types
    std::size_t cuiLessDropped = 0;     ///< id "-1" or empty
    std::size_t unknownIdsDropped = 0;  ///< an id the KB does not know
    std::size_t unknownIdsKept = 0;     ///< same, kept because dropUnknownIds was false
    std::size_t mixedIdsFiltered = 0;   ///< OMIM ids dropped from a mixed list
    std::size_t queries = 0;
    std::size_t parts = 0;
    std::size_t composites = 0;
    std::size_t compositesSplit = 0;       ///< by the splitter or from the corpus' parts
    std::size_t compositesFromCorpus = 0;  ///< of those, parts taken from the corpus (BC5CDR)
    std::size_t splitFailed = 0;
    std::size_t conjunctions = 0;  ///< ids joined by '+'
    std::size_t abbreviationsExpanded = 0;
};

struct QuerySet {
    std::vector<EvalQuery> queries;
    QueryStatistics statistics;
};

/// Builds the queries of a corpus against a KB. Throws ParseError naming the mention's file
/// and line when a mention cannot be normalized (text that is not UTF-8 in a corpus built in
/// memory; the readers never produce it).
QuerySet buildQueries(const Corpus& corpus, const kb::KnowledgeBase& kb, const QueryOptions& options = {});

/// The gold ids of the queries: the "seen" entities when the queries are the training split.
std::unordered_set<std::string> goldIdSet(std::span<const EvalQuery> queries);

/// True when the mention's type is one of `types` (also matching one of a MedMentions type
/// list "T047,T191"); an empty list matches everything.
bool typeSelected(std::string_view type, std::span<const std::string> types);

}  // namespace linkscope::eval
