#include "curation/agreement.h"

#include <algorithm>
#include <memory>
#include <set>

#include "corpus/concept_id.h"
#include "project/referenced_corpora.h"
#include "util/error.h"

namespace linkscope::curation {
namespace {

using project::Decision;
using project::MentionKey;

// Counts of one scope while it is being filled; kappa is computed from the pairs at the end.
struct Tally {
    std::vector<std::pair<std::string, std::string>> pairs;
    std::size_t onlyA = 0;
    std::size_t onlyB = 0;
};

AgreementFigures figuresOf(const Tally& tally) {
    AgreementFigures figures = cohensKappa(tally.pairs);
    figures.onlyA = tally.onlyA;
    figures.onlyB = tally.onlyB;
    return figures;
}

}  // namespace

std::optional<std::string> agreementCategory(const Decision& decision) {
    const auto link = project::decidedLink(decision);
    if (!link) return std::nullopt;
    if (decision.kind == project::DecisionKind::Reject) return std::string(kRejectedCategory);
    ConceptIdList ids;
    try {
        ids = parseConceptIdList(*link);
    } catch (const Error& e) {
        throw Error("decision " + std::to_string(decision.id) + " on \"" + decision.mentionText + "\" links to \"" +
                    *link + "\", which is not a list of ids: " + e.what());
    }
    if (ids.ids.empty()) return std::string(kNilCategory);  // "-1": CUI-less
    // A set: the order of a composite's parts and the kind of join do not make another entity.
    std::vector<std::string> sorted = ids.ids;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::string category;
    for (const auto& id : sorted) category += (category.empty() ? "" : "|") + id;
    return category;
}

void requireReadableLinks(const std::filesystem::path& file, std::span<const Decision> decisions) {
    for (const Decision& decision : decisions) {
        if (decision.state != project::DecisionState::Done) continue;
        try {
            (void)agreementCategory(decision);
        } catch (const Error& e) {
            throw Error(file.string() + ": " + e.what() + " (split " + decision.mention.split + ", document " +
                        decision.mention.document + ", offsets " + std::to_string(decision.mention.start) + "-" +
                        std::to_string(decision.mention.end) + ")");
        }
    }
}

MentionCategories categoriesInEffect(std::span<const Decision> done,
                                     const std::function<bool(const Decision&)>& include) {
    std::vector<const Decision*> ordered;
    for (const Decision& decision : done)
        if (decision.state == project::DecisionState::Done && (!include || include(decision)))
            ordered.push_back(&decision);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Decision* a, const Decision* b) { return a->id < b->id; });
    MentionCategories categories;
    for (const Decision* decision : ordered)
        if (auto category = agreementCategory(*decision)) categories[decision->mention] = std::move(*category);
    return categories;
}

AgreementFigures cohensKappa(std::span<const std::pair<std::string, std::string>> pairs) {
    AgreementFigures figures;
    figures.both = pairs.size();
    if (pairs.empty()) {
        figures.undefinedReason = "no mention decided by both curators";
        return figures;
    }
    std::map<std::string, std::size_t> marginA, marginB;
    for (const auto& [a, b] : pairs) {
        ++marginA[a];
        ++marginB[b];
        if (a == b) ++figures.agreed;
    }
    // Whole counts: sum over categories of nA * nB, against n * n (p_e = 1 exactly when equal).
    unsigned long long chance = 0;
    for (const auto& [category, countA] : marginA)
        if (const auto found = marginB.find(category); found != marginB.end())
            chance += static_cast<unsigned long long>(countA) * found->second;
    const auto n = static_cast<unsigned long long>(pairs.size());
    figures.observed = static_cast<double>(figures.agreed) / static_cast<double>(n);
    figures.expected = static_cast<double>(chance) / (static_cast<double>(n) * static_cast<double>(n));
    if (chance == n * n) {
        figures.undefinedReason = "expected agreement is 1 (both curators gave every mention the same single category)";
        return figures;
    }
    figures.kappa = (*figures.observed - *figures.expected) / (1.0 - *figures.expected);
    return figures;
}

AgreementFigures cohensKappa(const std::vector<std::vector<std::size_t>>& table) {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (std::size_t i = 0; i < table.size(); ++i) {
        if (table[i].size() != table.size())
            throw Error("a contingency table must be square: row " + std::to_string(i) + " has " +
                        std::to_string(table[i].size()) + " cells, the table " + std::to_string(table.size()) +
                        " rows");
        for (std::size_t j = 0; j < table[i].size(); ++j)
            for (std::size_t k = 0; k < table[i][j]; ++k) pairs.emplace_back(std::to_string(i), std::to_string(j));
    }
    return cohensKappa(pairs);
}

MentionTypeFn mentionTypesOf(std::span<const SplitCorpus> corpora) {
    auto types = std::make_shared<std::map<MentionKey, std::string>>();
    for (const SplitCorpus& split : corpora)
        for (const Document& document : split.corpus.documents())
            for (const Mention& mention : document.mentions)
                (*types)[{split.split, document.pmid(), mention.start, mention.end}] = mention.type;
    return [types](const MentionKey& key) {
        const auto found = types->find(key);
        return found == types->end() ? std::string() : found->second;
    };
}

AgreementReport measureAgreement(const MentionCategories& a, const MentionCategories& b, const MentionTypeFn& typeOf) {
    Tally overall;
    std::map<std::string, Tally> splits, types;
    const auto typeName = [&](const MentionKey& key) {
        std::string type = typeOf ? typeOf(key) : std::string();
        return type.empty() ? std::string(kUnknownType) : type;
    };
    for (const auto& [key, category] : a) {
        Tally& split = splits[key.split];
        Tally& type = types[typeName(key)];
        const auto other = b.find(key);
        if (other == b.end()) {
            ++overall.onlyA, ++split.onlyA, ++type.onlyA;
            continue;
        }
        for (Tally* tally : {&overall, &split, &type}) tally->pairs.emplace_back(category, other->second);
    }
    for (const auto& [key, category] : b)
        if (!a.contains(key)) {
            ++overall.onlyB;
            ++splits[key.split].onlyB;
            ++types[typeName(key)].onlyB;
        }
    AgreementReport report;
    report.overall = figuresOf(overall);
    for (const auto& [name, tally] : splits) report.perSplit[name] = figuresOf(tally);
    for (const auto& [name, tally] : types) report.perType[name] = figuresOf(tally);
    return report;
}

}  // namespace linkscope::curation
