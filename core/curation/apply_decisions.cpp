#include "curation/apply_decisions.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "corpus/link_column.h"
#include "util/error.h"

namespace linkscope::curation {
namespace {

using project::Decision;

std::string describe(const Decision& decision) {
    return "decision " + std::to_string(decision.id) + " (" + decision.mention.split + " document " +
           decision.mention.document + ", offsets " + std::to_string(decision.mention.start) + "-" +
           std::to_string(decision.mention.end) + ", \"" + decision.mentionText + "\", " +
           std::string(project::decisionKindName(decision.kind)) + ")";
}

// The link a decision leaves, as the mention will hold it.
struct NewLink {
    ConceptIdList ids;
    std::string column;
    bool unlinked = false;
};

NewLink newLinkOf(const std::string& link) {
    NewLink result;
    result.unlinked = link.empty();
    result.ids = parseConceptIdList(link);  // "" and "-1" both parse as CUI-less
    result.column = result.unlinked ? std::string() : formatLinkColumn(result.ids);
    return result;
}

bool sameLink(const Mention& mention, const NewLink& link) {
    return sameIds(mention.ids, link.ids) && isUnlinked(mention) == link.unlinked;
}

}  // namespace

Corpus applyDecisions(const Corpus& corpus, std::string_view split, std::span<const project::Decision> done,
                      ApplySummary* summary) {
    ApplySummary counts;
    std::vector<std::string> problems;
    std::vector<const Decision*> ours;
    for (const Decision& decision : done) {
        if (decision.state != project::DecisionState::Done) {
            problems.push_back(describe(decision) + ": not in effect (state " +
                               std::string(project::decisionStateName(decision.state)) + ")");
            continue;
        }
        if (decision.mention.split != split) {
            ++counts.otherSplits;
            continue;
        }
        ours.push_back(&decision);
    }
    // In order of recording: a later decision on the same mention overrides an earlier one.
    std::stable_sort(ours.begin(), ours.end(), [](const Decision* a, const Decision* b) { return a->id < b->id; });

    Corpus result = corpus;
    std::set<std::pair<std::size_t, std::size_t>> touched;  // (document, mention) indexes
    const auto documents = result.documents();
    for (const Decision* decision : ours) {
        ++counts.decisions;
        Document* document = result.find(decision->mention.document);
        if (!document) {
            problems.push_back(describe(*decision) + ": no document " + decision->mention.document + " in the corpus");
            continue;
        }
        const auto documentIndex = static_cast<std::size_t>(document - documents.data());
        std::vector<std::size_t> matches;
        for (std::size_t i = 0; i < document->mentions.size(); ++i)
            if (document->mentions[i].start == decision->mention.start &&
                document->mentions[i].end == decision->mention.end)
                matches.push_back(i);
        if (matches.empty()) {
            problems.push_back(describe(*decision) + ": no mention at these offsets in document " + document->pmid());
            continue;
        }
        if (!decision->mentionText.empty() && document->mentions[matches.front()].text != decision->mentionText) {
            problems.push_back(describe(*decision) + ": the mention there reads \"" +
                               document->mentions[matches.front()].text + "\" (the corpus changed)");
            continue;
        }
        const auto link = project::decidedLink(*decision);
        NewLink newLink;
        if (link) {
            try {
                newLink = newLinkOf(*link);
            } catch (const Error& e) {
                problems.push_back(describe(*decision) + ": its link \"" + *link + "\" does not parse: " + e.what());
                continue;
            }
        }
        // Several mentions may share the offsets (same span, other type): the key names them all.
        for (const std::size_t index : matches) {
            touched.emplace(documentIndex, index);
            Mention& mention = document->mentions[index];
            if (!link || sameLink(mention, newLink)) continue;  // skip, or the link it already has
            mention.ids = newLink.ids;
            mention.idColumn = newLink.column;
        }
    }
    if (!problems.empty()) {
        std::string message = std::to_string(problems.size()) + " curation decision" +
                              (problems.size() == 1 ? "" : "s") + " cannot be applied to split \"" +
                              std::string(split) + "\" (corpus " + corpus.name + "):";
        for (const auto& problem : problems) message += "\n  " + problem;
        throw Error(message);
    }
    const auto original = corpus.documents();
    for (const auto& [documentIndex, mentionIndex] : touched) {
        const Mention& before = original[documentIndex].mentions[mentionIndex];
        const Mention& after = documents[documentIndex].mentions[mentionIndex];
        const bool same = sameIds(before.ids, after.ids) && before.idColumn == after.idColumn;
        ++(same ? counts.unchangedMentions : counts.changedMentions);
    }
    if (summary) *summary = counts;
    return result;
}

}  // namespace linkscope::curation
