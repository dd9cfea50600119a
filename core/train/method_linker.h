#pragma once
// Inference as each method does it, for a trained (or untrained) encoder: the trainer validates
// with it after every epoch, and `linkscope-cli eval` / the GUI link with it from a run directory.
// Torch-free: it drives a TextEncoder and the retrieval indexes.
//
// The inputs it ranks are the method's mention inputs (method_inputs.h: the normalized query
// part, or the part marked in its sentence), one per query part; the candidates are entries of
// the dictionary, best first:
//   biosyn        S = dense dot + lambda * sparse (BioSyn's char 1-2 TF-IDF), HybridRanker
//   belhd         dense dot over "[S] name [E]" vectors (projection head when the model has one)
//   triplet       cosine over names (Xu & Bethard's O-T search; the sieves are curation's)
//   knn-bioel     cosine over names
//   prototype-srn two stages: `prototype.candidates` entries from the first stage (sparse:
//                 Le & Nguyen's char 2-5 + word unigram TF-IDF; dense: the encoder over names),
//                 re-ranked by -Euclidean distance between the mention vector and the vector of the
//                 candidate's entity input "type [SEP] syn1 [SEP] ..." (computed once per entity
//                 and cached); several entries of one entity keep the first stage's best one.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "eval/evaluate.h"
#include "retrieval/name_dictionary.h"
#include "train/method_inputs.h"
#include "train/training_preset.h"
#include "util/progress.h"

namespace linkscope {
class Corpus;
}
namespace linkscope::encoder {
class TextEncoder;
}
namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::train {

/// Dictionaries above this many entries keep their name vectors compact (LinkerOptions).
inline constexpr std::size_t kCompactNameVectorsAbove = 1'000'000;

struct LinkerOptions {
    double sparseWeight = 1.0;  ///< BioSyn's lambda (the learned value of a run)
    /// The dictionary's name vectors when the caller has them (the trainer after re-encoding the
    /// KB): row i = the method's nameInput() of entry i. Empty: the linker encodes them.
    std::vector<float> entryVectors;
    std::size_t threads = 0;  ///< sparse search threads; 0: hardware
    /// Above this many entries, a linker that encodes the names itself encodes them in chunks
    /// into an IVF-fp16 index (retrieval/dense_index.h) and keeps no other copy: UMLS's 8 M
    /// names of 256 dimensions take 4 GB instead of three float copies of 8 GB (the encoded
    /// rows, the rows as searched, the flat index's). Candidates are then the IVF's (its recall
    /// against exact search: benchmarks/dense_scale) and scores those of the fp16 vectors;
    /// entryVectors() is empty. Below it, and whenever entryVectors is given, search is exact.
    std::size_t compactAbove = kCompactNameVectorsAbove;
    std::size_t compactProbes = 64;  ///< IVF lists searched per query in that case
};

/// One ranked candidate with the parts of its score, for the candidate view's breakdown.
struct LinkedCandidate {
    std::uint32_t entry = 0;
    float score = 0.0f;   ///< what the ranking sorts by
    float dense = 0.0f;   ///< the encoder's similarity (dot, cosine or -distance)
    float sparse = 0.0f;  ///< TF-IDF cosine, 0 when the method has no sparse score
};

class MethodLinker {
public:
    /// Encodes the dictionary (unless options.entryVectors holds it) and builds what the method
    /// searches. kb is needed by prototype-srn (entity inputs) and may be null otherwise. The
    /// encoder, dictionary and kb must outlive the linker. progress: "Encoding names"; Cancelled.
    MethodLinker(const TrainingPreset& preset, const encoder::TextEncoder& encoder,
                 const retrieval::NameDictionary& dictionary, const kb::KnowledgeBase* kb, LinkerOptions options = {},
                 const ProgressSink* progress = nullptr);
    MethodLinker(MethodLinker&&) noexcept;
    MethodLinker& operator=(MethodLinker&&) noexcept;
    ~MethodLinker();

    /// The top k of each mention input, best first (ties by entry). Error naming the input when
    /// a context method's input lacks its markers.
    std::vector<std::vector<LinkedCandidate>> rank(std::span<const std::string> inputs, std::size_t k) const;
    /// rank() for inputs already encoded: vectors = encodeMentions(inputs), row-major. The
    /// retrieval-enhanced linker (curation/augmented_linker.h) encodes each mention once for
    /// the model's ranking, the datastore search and the curator's feedback.
    std::vector<std::vector<LinkedCandidate>> rank(std::span<const std::string> inputs, std::span<const float> vectors,
                                                   std::size_t k) const;
    /// The mention inputs as the method encodes them (raw vectors, inputs x dimension()).
    std::vector<float> encodeMentions(std::span<const std::string> inputs) const;
    /// The exact score (and its parts) of chosen entries for one encoded input, as rank() scores
    /// them: what the kNN interpolation needs for an entity the neighbours name but the model's
    /// top list lacks. Error for an entry outside the dictionary.
    std::vector<LinkedCandidate> score(const std::string& input, std::span<const float> vector,
                                       std::span<const std::uint32_t> entries) const;
    const TrainingPreset& preset() const noexcept;

    /// rank() as the evaluation engine calls it (inputs: what EvalOptions::partText gives).
    eval::RankFn rankFunction() const;

    /// The dictionary's name vectors (entries x dimension), as encoded or given; empty when the
    /// linker keeps them compact (LinkerOptions::compactAbove).
    std::span<const float> entryVectors() const noexcept;
    /// Whether the name vectors are kept compact, in an IVF-fp16 index only.
    bool compactNameVectors() const noexcept;
    std::size_t dimension() const noexcept;

private:
    struct State;
    std::unique_ptr<State> state_;
};

/// The evaluation option that turns query parts into the method's mention inputs: the part, or
/// the part marked in the sentence of its mention in `corpus` (the corpus the queries came from).
/// Error naming the query when its document is not in the corpus.
/// With a token counter (the encoder's tokenizer), the context is cut to fit preset.maxLength.
std::function<std::string(const eval::EvalQuery&, std::size_t part)> mentionInputs(const TrainingPreset& preset,
                                                                                   const Corpus& corpus,
                                                                                   TokenCounter count = {});

}  // namespace linkscope::train
