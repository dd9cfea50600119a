#include "curation/curator_merge.h"

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <tuple>

#include "curation/adjudication.h"
#include "curation/agreement.h"
#include "project/project_store.h"
#include "project/referenced_corpora.h"
#include "util/error.h"

namespace linkscope::curation {
namespace {

using project::Decision;

std::string fileName(const std::filesystem::path& path) {
    return path.empty() ? std::string() : path.filename().string();
}

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (const auto& item : items) text += (text.empty() ? "" : ",") + item;
    return text;
}

// What makes a decision the same decision in two files (the id differs after a merge).
using Identity = std::tuple<project::MentionKey, std::string, std::string, std::string, std::string>;
Identity identityOf(const Decision& decision, const std::string& curator) {
    return {decision.mention, std::string(project::decisionKindName(decision.kind)), decision.newLink, curator,
            decision.timestamp};
}

}  // namespace

std::optional<std::string> sameManifestProblem(const ProjectManifest& a, const ProjectManifest& b) {
    const auto differ = [](const std::string& what, const std::string& x, const std::string& y) {
        return what + " differs (\"" + x + "\" against \"" + y + "\")";
    };
    const KbReference& ka = a.knowledgeBase;
    const KbReference& kb = b.knowledgeBase;
    if (fileName(ka.path) != fileName(kb.path))
        return differ("the knowledge base file", fileName(ka.path), fileName(kb.path));
    if (ka.format != kb.format)
        return differ("the knowledge base format", kbFormatName(ka.format), kbFormatName(kb.format));
    if (ka.semanticTypeFilter != kb.semanticTypeFilter || ka.sources != kb.sources || ka.languages != kb.languages)
        return differ("the knowledge base filters",
                      joined(ka.semanticTypeFilter) + ";" + joined(ka.sources) + ";" + joined(ka.languages),
                      joined(kb.semanticTypeFilter) + ";" + joined(kb.sources) + ";" + joined(kb.languages));
    std::vector<std::string> splitsA, splitsB;
    for (const auto& corpus : a.corpora) splitsA.push_back(corpus.split);
    for (const auto& corpus : b.corpora) splitsB.push_back(corpus.split);
    if (splitsA != splitsB) return differ("the splits", joined(splitsA), joined(splitsB));
    for (std::size_t i = 0; i < a.corpora.size(); ++i) {
        const CorpusReference& x = a.corpora[i];
        const CorpusReference& y = b.corpora[i];
        const std::string split = "split \"" + x.split + "\": ";
        if (x.format != y.format)
            return differ(split + "the corpus format", std::string(corpusFormatName(x.format)),
                          std::string(corpusFormatName(y.format)));
        if (fileName(x.path) != fileName(y.path))
            return differ(split + "the corpus file", fileName(x.path), fileName(y.path));
        if (fileName(x.pmidList) != fileName(y.pmidList))
            return differ(split + "the PMID list", fileName(x.pmidList), fileName(y.pmidList));
    }
    return std::nullopt;
}

void requireSameManifest(const project::ProjectStore& a, const project::ProjectStore& b) {
    if (const auto problem = sameManifestProblem(a.manifest(), b.manifest()))
        throw Error(a.file().string() + " and " + b.file().string() +
                    " are not projects of the same manifest: " + *problem);
}

std::function<bool(const project::MentionKey&)> mentionLookup(std::span<const SplitCorpus> corpora) {
    auto keys = std::make_shared<std::set<project::MentionKey>>();
    for (const SplitCorpus& split : corpora)
        for (const Document& document : split.corpus.documents())
            for (const Mention& mention : document.mentions)
                keys->insert({split.split, document.pmid(), mention.start, mention.end});
    return [keys](const project::MentionKey& key) { return keys->contains(key); };
}

