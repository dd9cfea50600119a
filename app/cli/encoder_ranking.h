#pragma once
// An encoder checkpoint ranking a dictionary, as `eval --method dense|hybrid` and `link --model`
// rank with it: S_dense over the dictionary's vectors (dense), or BioSyn's S_dense + lambda x
// S_sparse (hybrid). The mentions are encoded batch by batch inside the ranking. Needs LibTorch.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "console_progress.h"
#include "dense_dictionary.h"
#include "encoder/text_encoder.h"
#include "encoder_options.h"
#include "eval/evaluate.h"
#include "retrieval/hybrid_ranker.h"
#include "retrieval/name_dictionary.h"
#include "sparse_index_setup.h"

namespace linkscope::cli {

/// The dictionary's vectors and index (and, for hybrid, the sparse index and the ranker that
/// combines them). `rank` refers to the members, the encoder and the dictionary: the ranking is
/// made in place (prepareEncoderRanking) and never moved.
struct EncoderRanking {
    std::string method;  ///< "dense" or "hybrid"
    float sparseWeight = 1.0f;
    DenseDictionary dense;
    std::optional<PreparedSparseIndex> sparse;  ///< hybrid
    std::optional<retrieval::HybridRanker> hybrid;
    std::string sparseDescription;  ///< hybrid: the sparse half, as SparseIndexArguments::describe says it
    double seconds = 0.0;           ///< preparing the indexes
    eval::RankFn rank;

    /// "encoder MODEL (cls pooling, cpu), flat index[ + LAMBDA x tf-idf ...]".
    std::string describe(const std::filesystem::path& model, const encoder::TextEncoder& encoder) const;
};

/// Prepares the dense index (prepareDenseDictionary) and, for hybrid, the sparse one
/// (prepareSparseIndex), reporting their stages to `progress`. method: "dense" or "hybrid". The
/// encoder and the dictionary must outlive the ranking.
std::unique_ptr<EncoderRanking> prepareEncoderRanking(const std::string& method, const encoder::TextEncoder& encoder,
                                                      const retrieval::NameDictionary& dictionary,
                                                      const DenseIndexArguments& denseArgs,
                                                      const SparseIndexArguments& sparseArgs, float sparseWeight,
                                                      unsigned threads, ConsoleProgress& progress);

/// Hybrid's lambda with the checkpoint folder `model`: `weight` when --sparse-weight was given
/// (`given`), else the value of BioSyn's sparse_weight.pt when the folder has one, else `weight`
/// (the default). Says on stderr where lambda came from, and, for a folder with BioSyn's
/// sparse_encoder.pk, that the pickle is not loaded and the sparse index is refit with BioSyn's
/// settings (encoder/biosyn_folder.h).
float hybridSparseWeight(const std::filesystem::path& model, float weight, bool given);

}  // namespace linkscope::cli
