#include "encoder/token_batch.h"

#include <algorithm>

#include "util/error.h"

namespace linkscope::encoder {

TokenBatch makeTokenBatch(std::span<const Encoding> encodings, std::span<const std::size_t> rows, std::int32_t padId) {
    const std::size_t count = rows.empty() ? encodings.size() : rows.size();
    const auto at = [&](std::size_t row) -> const Encoding& { return encodings[rows.empty() ? row : rows[row]]; };
    std::int64_t length = 0;
    for (std::size_t row = 0; row < count; ++row)
        length = std::max(length, static_cast<std::int64_t>(at(row).ids.size()));
    const auto batchRows = static_cast<std::int64_t>(count);
    TokenBatch batch{torch::full({batchRows, length}, padId, torch::kLong),
                     torch::zeros({batchRows, length}, torch::kLong), torch::zeros({batchRows, length}, torch::kLong)};
    auto ids = batch.ids.accessor<std::int64_t, 2>();
    auto mask = batch.mask.accessor<std::int64_t, 2>();
    auto types = batch.types.accessor<std::int64_t, 2>();
    for (std::int64_t row = 0; row < batchRows; ++row) {
        const Encoding& encoding = at(static_cast<std::size_t>(row));
        for (std::size_t t = 0; t < encoding.ids.size(); ++t) {
            const auto column = static_cast<std::int64_t>(t);
            ids[row][column] = encoding.ids[t];
            mask[row][column] = t < encoding.attentionMask.size() ? encoding.attentionMask[t] : 1;
            types[row][column] = t < encoding.typeIds.size() ? encoding.typeIds[t] : 0;
        }
    }
    return batch;
}

std::optional<std::pair<std::string_view, std::string_view>> poolingMarkers(Pooling pooling) noexcept {
    switch (pooling) {
        case Pooling::Markers:
            return std::pair{std::string_view("[S]"), std::string_view("[E]")};
        case Pooling::StartEnd:
            return std::pair{std::string_view("[START]"), std::string_view("[END]")};
        case Pooling::Cls:
        case Pooling::Mean:
            break;
    }
    return std::nullopt;
}

PoolingSpec poolingSpecFor(const BertTokenizer& tokenizer, Pooling pooling) {
    PoolingSpec spec{pooling};
    if (const auto markers = poolingMarkers(pooling)) {
        const auto idOf = [&](std::string_view token) -> std::int64_t {
            const auto id = tokenizer.tokenId(token);
            if (!id)
                throw Error("encoder: pooling \"" + std::string(poolingName(pooling)) + "\" needs the token " +
                            std::string(token) + ", which the tokenizer does not have (add it with addTokens)");
            return *id;
        };
        spec.firstMarkerId = idOf(markers->first);
        spec.secondMarkerId = idOf(markers->second);
    }
    return spec;
}

std::vector<Encoding> tokenizeForPooling(const BertTokenizer& tokenizer, std::span<const std::string> texts,
                                         std::size_t maxLength, const PoolingSpec& spec) {
    const EncodeOptions tokenization{.maxLength = maxLength, .addSpecialTokens = true, .padToMaxLength = false};
    const auto markers = poolingMarkers(spec.pooling);
    std::vector<Encoding> encodings;
    encodings.reserve(texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        encodings.push_back(tokenizer.encode(texts[i], tokenization));
        if (!markers) continue;
        const auto& ids = encodings.back().ids;
        for (const auto& [token, id] :
             {std::pair{markers->first, spec.firstMarkerId}, std::pair{markers->second, spec.secondMarkerId}})
            if (std::find(ids.begin(), ids.end(), id) == ids.end())
                throw Error("encoder: text " + std::to_string(i) + " (\"" + texts[i] + "\") lacks the marker " +
                            std::string(token) + " (absent, or truncated past " + std::to_string(maxLength) +
                            " tokens) that pooling \"" + std::string(poolingName(spec.pooling)) + "\" needs");
    }
    return encodings;
}

}  // namespace linkscope::encoder
