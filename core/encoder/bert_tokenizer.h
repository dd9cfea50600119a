#pragma once
// BERT's tokenizer as Hugging Face's reference implementation (BertTokenizer, the "slow" Python
// one, which the fast Rust one matches) behaves:
//  1. added and special tokens ([CLS], [SEP], [PAD], [MASK], [UNK] and added tokens such as the
//     mention markers [S] [E] [START] [END]) found verbatim in the text are kept whole, never split
//     or lower-cased;
//  2. basic tokenization of the rest: drop U+0000, U+FFFD and control characters, map all
//     whitespace to a space, put spaces around CJK ideographs (when tokenize_chinese_chars),
//     split on whitespace; when do_lower_case, lower-case and strip accents (Unicode NFD, drop
//     combining marks, category Mn) -- strip_accents may override; split on punctuation (ASCII
//     non-alphanumeric printable characters and Unicode category P*);
//  3. WordPiece: greedy longest-match-first with "##" continuations; a word longer than 100
//     characters or one that cannot be covered becomes [UNK] as a whole.
// Offsets map every token back to the byte range of the input it came from (an accented
// letter stripped to its base still covers its original bytes).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "util/error.h"

namespace linkscope::encoder {

namespace detail {
/// Lets string-keyed maps be searched with a string_view without building a std::string.
struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
struct TokenPiece;
}  // namespace detail

class SentencePieceModel;  // sentencepiece_model.h

/// vocab.txt: one token per line, the line number (from 0) is its id.
class Vocabulary {
public:
    Vocabulary() = default;
    /// Throws ParseError(file, line) for an empty file, a duplicate token or invalid UTF-8.
    static Vocabulary load(const std::filesystem::path& file);
    /// Throws Error for a duplicate or empty token.
    static Vocabulary fromTokens(std::vector<std::string> tokens);

    std::optional<std::int32_t> id(std::string_view token) const;
    const std::string& token(std::int32_t id) const;  ///< Error when out of range
    std::size_t size() const noexcept { return tokens_.size(); }
    std::span<const std::string> tokens() const noexcept { return tokens_; }
    /// Appends a token and returns its id (the existing id when it is already present).
    std::int32_t add(std::string token);
    void save(const std::filesystem::path& file) const;  ///< atomically, one token per line

private:
    std::vector<std::string> tokens_;
    std::unordered_map<std::string, std::int32_t, detail::StringHash, std::equal_to<>> ids_;
};

/// The settings of tokenizer_config.json that change tokenization (others are kept as read).
struct TokenizerConfig {
    bool doLowerCase = true;
    bool tokenizeChineseChars = true;
    std::optional<bool> stripAccents;  ///< unset: follow doLowerCase (the reference's rule)
    std::size_t modelMaxLength = 512;
    std::string unkToken = "[UNK]", sepToken = "[SEP]", padToken = "[PAD]", clsToken = "[CLS]", maskToken = "[MASK]";
    /// Tokens that are matched whole in the text before basic tokenization (added tokens and
    /// additional special tokens), each with its id (ids past the vocabulary, as add_tokens()
    /// gives them, or inside it when the token is in vocab.txt).
    std::vector<std::pair<std::string, std::int32_t>> addedTokens;
};

/// One tokenized text, ready for the model.
struct Encoding {
    std::vector<std::int32_t> ids;
    std::vector<std::int32_t> typeIds;        ///< 0 for every token of a single text
    std::vector<std::uint8_t> attentionMask;  ///< 1 for real tokens, 0 for padding
    /// Byte range [first, second) of the input per token; {0, 0} for [CLS], [SEP], [PAD].
    std::vector<std::pair<std::size_t, std::size_t>> offsets;
    /// Number of tokens before padding (including [CLS] and [SEP]).
    std::size_t length() const noexcept;
};

struct EncodeOptions {
    std::size_t maxLength = 512;  ///< truncate to this many tokens, [CLS] and [SEP] included
    bool addSpecialTokens = true;
    bool padToMaxLength = false;  ///< pad with [PAD] (mask 0) up to maxLength
};

/// An added token that conflicts with vocab.txt or with another added token. `index` is its
/// position in TokenizerConfig::addedTokens, so that a loader can name the file that listed it.
class AddedTokenError : public Error {
public:
    AddedTokenError(std::size_t index, const std::string& message) : Error(message), index(index) {}
    std::size_t index;
};

class BertTokenizer {
public:
    /// Checks config.addedTokens (Error for an empty or non-UTF-8 token, a negative id, an id
    /// vocab.txt gives to another token, a token with two ids, two tokens with one id), sorts
    /// them by id and drops the special tokens listed at their vocabulary id (they are matched
    /// whole anyway). A special token neither in vocab.txt nor added gets the next free id and
    /// joins addedTokens, as transformers does.
    BertTokenizer(Vocabulary vocabulary, TokenizerConfig config);
    /// XLM-RoBERTa's tokenizer (transformers' XLMRobertaTokenizer): the same handling of special
    /// and added tokens and the same framing (<s> ... </s>), but the text between them goes to
    /// the SentencePiece model whole (no basic tokenization, no lower-casing), and the
    /// vocabulary is the model's pieces in fairseq's id order (sentencepiece_model.h).
    BertTokenizer(std::shared_ptr<const SentencePieceModel> sentencePiece, TokenizerConfig config);

