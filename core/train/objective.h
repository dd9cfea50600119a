#pragma once
// The method-specific half of the trainer: how an epoch is cut into batches, what is refreshed
// with the current model (KB vectors, candidates, hard negatives) and the loss of a batch. The
// trainer (trainer.cpp) owns the loop, the optimizer, checkpoints and validation. Internal:
// includes torch.
#include <torch/torch.h>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "encoder/bert_model.h"
#include "encoder/text_encoder.h"
#include "train/checkpoint_tables.h"
#include "train/training_data.h"
#include "train/training_preset.h"
#include "util/error.h"
#include "util/progress.h"

namespace linkscope::kb {
class KnowledgeBase;
}

namespace linkscope::train {

/// Embeds texts through the model with gradients (training mode), as TextEncoder::encode does
/// without them: same tokenization, same pooling, same batching tensors.
class GradientEncoder {
public:
    GradientEncoder(encoder::BertEncoderModel& model, const encoder::BertTokenizer& tokenizer, torch::Device device);
    /// [texts, dimension]; Error naming a text that lost the pooling's markers.
    torch::Tensor embed(std::span<const std::string> texts, std::size_t maxLength, encoder::Pooling pooling,
                        bool normalize);
    torch::Device device() const noexcept { return device_; }
    /// For an objective that reads the token states itself (the masked-LM stage).
    encoder::BertEncoderModel& model() noexcept { return model_; }
    const encoder::BertTokenizer& tokenizer() const noexcept { return tokenizer_; }

private:
    encoder::BertEncoderModel& model_;
    const encoder::BertTokenizer& tokenizer_;
    torch::Device device_;
};

/// A scalar the method learns beside the encoder (BioSyn's lambda, Le & Nguyen's radius), with
/// its own learning rate when it has one.
struct LearnedScalar {
    std::string name;
    torch::Tensor value;                 ///< one element, requires grad
    std::optional<double> learningRate;  ///< nullopt: the schedule's
};

class Objective {
public:
    virtual ~Objective() = default;

    /// The epoch's batches: indexes of the objective's units (mentions, names, ...), in an
    /// order drawn from rng; every batch holds at most batchSize examples.
    virtual std::vector<std::vector<std::size_t>> batches(std::mt19937_64& rng, std::size_t batchSize) const = 0;
    /// Re-encodes with the current model what the method retrieves from (start of every epoch,
    /// and every kbRefreshSteps steps): candidates, hard negatives. The model is in eval mode.
    /// `names`: empty, or the vectors of data.nameInputs that the validation's MethodLinker has
    /// just computed with this same model (see encodesLinkerNames); an objective that encodes
    /// those names takes them instead of encoding the dictionary a second time.
    virtual void refresh(const encoder::TextEncoder& encoder, const ProgressSink& progress,
                         std::vector<float> names) = 0;
    /// True when refresh() encodes data.nameInputs exactly as MethodLinker encodes the
    /// dictionary's names (the same texts, entityMaxLength tokens, the model's pooling, raw
    /// vectors, normalized afterwards if at all), so that the linker's entry vectors stand in
    /// for them bit for bit: a resume that re-encodes them must see the same vectors. Prototype-srn's refresh encodes entity
    /// inputs with [CLS] pooling instead, and the triplet objective encodes nothing.
    virtual bool encodesLinkerNames() const { return false; }
    /// The loss of one batch (backward() is the trainer's).
    virtual torch::Tensor loss(std::span<const std::size_t> batch, GradientEncoder& encoder, std::mt19937_64& rng) = 0;
    /// Examples a batch counts (mentions or names), for the speed report.
    virtual std::size_t examples(std::span<const std::size_t> batch) const { return batch.size(); }