namespace {

// The check of requireDecidedMentionsExist on decisions already read from `file`.
void requireMentionsExist(const std::filesystem::path& file, std::span<const Decision> decisions,
                          const std::function<bool(const project::MentionKey&)>& exists) {
    for (const Decision& decision : decisions) {
        if (decision.state != project::DecisionState::Done || exists(decision.mention)) continue;
        throw Error(file.string() + ": decision " + std::to_string(decision.id) + " (curator \"" + decision.curator +
                    "\") names no mention of the project's corpora: split " + decision.mention.split + ", document " +
                    decision.mention.document + ", offsets " + std::to_string(decision.mention.start) + "-" +
                    std::to_string(decision.mention.end) + " (another version of the corpus, or a damaged file)");
    }
}

}  // namespace

void requireDecidedMentionsExist(const project::ProjectStore& store,
                                 const std::function<bool(const project::MentionKey&)>& exists) {
    requireMentionsExist(store.file(), store.decisions(), exists);
}

MergeSummary mergeDecisions(project::ProjectStore& into, const project::ProjectStore& from, const MergeOptions& options,
                            const ProgressSink& progress) {
    // One project under two names: the same file (whatever the path), or the same server address.
    std::error_code ec;
    const bool same = into.onServer() || from.onServer()
                          ? into.onServer() && from.onServer() && into.file() == from.file()
                          : std::filesystem::equivalent(into.file(), from.file(), ec);
    if (same) throw Error(into.file().string() + ": cannot merge a project into itself");
    // Both files in full before anything is read for the merge: a damaged index would hide or
    // repeat decisions, and every error names the file it found the damage in.
    (void)from.checkIntegrity();
    (void)into.checkIntegrity();
    requireSameManifest(into, from);

    const auto curatorOf = [&](const Decision& decision) {
        return options.importAs.empty() ? decision.curator : options.importAs;
    };
    const std::vector<Decision> theirs = from.decisions();
    const std::vector<Decision> ours = into.decisions();
    std::set<Identity> present, inFrom;
    for (const Decision& decision : ours) present.insert(identityOf(decision, decision.curator));
    for (const Decision& decision : theirs) inFrom.insert(identityOf(decision, curatorOf(decision)));

    MergeSummary summary;
    std::vector<Decision> toImport;
    std::set<std::string> importedCurators;
    for (const Decision& decision : theirs) {
        if (decision.state != project::DecisionState::Done) {
            ++summary.notInEffect;
            continue;
        }
        if (present.contains(identityOf(decision, curatorOf(decision)))) {
            ++summary.alreadyPresent;
            continue;
        }
        Decision copy = decision;
        copy.curator = curatorOf(decision);
        if (importedCurators.insert(copy.curator).second) summary.curators.push_back(copy.curator);
        toImport.push_back(std::move(copy));
    }
    // A name of this file's curators among the imported ones: refused unless all of its
    // decisions here came from the other file (an earlier merge of it).
    for (const Decision& decision : ours)
        if (importedCurators.contains(decision.curator) && !inFrom.contains(identityOf(decision, decision.curator)))
            throw Error(into.file().string() + ": cannot merge " + from.file().string() +
                        ": both files hold decisions by curator \"" + decision.curator +
                        "\", which could then no longer be told apart; import them under another name");

    if (options.mentionExists) requireMentionsExist(from.file(), theirs, options.mentionExists);
    // The disagreements counted below read every link: a link that does not parse is refused
    // now, naming its file, rather than after the merge.
    requireReadableLinks(from.file(), theirs);
    requireReadableLinks(into.file(), ours);

    for (Decision& decision : toImport) decision.id = 0;
    const std::size_t count = toImport.size();
    into.recordAll(std::move(toImport), [&](std::size_t index) {
        progress.checkCancelled();
        if (index % 256 == 0) progress("Merging decisions", static_cast<double>(index) / static_cast<double>(count));
    });
    summary.imported = count;
    progress("Merging decisions", 1.0);
    summary.openDisagreements = openDisagreements(into.doneDecisions());
    return summary;
}

}  // namespace linkscope::curation
