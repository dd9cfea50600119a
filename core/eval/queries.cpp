#include "eval/queries.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "corpus/corpus.h"
#include "corpus/id_list.h"
#include "eval/biosyn_abbreviations.h"
#include "kb/knowledge_base.h"
#include "kb/umls_subsets.h"
#include "text/abbreviations.h"
#include "text/composite.h"
#include "text/normalizer.h"
#include "util/error.h"

namespace linkscope::eval {
namespace {

bool isOmim(std::string_view id) noexcept { return id.starts_with("OMIM:"); }

/// BioSyn's composite_resolve: in a list holding both OMIM and other ids the OMIM ids are
/// auxiliary and go; a list of OMIM ids only (or of no OMIM id) stays as it is.
bool dropOmimIfMixed(std::vector<std::string>& ids) {
    const auto omim =
        static_cast<std::size_t>(std::count_if(ids.begin(), ids.end(), [](const auto& id) { return isOmim(id); }));
    if (omim == 0 || omim == ids.size()) return false;
    std::erase_if(ids, [](const std::string& id) { return isOmim(id); });
    return true;
}

void appendDistinct(std::vector<std::string>& list, std::string value) {
    if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(std::move(value));
}

// The '|'-joined parts, each without the spaces around it.
std::vector<std::string> splitOnBar(std::string_view text) {
    std::vector<std::string> pieces;
    for (std::string_view piece : splitIdList(text)) {
        while (!piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
        while (!piece.empty() && piece.back() == ' ') piece.remove_suffix(1);
        pieces.emplace_back(piece);
    }
    return pieces;
}

/// Everything that stays fixed while the mentions of a corpus are turned into queries.
class QueryBuilder {
public:
    QueryBuilder(const kb::KnowledgeBase& kb, const QueryOptions& options) : kb_(kb), options_(options) {
        normalizer_ = options.normalizer ? options.normalizer : bioSynQueryNormalizer();
        if (options.normalizeJoinedParts) {
            // The joined form needs '|' to survive normalization, whatever the caller's options.
            text::NormalizerOptions joined = normalizer_->options();
            if (joined.keepCharacters.find('|') == std::string::npos) joined.keepCharacters.push_back('|');
            joinedNormalizer_ = std::make_shared<const text::Normalizer>(std::move(joined));
        }
        if (options.splitComposites && options.splitWithVocabulary) {
            kb.forEachNamePair([&](kb::EntityIndex, kb::StringId name) {
                knownNames_.insert(normalizer_->normalize(kb.strings().view(name)));
            });
            compositeOptions_.isKnownName = [this](std::string_view part) {
                return knownNames_.contains(normalizer_->normalize(part));
            };
        }
    }

    void addDocument(const Document& document, QuerySet& out) {
        ++out.statistics.documents;
        std::optional<std::vector<text::AbbreviationDefinition>> definitions;  // found on first need
        for (const Mention& mention : document.mentions) {
            ++out.statistics.mentions;
            if (!typeSelected(mention.type, options_.types)) {
                ++out.statistics.filteredByType;
                continue;
            }
            if (mention.ids.cuiLess || mention.ids.ids.empty()) {
                ++out.statistics.cuiLessDropped;
                continue;
            }
            if (options_.expandAbbreviations && !definitions) {
                try {
                    definitions = text::findAbbreviations(
                        document.hasAbstract ? document.title + "\n" + document.abstract : document.title);
                } catch (const Error& e) {
                    throw ParseError(document.sourceFile, document.sourceLine,
                                     "document " + document.pmid() + ": " + e.what());
                }
            }
            try {
                std::span<const text::AbbreviationDefinition> defined;
                if (definitions) defined = *definitions;
                addMention(document, mention, defined, out);
            } catch (const ParseError&) {
                throw;
            } catch (const Error& e) {
                throw ParseError(document.sourceFile, mention.sourceLine,
                                 "mention \"" + mention.text + "\" of document " + document.pmid() + ": " + e.what());
            }
        }
    }

private:
    void addMention(const Document& document, const Mention& mention,
                    std::span<const text::AbbreviationDefinition> definitions, QuerySet& out) {
        QueryStatistics& stats = out.statistics;
        std::vector<std::string> ids = mention.ids.ids;
        if (options_.dropOmimFromMixedIds && dropOmimIfMixed(ids)) ++stats.mixedIdsFiltered;

        EvalQuery query;
        bool unknown = false;
        for (const std::string& id : ids) {
            if (const auto entity = kb_.findEntity(id)) {
                appendDistinct(query.goldIds, std::string(kb_.primaryId(*entity)));
            } else {
                unknown = true;
                appendDistinct(query.goldIds, id);
            }
        }
        if (unknown) {
            if (options_.dropUnknownIds) {
                ++stats.unknownIdsDropped;
                return;
            }
            ++stats.unknownIdsKept;
        }

        query.document = document.pmid();
        query.start = mention.start;
        query.end = mention.end;
        query.mention = mention.text;
        query.type = mention.type;
        query.idColumn = mention.idColumn;
        query.join = mention.ids.join;
        query.sourceFile = document.sourceFile;
        query.sourceLine = mention.sourceLine;
        // The number of parts follows the ids as annotated (BioSyn counts the id list), not the
        // number of distinct KB entities they map to.
        query.composite = ids.size() > 1;
        stats.conjunctions += mention.ids.join == IdJoin::Conjunction ? 1 : 0;

        // A BC5CDR composite that lists one part per id (counted before any filtering, as
        // BioSyn's bc5cdr_preprocess does) is queried with those parts. BioSyn expands
        // abbreviations in the '|'-joined parts, where a short form glued to a bar escapes; here
        // each part is expanded on its own.
        const bool listedParts = query.composite && options_.splitComposites && options_.useIndividualMentions &&
                                 mention.individualMentions.size() == mention.ids.ids.size();
        std::vector<std::string> listed;
        if (listedParts) {
            for (const auto& part : mention.individualMentions) listed.push_back(expand(part, definitions, query));
            query.expanded.clear();
            for (const auto& part : listed) query.expanded += (query.expanded.empty() ? "" : "|") + part;
        } else {
            query.expanded = expand(mention.text, definitions, query);
        }
        stats.abbreviationsExpanded += query.abbreviationExpanded ? 1 : 0;

        std::vector<std::string> rawParts;
        if (query.composite) {
            ++stats.composites;
            if (listedParts) {
                rawParts = std::move(listed);
                ++stats.compositesSplit;
                ++stats.compositesFromCorpus;
            } else if (options_.splitComposites) {
                if (auto split = text::splitComposite(query.expanded, ids.size(), compositeOptions_)) {
                    rawParts = std::move(split->parts);
                    ++stats.compositesSplit;
                }
            }
            query.splitFailed = rawParts.empty();
            stats.splitFailed += query.splitFailed ? 1 : 0;
        }
        if (rawParts.empty()) rawParts.push_back(query.expanded);
        query.parts = normalizeParts(rawParts);
        stats.parts += query.parts.size();
        ++stats.queries;
        out.queries.push_back(std::move(query));
    }

    /// The text with the document's abbreviations expanded; sets query.abbreviationExpanded
    /// when a short form was replaced.
    std::string expand(const std::string& input, std::span<const text::AbbreviationDefinition> definitions,
                       EvalQuery& query) const {
        if (definitions.empty()) return input;
        if (options_.abbreviationMatching == AbbreviationMatching::BioSynTokens) {
            auto expanded = expandAbbreviationTokens(input, definitions);
            if (!expanded.changed) return input;
            query.abbreviationExpanded = true;
            return std::move(expanded.text);
        }
        auto expanded = text::expandAbbreviations(input, definitions);
        if (expanded.applied.empty()) return input;
        query.abbreviationExpanded = true;
        return std::move(expanded.text);
    }

    std::vector<std::string> normalizeParts(std::vector<std::string>& rawParts) const {
        std::vector<std::string> parts;
        if (!joinedNormalizer_) {
            for (const auto& part : rawParts) parts.push_back(normalizer_->normalize(part));
            return parts;
        }
        // A bar inside a part would add a part; BioSyn never meets one in NCBI or BC5CDR.
        std::string joined;
        for (auto& part : rawParts) {
            std::replace(part.begin(), part.end(), '|', ' ');
            if (!joined.empty()) joined += '|';
            joined += part;
        }
        return splitOnBar(joinedNormalizer_->normalize(joined));
    }

    const kb::KnowledgeBase& kb_;
    const QueryOptions& options_;
    std::shared_ptr<const text::Normalizer> normalizer_;
    std::shared_ptr<const text::Normalizer> joinedNormalizer_;
    std::unordered_set<std::string> knownNames_;
    text::CompositeOptions compositeOptions_;
};

}  // namespace

std::shared_ptr<const text::Normalizer> bioSynQueryNormalizer(std::shared_ptr<const text::SpellingMap> spelling) {
    text::NormalizerOptions options = text::bioSynOptions(std::move(spelling));
    options.keepCharacters.assign(1, '|');
    return std::make_shared<const text::Normalizer>(std::move(options));
}

namespace {

bool typeListHolds(std::string_view type, std::string_view wanted) {
    if (type == wanted) return true;
    // MedMentions writes several semantic types as "T047,T191".
    std::size_t start = 0;
    for (;;) {
        const auto comma = type.find(',', start);
        if (type.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start) == wanted)
            return true;
        if (comma == std::string_view::npos) return false;
        start = comma + 1;
    }
}

}  // namespace

bool typeSelected(std::string_view type, std::span<const std::string> types) {
    if (types.empty()) return true;
    for (const auto& wanted : types) {
        if (typeListHolds(type, wanted)) return true;
        // A named set ("st21pv": MedMentions ST21pv's 21 TUIs, which its corpus's type column
        // holds) matches each of its members.
        if (const auto set = kb::namedSemanticTypes(wanted))
            for (const auto member : *set)
                if (typeListHolds(type, member)) return true;
    }
    return false;
}

QuerySet buildQueries(const Corpus& corpus, const kb::KnowledgeBase& kb, const QueryOptions& options) {
    QuerySet out;
    QueryBuilder builder(kb, options);
    for (const Document& document : corpus.documents()) builder.addDocument(document, out);
    return out;
}

std::unordered_set<std::string> goldIdSet(std::span<const EvalQuery> queries) {
    std::unordered_set<std::string> ids;
    for (const auto& query : queries) ids.insert(query.goldIds.begin(), query.goldIds.end());
    return ids;
}

}  // namespace linkscope::eval
