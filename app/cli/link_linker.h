#pragma once
// The linker of `linkscope-cli link`, built once from the KB, the dictionary and the model, and
// then asked to rank any number of chunks of the corpus (nothing in it depends on the corpus being
// linked). Built as `eval` builds the same linker, with the same code:
//
//   --method sparse                 BioSyn's TF-IDF over the dictionary (dictionary_setup.h)
//   --model DIR [--method dense]    an encoder checkpoint: S_dense over the dictionary's vectors
//   --model DIR --method hybrid     BioSyn's S_dense + --sparse-weight x S_sparse
//   --run RUN (or --model RUN)      a training run, linked as its method links (run_eval.h), and
//                                   with --knn, --sieve or one --linking item as eval takes them
//
// The dictionary is eval's: the KB's names, plus the mentions of --train (and --dev when given).
// The linker's identity is what a shard manifest records: a description for people and a
// fingerprint (the encoder's and the dictionary's) that tells whether two runs link alike.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "augment_options.h"
#include "console_progress.h"
#include "corpus/corpus.h"
#include "corpus_arguments.h"
#include "dictionary_setup.h"
#include "encoder_options.h"
#include "eval/evaluate.h"
#include "eval/queries.h"
#include "retrieval/dictionary_fingerprint.h"
#include "retrieval/name_dictionary.h"
#include "sparse_index_setup.h"

namespace CLI {
class App;
}
namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::cli {

/// `link`'s dictionary arguments as eval's: with --dev, as for the test split (train and dev
/// mentions), else the dev split's (the KB's names, and --train's mentions when given).
DictionaryArguments linkData(const DictionaryArguments& data);
/// The KB, spelling map and --train / --dev corpora that `link` (and `index` for it) reads.
CorpusSetup readLinkSetup(const DictionaryArguments& data, const CorpusArguments& corpusOptions);

/// The options of `link` that choose and build its linker.
struct LinkerArguments {
    std::string method;  ///< --method sparse|dense|hybrid; empty: sparse, dense with --model, the run's with --run
    EncoderArguments encoder;     ///< --model DIR and its encoding options
    DenseIndexArguments dense;    ///< --dense-index, --dense-kind, ...
    SparseIndexArguments sparse;  ///< --index, --sparse-search, --sparse-candidates
    float sparseWeight = 1.0f;    ///< --sparse-weight (hybrid)
    std::filesystem::path run;    ///< --run RUN_DIR
    AugmentArguments augment;     ///< --knn, --sieve, --linking, --datastore, --project (with a run)
    unsigned threads = 0;         ///< --threads: search threads, 0: one per core
    /// The options given that choose another linker than a run's (noteGiven): refused with --run.
    std::vector<std::string> linkerOptions;

    /// Registers the options above on `command`.
    void addOptions(CLI::App& command);
    /// Fills linkerOptions from what `command` parsed; call before prepareLinker, and before
    /// anything is read: in linkscope-cli, a linker that needs a model is handed over to
    /// linkscope-cli-dense here (dense_engine.h).
    void noteGiven(const CLI::App& command);
};

/// What identifies the links a linker writes: the same fingerprint and description, the same links
/// for the same input and settings. Written as the BioC infon linkscope_fingerprint, printed by
/// `link`, and recorded in shard manifests.
struct LinkerFingerprint {
    /// The encoder's: TextEncoder::fingerprint() (configuration, weights, tokenizer) with the
    /// pooling, max length and normalization it encodes with; empty for the sparse linker.
    std::string model;
    retrieval::DictionaryFingerprint dictionary;
    /// The kNN datastore's, when one is searched: a hash of its keys (ids, entities, vectors) and
    /// of the encoder that made them (retrieval/datastore_fingerprint.h).
    std::string datastore;

    bool operator==(const LinkerFingerprint&) const = default;
    /// One line: "dictionary 73,024 names, fingerprint 0x...; model 0f3a..., pooling cls, max length 25".
    std::string text() const;
};

/// A linker ready to rank. It owns the KB, the dictionary, the model and the indexes; `rank` and
/// partTextFor's functions refer to them, so the PreparedLinker must outlive their use.
struct PreparedLinker {
    struct State;
    std::shared_ptr<const State> state;

    /// The KB the mentions' ids are resolved in (homonym-expanded when the run's preset is).
    const kb::KnowledgeBase& kb() const;
    /// The dictionary ranked: the KB's names, then the --train (and --dev) mentions.
    const retrieval::NameDictionary& dictionary() const;
    /// How a chunk's mentions become queries (curation::linkQueries).
    eval::QueryOptions queryOptions;
    /// Ranks query parts (or what partTextFor gives for them); thread-compatible, reusable.
    eval::RankFn rank;
    /// For a linker that reads a mention in its sentence (a run of a context method): the text
    /// ranked for a query part of `chunk` (the corpus the queries came from; it must outlive the
    /// function returned). Empty when the part's own text is ranked.
    std::function<std::function<std::string(const eval::EvalQuery&, std::size_t)>(const Corpus& chunk)> partTextFor;
    /// "sparse char 1-2, lowercase, l2, smooth idf", "dense encoder DIR (cls pooling, cpu), flat index",
    /// "run RUN: triplet ... linking knn (k 4, ...)": the linkscope_linker infon.
    std::string description;
    LinkerFingerprint fingerprint;

    /// The queries of `chunk`'s mentions (curation::linkQueries with queryOptions).
    eval::QuerySet queriesOf(const Corpus& chunk) const;
};

/// Reads the KB (and --spelling, --train, --dev) and builds the linker the arguments choose,
/// reporting its stages to `progress`. Error for options that do not go together (e.g. --knn
/// without --run), a model that cannot be loaded, or a dense linker in a build without LibTorch.
PreparedLinker prepareLinker(const LinkerArguments& args, const DictionaryArguments& data,
                             const CorpusArguments& corpusOptions, ConsoleProgress& progress);

}  // namespace linkscope::cli
