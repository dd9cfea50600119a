// BERT's masked-language-model objective (Devlin et al. 2019, section 3.1) as a trainer
// objective: the optional stage before SapBERT's self-alignment. SapBERT itself starts
// from PubMedBERT, which has read PubMed abstracts with this objective; a compact encoder made
// here has read nothing, so this stage lets it read the corpora's titles and abstracts first.
//
// - Texts: one per document (title and abstract), tokenized once with the encoder's tokenizer
//   and cut into pieces of preset.maxLength tokens, [CLS] and [SEP] included (BERT's
//   "full-sentences" packing within a document; pieces never span two documents).
// - Masking: maskProbability of the real tokens of a piece, at least one; of those,
//   maskTokenShare become [MASK], randomTokenShare a random token of the vocabulary, the rest
//   stay. Drawn per step from the trainer's step generator, so a resumed run masks the same way.
// - Head: BERT's BertLMPredictionHead, dense + GELU + LayerNorm, then a decoder whose weights are
//   the word embeddings (tied, as in BERT) plus its own bias. Logits are computed for the masked
//   positions only (the loss reads no other). The head is the objective's: the trainer optimizes
//   and checkpoints it, and it is not saved with the model (the methods never read it; a
//   Hugging Face loader skips "cls.*" weights of a BertForMaskedLM checkpoint the same way).
// - Validation: one document in every heldOutEvery is held out; its pieces are masked once with
//   the preset's seed, and the trainer keeps the epoch whose masked-token accuracy on them is
//   highest. No dev mentions are linked: this stage does not make mention vectors yet.
// - No next-sentence prediction: RoBERTa (Liu et al. 2019) found it does not help, and our
//   documents are short abstracts.
#include <algorithm>
#include <limits>
#include <utility>

#include "encoder/bert_tokenizer.h"
#include "train/objective.h"
#include "util/error.h"

namespace linkscope::train {
namespace {

/// BertLMPredictionHead without the decoder's weight (the word embeddings are passed in).
class PredictionHeadImpl : public torch::nn::Module {
public:
    /// vocabulary: the rows of the word embedding table the decoder is tied to.
    PredictionHeadImpl(const encoder::BertConfig& config, std::int64_t vocabulary, std::uint64_t seed) {
        const auto hidden = static_cast<std::int64_t>(config.hiddenSize);
        dense = register_module("dense", torch::nn::Linear(hidden, hidden));
        norm = register_module("LayerNorm",
                               torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden}).eps(config.layerNormEps)));
        bias = register_parameter("bias", torch::zeros({vocabulary}));
        // BERT's initialisation, from our own generator (no global state), as the encoder's.
        torch::NoGradGuard noGrad;
        auto generator = at::detail::createCPUGenerator(seed);
        dense->weight.copy_(
            torch::empty(dense->weight.sizes(), torch::kFloat).normal_(0.0, config.initializerRange, generator));
        dense->bias.zero_();
    }

    /// Logits over the vocabulary of hidden states [M, H].
    torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& wordEmbeddings) {
        const auto transformed = norm(torch::gelu(dense(hidden)));
        return torch::matmul(transformed, wordEmbeddings.t()) + bias;
    }

    torch::nn::Linear dense{nullptr};
    torch::nn::LayerNorm norm{nullptr};
    torch::Tensor bias;
};
TORCH_MODULE(PredictionHead);

/// A piece as the encoder reads it: [CLS], at most maxLength - 2 tokens of one document, [SEP].
struct Piece {
    std::vector<std::int32_t> ids;  ///< [CLS] tokens [SEP]
};

struct MaskedBatch {
    torch::Tensor ids, mask, typeIds;  ///< [B, T]
    torch::Tensor positions;           ///< flat indexes b * T + t of the masked tokens
    torch::Tensor targets;             ///< the original token at each
};

