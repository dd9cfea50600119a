#pragma once
// Whether a WordPiece tokenizer lower-cases, where that decision came from, and a warning when it
// is probably wrong: transformers lower-cases unless tokenizer_config.json says do_lower_case
// false, so a checkpoint trained on cased text that ships vocab.txt alone (BioBERT cased) is
// lower-cased silently. Reading its vocabulary tells: an uncased vocabulary has no capitals
// outside its bracketed special tokens, a cased one has thousands.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace linkscope::encoder {

class Vocabulary;

/// Where the casing of a tokenizer was decided.
enum class CasingSource {
    TokenizerConfig,      ///< tokenizer_config.json gives do_lower_case
    TokenizerJson,        ///< tokenizer.json's BertNormalizer gives lowercase
    TransformersDefault,  ///< nothing gives it: lower-case, as transformers does
    SentencePiece,        ///< an XLM-R SentencePiece model never lower-cases
};

struct CasingDecision {
    bool lowerCase = true;
    CasingSource source = CasingSource::TransformersDefault;
    std::size_t cappedTokens = 0;  ///< vocabulary tokens with a capital letter, special ones aside
    std::size_t wordTokens = 0;    ///< vocabulary tokens counted, special ones aside
    /// Messages for the user (no "warning:" prefix): empty when nothing looks wrong.
    std::vector<std::string> warnings;
};

/// "tokenizer_config.json", "tokenizer.json", "transformers' default", "SentencePiece model".
std::string casingSourceName(CasingSource source);

/// True when a vocabulary is plainly cased: many of its tokens (special tokens such as [CLS]
/// and <s> aside) hold an ASCII capital letter. An uncased vocabulary holds none.
bool isPlainlyCased(std::size_t cappedTokens, std::size_t wordTokens);

/// Counts the tokens of a vocabulary that hold a capital letter; special tokens ("[...]",
/// "<...>") are not counted at all.
void countCapitals(const Vocabulary& vocabulary, std::size_t& cappedTokens, std::size_t& wordTokens);

/// The casing decision for given facts: `configSays` is tokenizer_config.json's do_lower_case
/// when it gives one; `configFile` is the file a warning asks to add or edit.
CasingDecision decideCasing(const Vocabulary& vocabulary, const bool* configSays,
                            const std::filesystem::path& configFile);

/// The casing decision for a checkpoint folder: reads vocab.txt (without it, tokenizer.json) and
/// tokenizer_config.json, which overrides tokenizer.json as transformers lets it. A folder whose tokenizer is a SentencePiece model
/// is cased and never warned about. Throws ParseError / Error as the tokenizer's own loading
/// does for malformed files.
CasingDecision decideCasing(const std::filesystem::path& directory);

}  // namespace linkscope::encoder