    virtual std::vector<LearnedScalar> scalars() { return {}; }
    /// Weights the objective owns beside the encoder (the masked-LM stage's prediction head):
    /// the trainer optimizes them with the schedule's learning rate and weight decay and keeps
    /// them in every checkpoint (objective.pt); they are not part of the saved model.
    virtual std::vector<torch::Tensor> parameters() { return {}; }
    /// True when validateHeldOut() has data to score.
    virtual bool holdsOut() const { return false; }
    /// For an objective whose method validatesOwnData(): the score of the current model on its
    /// held-out data (higher is better; the masked-LM stage's masked-token accuracy), with the
    /// model in eval mode. nullopt when it holds nothing out.
    virtual std::optional<double> validateHeldOut(encoder::BertEncoderModel&, torch::Device, const ProgressSink&) {
        return std::nullopt;
    }
    /// The name vectors of the last refresh (nameInputs order), for validation; empty if none.
    virtual const std::vector<float>& nameVectors() const { return noVectors_; }

    /// What refresh() computed, for a checkpoint: resuming mid-epoch must see the same
    /// candidates, not ones recomputed with the later model (checkpoint_tables.h).
    virtual void saveState(const std::filesystem::path& directory) const = 0;
    /// Reads back what saveState wrote, for a model of `dimension` (TextEncoder::dimension):
    /// every table of another size, and every id out of range of what it indexes, is refused
    /// with an Error naming the file, before anything indexes with it.
    virtual void loadState(const std::filesystem::path& directory, std::size_t dimension) = 0;

protected:
    /// `names` (refresh's argument) after checking that it holds `count` rows of `dimension`
    /// values; Error otherwise (vectors of another dictionary or model: a trainer bug).
    static std::vector<float> handedNames(std::vector<float> names, std::size_t count, std::size_t dimension) {
        if (names.size() != count * dimension)
            throw Error("training: " + std::to_string(names.size()) + " name vector values handed to the refresh for " +
                        std::to_string(count) + " names of " + std::to_string(dimension) + " dimensions");
        return names;
    }

private:
    std::vector<float> noVectors_;
};

std::unique_ptr<Objective> makeMarginalObjective(const TrainingPreset& preset, const TrainingData& data);
std::unique_ptr<Objective> makeTripletObjective(const TrainingPreset& preset, const TrainingData& data);
std::unique_ptr<Objective> makePrototypeObjective(const TrainingPreset& preset, const TrainingData& data,
                                                  const kb::KnowledgeBase& kb);
std::unique_ptr<Objective> makeContrastiveObjective(const TrainingPreset& preset, const TrainingData& data);
/// Mentions read in context aligned with the mention read alone (context_alignment_objective.cpp).
std::unique_ptr<Objective> makeContextAlignmentObjective(const TrainingPreset& preset, const TrainingData& data);
/// BERT's masked-LM objective over the texts (one per document, titles and abstracts), cut
/// into pieces of preset.maxLength tokens with `tokenizer`; its prediction head is created on
/// `model`'s device, its decoder tied to the model's word embeddings as in BERT.
std::unique_ptr<Objective> makeMaskedLmObjective(const TrainingPreset& preset, std::span<const std::string> texts,
                                                 encoder::BertEncoderModel& model,
                                                 const encoder::BertTokenizer& tokenizer);
/// SapBERT's self-alignment over the synonym pairs of `kbs` (synonym_pairs.h), without the
/// pairs of the concepts `heldOut` keeps for validation.
std::unique_ptr<Objective> makeSelfAlignmentObjective(const TrainingPreset& preset,
                                                      std::span<const kb::KnowledgeBase* const> kbs,
                                                      const KbHoldout* heldOut = nullptr);

/// The objective of the preset's method; `kbs`: the vocabularies the self-alignment pairs
/// synonyms of (empty: `kb` alone; the other methods read `kb` only).
std::unique_ptr<Objective> makeObjective(const TrainingPreset& preset, const TrainingData& data,
                                         const kb::KnowledgeBase& kb,
                                         std::span<const kb::KnowledgeBase* const> kbs = {});

/// Units 0..count-1 in an order drawn from rng, cut into batches of batchSize (the last shorter).
std::vector<std::vector<std::size_t>> shuffledBatches(std::size_t count, std::mt19937_64& rng, std::size_t batchSize);

/// Dense top-k of query vectors against name vectors by inner product (FAISS flat), ties by row.
std::vector<std::vector<std::uint32_t>> denseTopK(std::span<const float> queries, std::span<const float> names,
                                                  std::size_t dimension, std::size_t k);

}  // namespace linkscope::train
