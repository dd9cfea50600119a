#pragma once
// Turning tokenized texts into the tensors BertEncoderModel reads, and the pooling's marker ids:
// shared by inference (TextEncoder::encode) and training (core/train), which must feed the model
// exactly alike. Internal (includes torch).
#include <torch/types.h>

#include <span>
#include <string>
#include <vector>

#include "encoder/bert_model.h"
#include "encoder/bert_tokenizer.h"

namespace linkscope::encoder {

struct TokenBatch {
    torch::Tensor ids;    ///< [B, T] int64, padded with the tokenizer's [PAD]
    torch::Tensor mask;   ///< [B, T] int64, 1 real token, 0 padding
    torch::Tensor types;  ///< [B, T] int64 token type ids
};

/// The rows `rows` of `encodings` (all of them when rows is empty), padded to the longest, on the CPU.
TokenBatch makeTokenBatch(std::span<const Encoding> encodings, std::span<const std::size_t> rows, std::int32_t padId);

/// The marker tokens a pooling reads ([S]/[E], [START]/[END]); nullopt for Cls and Mean.
std::optional<std::pair<std::string_view, std::string_view>> poolingMarkers(Pooling pooling) noexcept;

/// The pooling with its marker ids from the tokenizer; Error naming the missing token.
PoolingSpec poolingSpecFor(const BertTokenizer& tokenizer, Pooling pooling);

/// Tokenizes texts for the model (special tokens, truncation at maxLength, no padding) and checks
/// that every text kept the markers its pooling reads: Error naming the text otherwise.
std::vector<Encoding> tokenizeForPooling(const BertTokenizer& tokenizer, std::span<const std::string> texts,
                                         std::size_t maxLength, const PoolingSpec& spec);

}  // namespace linkscope::encoder
