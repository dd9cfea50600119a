#pragma once
// What `eval` and `index` share: reading the KB and corpora named on the command line and building
// BioSyn's evaluation dictionary (KB names + training mentions, + dev mentions for a test run) and
// queries, so that an index built by `index` fits the dictionary `eval` searches.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "corpus/corpus.h"
#include "corpus_arguments.h"
#include "eval/queries.h"
#include "kb/knowledge_base.h"
#include "kb_arguments.h"
#include "retrieval/name_dictionary.h"
#include "text/spelling_map.h"

namespace CLI {
class App;
}

namespace linkscope::cli {

struct DictionaryArguments {
    std::vector<std::filesystem::path> train;
    std::vector<std::filesystem::path> dev;
    std::vector<std::filesystem::path> test;
    /// MedMentions' layout: one corpus, the splits by --split-pmids train=... dev=... test=...
    std::filesystem::path corpus;
    CorpusArguments corpusOptions;
    std::filesystem::path kb;
    std::string kbFormat = "auto";
    KbFilterArguments kbFilters;
    std::filesystem::path spelling;
    std::string split = "test";
    std::vector<std::string> types;
    bool homonymExpansion = false;
    bool noAbbreviations = false;
    bool noComposites = false;

    /// Registers --train --dev --test (or --corpus with --split-pmids, --corpus-format) --kb
    /// --kb-format (with the UMLS filters) --spelling --split --types --homonym-expansion
    /// --no-abbreviations --no-composites.
    void addOptions(CLI::App& command);
    /// Error for a split without its files, or one given twice (a file and a PMID list).
    void validate() const;
};

/// The KB and corpora, read once.
struct CorpusSetup {
    std::unique_ptr<kb::KnowledgeBase> kb;
    std::shared_ptr<const text::SpellingMap> spelling;
    Corpus train;
    Corpus dev;
    Corpus evaluated;  ///< the split under evaluation

    static CorpusSetup read(const DictionaryArguments& args);
};

/// The dictionary searched and the queries of the evaluated split.
struct EvalData {
    retrieval::NameDictionary dictionary;
    eval::QuerySet queries;
    std::unordered_set<std::string> trainingIds;  ///< gold ids of the training mentions
    /// The training mentions as queries: the kNN datastore's keys.
    std::vector<eval::EvalQuery> trainQueries;
    /// dictionary[0, kbEntries) are the KB's names (the sieve's O); the mentions follow.
    std::size_t kbEntries = 0;
};

/// How the mentions become queries: BioSyn's preprocessing (abbreviations, composites) unless
/// `preprocess` is false or the arguments turn a step off; the --types filter.
eval::QueryOptions queryOptionsOf(const DictionaryArguments& args, const CorpusSetup& setup, bool preprocess = true);

/// BioSyn's preprocessing (abbreviations, composites) unless `preprocess` is false or the
/// arguments turn a step off.
EvalData buildEvalData(const DictionaryArguments& args, const CorpusSetup& setup, bool preprocess = true);

}  // namespace linkscope::cli