class MaskedLmObjective final : public Objective {
public:
    MaskedLmObjective(const TrainingPreset& preset, std::span<const std::string> texts,
                      encoder::BertEncoderModel& model, const encoder::BertTokenizer& tokenizer)
        : preset_(preset), settings_(preset.maskedLm), tokenizer_(tokenizer) {
        if (preset.maxLength < 3)
            throw Error("masked-LM stage: encoder.max_length " + std::to_string(preset.maxLength) +
                        " leaves no room for a token between [CLS] and [SEP]");
        const std::int64_t vocabulary = model.wordEmbeddings()->weight.size(0);
        if (static_cast<std::int64_t>(tokenizer.vocabularySize()) > vocabulary)
            throw Error("masked-LM stage: the tokenizer has " + std::to_string(tokenizer.vocabularySize()) +
                        " tokens but the model's word embeddings only " + std::to_string(vocabulary));
        randomTokens_ = static_cast<std::int32_t>(tokenizer.vocabularySize());
        cutPieces(texts);
        if (train_.empty())
            throw Error("masked-LM stage: no text to learn from (" + std::to_string(texts.size()) +
                        " documents, none with a token left for training)");
        const torch::Device device = model.parameters().front().device();
        head_ = PredictionHead(model.config(), vocabulary, preset.seed ^ 0x4D4C4D48ULL);  // "MLMH"
        head_->to(device);
        // The held-out pieces are masked once: every validation scores the same positions.
        std::mt19937_64 rng(preset.seed ^ 0x48454C44ULL);  // "HELD"
        for (const auto& piece : heldOut_) heldOutMasks_.push_back(drawMask(piece, rng));
    }

    std::vector<std::vector<std::size_t>> batches(std::mt19937_64& rng, std::size_t batchSize) const override {
        return shuffledBatches(train_.size(), rng, batchSize);
    }

    void refresh(const encoder::TextEncoder&, const ProgressSink&, std::vector<float>) override {}

    torch::Tensor loss(std::span<const std::size_t> batch, GradientEncoder& encoder, std::mt19937_64& rng) override {
        std::vector<const Piece*> pieces;
        std::vector<PieceMask> masks;
        for (const std::size_t index : batch) {
            pieces.push_back(&train_.at(index));
            masks.push_back(drawMask(train_[index], rng));
        }
        const MaskedBatch tensors = assemble(pieces, masks, encoder.device());
        const auto logits = predict(encoder.model(), tensors);
        return torch::nn::functional::cross_entropy(logits.to(torch::kFloat), tensors.targets);
    }

    std::vector<torch::Tensor> parameters() override { return head_->parameters(); }

    bool holdsOut() const override { return !heldOut_.empty(); }

    std::optional<double> validateHeldOut(encoder::BertEncoderModel& model, torch::Device device,
                                          const ProgressSink& progress) override {
        if (heldOut_.empty()) return std::nullopt;
        torch::NoGradGuard noGrad;
        head_->eval();
        const std::size_t batchSize = std::max<std::size_t>(1, preset_.training.batchSize);
        std::int64_t correct = 0;
        std::int64_t total = 0;
        for (std::size_t first = 0; first < heldOut_.size(); first += batchSize) {
            progress.checkCancelled();
            const std::size_t last = std::min(heldOut_.size(), first + batchSize);
            std::vector<const Piece*> pieces;
            std::vector<PieceMask> masks;
            for (std::size_t i = first; i < last; ++i) {
                pieces.push_back(&heldOut_[i]);
                masks.push_back(heldOutMasks_[i]);
            }
            const MaskedBatch tensors = assemble(pieces, masks, device);
            const auto predicted = predict(model, tensors).argmax(1);
            correct += predicted.eq(tensors.targets).sum().item<std::int64_t>();
            total += tensors.targets.size(0);
            progress("Validating", double(last) / double(heldOut_.size()));
        }
        head_->train();
        return total == 0 ? 0.0 : double(correct) / double(total);
    }

    // Nothing is retrieved with the model; the head's weights are the trainer's to checkpoint.
    void saveState(const std::filesystem::path&) const override {}
    void loadState(const std::filesystem::path&, std::size_t) override {}

private:
    /// Positions (in the piece) to predict and what each reads instead.
    struct PieceMask {
        std::vector<std::uint32_t> positions;
        std::vector<std::int32_t> inputs;
    };

