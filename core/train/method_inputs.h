#pragma once
// What each method's encoder reads: the mention alone or marked in its sentence, a KB name
// (wrapped in the same markers so that the marker pooling applies to it), or Le & Nguyen's entity
// text. The trainer and the linker build their inputs here, so training and inference agree.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "corpus/document.h"
#include "encoder/bert_tokenizer.h"
#include "kb/knowledge_base.h"
#include "train/training_preset.h"

namespace linkscope::train {

/// The opening and closing marker tokens ("[S]"/"[E]", "[START]"/"[END]"); empty for None.
std::pair<std::string_view, std::string_view> markerTokens(ContextMarkers markers) noexcept;

/// The sentence around the bytes `mention` of `text` (a document's text()): from after the
/// previous sentence end (". ", "? ", "! " followed by a capital letter or a digit, or the
/// title/abstract boundary at byte `abstractStart`) to the next one, in bytes.
ByteRange sentenceAround(std::string_view text, ByteRange mention, std::size_t abstractStart) noexcept;

/// The mention input of a method: with markers None, `mention` itself (the normalized query
/// part); otherwise "left [S] mention [E] right" where left/right are the words of the mention's
/// sentence before and after characters [start, end), at most `contextWords` each (the nearest
/// ones), so that truncation at the encoder's max length never cuts the markers off.
std::string mentionInput(const Document& document, std::size_t start, std::size_t end, std::string_view mention,
                         ContextMarkers markers, std::size_t contextWords);

/// Counts the tokens an encoder sees for a text, [CLS] and [SEP] included.
using TokenCounter = std::function<std::size_t(std::string_view)>;
/// The counter of an encoder's tokenizer (which must outlive it).
TokenCounter tokenCounterOf(const encoder::BertTokenizer& tokenizer);

/// mentionInput() with the context cut until the input fits `maxLength` tokens by `count`: from
/// contextWordsFor(maxLength) words each side, one word fewer each side at a time, so that the
/// encoder's truncation never drops a marker. Without a counter: contextWordsFor(maxLength). A
/// mention too long to fit even alone keeps no context and loses words from its end until the
/// input fits (one word at least is kept; the encoder reports what still does not fit).
std::string fittedMentionInput(const Document& document, std::size_t start, std::size_t end, std::string_view mention,
                               ContextMarkers markers, std::size_t maxLength, const TokenCounter& count);

/// How many context words fit on each side for an input of `maxLength` tokens (a word is ~2
/// WordPiece tokens; the markers, the mention and [CLS]/[SEP] take the rest).
std::size_t contextWordsFor(std::size_t maxLength) noexcept;

/// A KB name as the method encodes it: the name, or "[S] name [E]" with marker pooling (BELHD
/// pools names over the same markers as mentions).
std::string nameInput(std::string_view name, ContextMarkers markers);

/// nameInput() cut to `maxLength` tokens by `count`: words are dropped from the end of the name
/// until the input fits, so that the closing marker is never truncated away. Without markers or
/// a counter: nameInput().
std::string fittedNameInput(std::string_view name, ContextMarkers markers, std::size_t maxLength,
                            const TokenCounter& count);

/// The text between the markers of a mention input (the input itself with markers None): what
/// the sparse first stage of a context method searches. nullopt when a marker is missing.
std::optional<std::string_view> mentionInsideMarkers(std::string_view input, ContextMarkers markers) noexcept;

/// Le & Nguyen's entity input "type [SEP] syn1 [SEP] syn2 ..." (the tokenizer adds [CLS] and the
/// final [SEP]): the semantic type names (or "entity" when the KB has none), the preferred name
/// first, then the other names in KB order, at most `maxSynonyms` (0: all).
std::string entityInput(const kb::KnowledgeBase& kb, kb::EntityIndex entity, std::size_t maxSynonyms);

/// Le & Nguyen's first stage returns k *entities* (64 in the paper), not k dictionary entries
/// (64 entries of MEDIC name about 31 entities): the sparse search reads this many entries per
/// wanted entity, and the entities are taken in rank order until k are found.
inline constexpr std::size_t kFirstStageEntriesPerEntity = 8;

}  // namespace linkscope::train