    /// Reads vocab.txt and, when present, tokenizer_config.json (do_lower_case,
    /// tokenize_chinese_chars, strip_accents, model_max_length, special tokens,
    /// added_tokens_decoder), special_tokens_map.json and added_tokens.json from a checkpoint
    /// directory. Throws ParseError / Error naming the file for malformed input.
    static BertTokenizer fromDirectory(const std::filesystem::path& directory);
    /// Writes vocab.txt, tokenizer_config.json (tokenizer_class "BertTokenizer"),
    /// special_tokens_map.json and added_tokens.json, loadable by transformers' AutoTokenizer.
    void save(const std::filesystem::path& directory) const;

    /// Word pieces of a text, no special tokens added ("tokenize" of the reference).
    std::vector<std::string> tokenize(std::string_view text) const;
    /// Ids with [CLS] ... [SEP], truncated (the last [SEP] kept) and optionally padded.
    /// Error for text that is not UTF-8, or maxLength < 2 with special tokens.
    Encoding encode(std::string_view text, const EncodeOptions& options = {}) const;

    /// Adds tokens that must never be split (mention markers); returns their ids. Tokens
    /// already in the vocabulary keep their id; new ones get ids from vocabularySize() upward.
    /// Matching is case-sensitive and they are never lower-cased; save() writes them as
    /// additional special tokens so that transformers treats them the same way. Error (and
    /// nothing added) for an empty or non-UTF-8 token.
    std::vector<std::int32_t> addTokens(std::span<const std::string> tokens);

    std::optional<std::int32_t> tokenId(std::string_view token) const;  ///< vocab or added
    std::int32_t clsId() const noexcept { return cls_; }
    std::int32_t sepId() const noexcept { return sep_; }
    std::int32_t padId() const noexcept { return pad_; }
    std::int32_t unkId() const noexcept { return unk_; }
    std::int32_t maskId() const noexcept { return mask_; }
    /// Ids the model's embedding table must cover: the vocabulary plus added tokens.
    std::size_t vocabularySize() const noexcept;
    const Vocabulary& vocabulary() const noexcept { return vocabulary_; }
    const TokenizerConfig& config() const noexcept { return config_; }
    /// The SentencePiece model of an XLM-R tokenizer; null for a WordPiece (BERT) one.
    const SentencePieceModel* sentencePiece() const noexcept { return sentencePiece_.get(); }

private:
    /// The id a new token gets: vocabularySize(); throws Error past the 32-bit ids.
    std::int32_t nextId() const;
    /// A token matched whole in the text (special or added), as code points.
    struct WholeToken {
        std::u32string text;
        std::string utf8;
        std::int32_t id = 0;
    };

    void validateAddedTokens();
    void addMissingSpecialTokens();
    void indexWholeTokens();
    /// The pieces of a text with their ids and input bytes (tokenize() and encode() share it).
    std::vector<detail::TokenPiece> pieces(std::string_view text) const;

    Vocabulary vocabulary_;
    TokenizerConfig config_;
    std::int32_t cls_ = 0, sep_ = 0, pad_ = 0, unk_ = 0, mask_ = 0;
    /// The special tokens (unk, sep, pad, cls, mask) then the added ones: the order in which
    /// the reference's lower-casing pass tries them.
    std::vector<WholeToken> wholeTokens_;
    /// wholeTokens_ indexes by first character, longest first (leftmost-longest matching).
    std::unordered_map<char32_t, std::vector<std::size_t>> byFirstChar_;
    std::unordered_map<std::string, std::int32_t, detail::StringHash, std::equal_to<>> addedIds_;
    std::shared_ptr<const SentencePieceModel> sentencePiece_;  ///< set: XLM-R's segmentation
};

}  // namespace linkscope::encoder