    void cutPieces(std::span<const std::string> texts) {
        encoder::EncodeOptions options;
        options.addSpecialTokens = false;
        options.maxLength = std::numeric_limits<std::size_t>::max();
        const std::size_t room = preset_.maxLength - 2;
        for (std::size_t d = 0; d < texts.size(); ++d) {
            const auto ids = tokenizer_.encode(texts[d], options).ids;
            const bool held = settings_.heldOutEvery >= 2 && texts.size() >= 2 &&
                              d % settings_.heldOutEvery == settings_.heldOutEvery - 1;
            for (std::size_t first = 0; first < ids.size(); first += room) {
                Piece piece;
                piece.ids.reserve(std::min(room, ids.size() - first) + 2);
                piece.ids.push_back(tokenizer_.clsId());
                piece.ids.insert(piece.ids.end(), ids.begin() + static_cast<std::ptrdiff_t>(first),
                                 ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), first + room)));
                piece.ids.push_back(tokenizer_.sepId());
                (held ? heldOut_ : train_).push_back(std::move(piece));
            }
        }
    }

    PieceMask drawMask(const Piece& piece, std::mt19937_64& rng) const {
        std::uniform_real_distribution<double> uniform(0.0, 1.0);
        PieceMask mask;
        // The tokens between [CLS] and [SEP]; a piece holds at least one.
        const std::size_t first = 1;
        const std::size_t last = piece.ids.size() - 1;
        for (std::size_t t = first; t < last; ++t)
            if (uniform(rng) < settings_.maskProbability) mask.positions.push_back(static_cast<std::uint32_t>(t));
        if (mask.positions.empty()) {
            std::uniform_int_distribution<std::size_t> any(first, last - 1);
            mask.positions.push_back(static_cast<std::uint32_t>(any(rng)));
        }
        std::uniform_int_distribution<std::int32_t> randomToken(0, randomTokens_ - 1);
        const std::int32_t maskId = tokenizer_.maskId();
        for (const std::uint32_t position : mask.positions) {
            const double u = uniform(rng);
            if (u < settings_.maskTokenShare)
                mask.inputs.push_back(maskId);
            else if (u < settings_.maskTokenShare + settings_.randomTokenShare)
                mask.inputs.push_back(randomToken(rng));
            else
                mask.inputs.push_back(piece.ids[position]);
        }
        return mask;
    }

    MaskedBatch assemble(std::span<const Piece* const> pieces, std::span<const PieceMask> masks,
                         torch::Device device) const {
        std::size_t width = 0;
        for (const Piece* piece : pieces) width = std::max(width, piece->ids.size());
        const auto rows = static_cast<std::int64_t>(pieces.size());
        const auto columns = static_cast<std::int64_t>(width);
        auto ids = torch::full({rows, columns}, tokenizer_.padId(), torch::kLong);
        auto attention = torch::zeros({rows, columns}, torch::kLong);
        auto idsOf = ids.accessor<std::int64_t, 2>();
        auto attentionOf = attention.accessor<std::int64_t, 2>();
        std::vector<std::int64_t> positions;
        std::vector<std::int64_t> targets;
        for (std::int64_t b = 0; b < rows; ++b) {
            const auto& piece = pieces[static_cast<std::size_t>(b)]->ids;
            for (std::size_t t = 0; t < piece.size(); ++t) {
                idsOf[b][static_cast<std::int64_t>(t)] = piece[t];
                attentionOf[b][static_cast<std::int64_t>(t)] = 1;
            }
            const auto& mask = masks[static_cast<std::size_t>(b)];
            for (std::size_t m = 0; m < mask.positions.size(); ++m) {
                const auto t = static_cast<std::int64_t>(mask.positions[m]);
                idsOf[b][t] = mask.inputs[m];
                positions.push_back(b * columns + t);
                targets.push_back(piece[mask.positions[m]]);
            }
        }
        MaskedBatch batch;
        batch.ids = ids.to(device);
        batch.mask = attention.to(device);
        batch.typeIds = torch::zeros({rows, columns}, torch::kLong).to(device);
        batch.positions = torch::tensor(positions, torch::kLong).to(device);
        batch.targets = torch::tensor(targets, torch::kLong).to(device);
        return batch;
    }

    /// Logits [M, V] at the masked positions.
    torch::Tensor predict(encoder::BertEncoderModel& model, const MaskedBatch& batch) {
        const auto hidden = model.forward(batch.ids, batch.mask, batch.typeIds);
        const auto flat = hidden.reshape({-1, hidden.size(2)}).index_select(0, batch.positions);
        return head_->forward(flat, model.wordEmbeddings()->weight);
    }

    const TrainingPreset& preset_;
    const MaskedLmSettings& settings_;
    const encoder::BertTokenizer& tokenizer_;
    std::int32_t randomTokens_ = 0;
    std::vector<Piece> train_;
    std::vector<Piece> heldOut_;
    std::vector<PieceMask> heldOutMasks_;
    PredictionHead head_{nullptr};
};

}  // namespace

std::unique_ptr<Objective> makeMaskedLmObjective(const TrainingPreset& preset, std::span<const std::string> texts,
                                                 encoder::BertEncoderModel& model,
                                                 const encoder::BertTokenizer& tokenizer) {
    return std::make_unique<MaskedLmObjective>(preset, texts, model, tokenizer);
}

}  // namespace linkscope::train
