#pragma once
// XLM-RoBERTa's tokenizer model: a SentencePiece model file (sentencepiece.bpe.model, a Unigram
// model despite its name) read through libsentencepiece, with the ids fairseq gave XLM-R and
// transformers' XLMRobertaTokenizer keeps:
//   <s> 0, <pad> 1, </s> 2, <unk> 3, SentencePiece id i >= 3 at i + 1, <mask> last.
// SentencePiece's own control ids (<unk> 0, <s> 1, </s> 2) never come out of plain text; a
// piece it does not know (id 0) maps to <unk>. The library's headers stay in the .cpp file.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::encoder {

namespace detail {
struct TokenPiece;
}

/// The file name Hugging Face's XLM-R checkpoints use.
inline constexpr const char* kSentencePieceFile = "sentencepiece.bpe.model";

/// False in a build without libsentencepiece: loading a model then throws Error.
bool sentencePieceAvailable() noexcept;

class SentencePieceModel {
public:
    /// Reads and parses the model. Throws ParseError naming the file for a model the library
    /// refuses, and Error ("this build has no SentencePiece support") in a build without it.
    static std::shared_ptr<const SentencePieceModel> load(const std::filesystem::path& file);
    /// The same from the file's bytes; `source` names it in errors.
    static std::shared_ptr<const SentencePieceModel> parse(std::string bytes, const std::string& source);
    ~SentencePieceModel();
    SentencePieceModel(const SentencePieceModel&) = delete;
    SentencePieceModel& operator=(const SentencePieceModel&) = delete;

    /// The tokens in fairseq id order: <s> <pad> </s> <unk>, the pieces from SentencePiece
    /// id 3 on, then <mask> (SentencePiece's size + 1 tokens in all).
    std::vector<std::string> fairseqTokens() const;
    /// Appends the pieces of `text` with their fairseq ids and byte ranges, shifted by
    /// `byteOffset` (text is a stretch of a longer input). Unknown pieces get `unkId`.
    void appendPieces(std::string_view text, std::size_t byteOffset, std::int32_t unkId,
                      std::vector<detail::TokenPiece>& out) const;
    /// Writes the model's bytes unchanged, atomically.
    void save(const std::filesystem::path& file) const;
    /// The model file's bytes (what the tokenizer's fingerprint hashes).
    const std::string& bytes() const noexcept;

private:
    struct Impl;
    explicit SentencePieceModel(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace linkscope::encoder
