#pragma once
// Merging another curator's project file into the open one, and the check that two
// project files were made from the same manifest.
//
// What the merge does, and why:
//  - Only files of the same manifest merge (sameManifestProblem): decisions name mentions by
//    split, document and offsets, which mean the same only over the same corpora. With the
//    corpora at hand (MergeOptions::mentionExists: the GUI and the CLI pass them), a decision
//    naming no mention of them refuses the merge before anything is recorded.
//  - Both files get SQLite's full check (ProjectStore::checkIntegrity) and every decision row
//    its checksum check first; a decision whose link does not parse is refused. Each refusal
//    names the file that holds the damage.
//  - The other file's decisions in effect are recorded into this one, in their order, each with
//    its curator, timestamp, kind, links and mention text as they were (new ids, state done).
//    Undone and discarded decisions of the other file are its private undo history and stay
//    there. All are recorded in ONE transaction (ProjectStore::recordAll): a merge cancelled,
//    failed or killed at any point leaves this file exactly as it was, its redo stack included;
//    once it returns, every imported decision is durable. Like any new decision, the merge
//    discards this file's redo stack. The transaction holds this file's write lock while it
//    runs; a second connection (the GUI recording a decision) waits for it (project_store.h),
//    and the GUI merges on a worker with its own ProjectStore on the file. Undo in this file
//    takes the imported decisions back one by one, newest first.
//  - Nothing is overwritten: both curators' decisions stay, and adjudication.h tells each one's
//    link in effect and the disagreements.
//  - Repeating a merge imports only what is new: a decision already in this file (same mention,
//    kind, new link, curator and timestamp, whatever its state) is not imported again.
//  - Curators are told apart by name, so a name that decided in both files is refused (two
//    people, or one person in two copies, whose decisions could no longer be told apart) --
//    unless every decision of that name in this file is also in the other file (a repeated
//    merge). MergeOptions::importAs renames the imported curator instead.
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "project/curation_decision.h"
#include "project/project_manifest.h"
#include "util/progress.h"

namespace linkscope {
struct SplitCorpus;
}

namespace linkscope::project {
class ProjectStore;
}

namespace linkscope::curation {

/// Why two project files are not of the same manifest, or nullopt when they are. Compared: the
/// splits (names and order), each split's corpus format, corpus file name and PMID-list file
/// name, and the knowledge base's file name, format and filters. Folders are not compared (a
/// copy of the project and its corpora on another machine lies elsewhere), nor the project's
/// name and description (labels, not data).
std::optional<std::string> sameManifestProblem(const ProjectManifest& a, const ProjectManifest& b);
/// Throws Error naming both project files when sameManifestProblem() finds a difference.
void requireSameManifest(const project::ProjectStore& a, const project::ProjectStore& b);

/// Whether the corpora hold a mention at a key (split, document, offsets): a lookup built once.
std::function<bool(const project::MentionKey&)> mentionLookup(std::span<const SplitCorpus> corpora);
/// Throws Error naming the file and the first decision in effect of `store` that names no
/// mention `exists` knows (another corpus version, or a damaged file).
void requireDecidedMentionsExist(const project::ProjectStore& store,
                                 const std::function<bool(const project::MentionKey&)>& exists);

struct MergeOptions {
    /// When not empty, every imported decision is recorded under this curator name.
    std::string importAs;
    /// When set, whether the corpora hold a mention at this key: a decision to import that names
    /// none (another corpus version, or a damaged file) refuses the whole merge before anything
    /// is recorded, naming the other file and the decision, so that it cannot enter this file
    /// (where export would then refuse it). Unset: not checked (the corpora are not at hand).
    std::function<bool(const project::MentionKey&)> mentionExists;
};

struct MergeSummary {
    std::size_t imported = 0;           ///< decisions recorded into this file
    std::size_t alreadyPresent = 0;     ///< decisions in effect of the other file found here already
    std::size_t notInEffect = 0;        ///< the other file's undone or discarded decisions, not imported
    std::vector<std::string> curators;  ///< the curators of the imported decisions
    std::size_t openDisagreements = 0;  ///< in this file after the merge (adjudication.h)
};

/// Records `from`'s decisions in effect into `into` (see above). Throws, having recorded
/// nothing, when either file is damaged (naming it), the files are one and the same, of
/// different manifests, or a curator name is in both, and for any failure while recording,
/// Cancelled included (asked before each decision).
MergeSummary mergeDecisions(project::ProjectStore& into, const project::ProjectStore& from,
                            const MergeOptions& options = {}, const ProgressSink& progress = {});

}  // namespace linkscope::curation
