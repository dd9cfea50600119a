// BertTokenizer: added tokens, then basic tokenization, then WordPiece; ids and offsets.
#include "encoder/bert_tokenizer.h"

#include <algorithm>
#include <limits>
#include <map>

#include "encoder/basic_tokenizer.h"
#include "encoder/sentencepiece_model.h"
#include "encoder/tracked_text.h"
#include "encoder/wordpiece.h"
#include "util/error.h"
#include "util/utf8.h"

namespace linkscope::encoder {
namespace {

void checkTokenText(const std::string& token, std::string_view what) {
    if (token.empty()) throw Error("empty " + std::string(what));
    if (!utf8::isValid(token)) throw Error(std::string(what) + " is not valid UTF-8");
}

bool startsWithAt(std::span<const detail::TrackedChar> text, std::size_t at, const std::u32string& token) {
    if (text.size() - at < token.size()) return false;
    for (std::size_t k = 0; k < token.size(); ++k)
        if (text[at + k].codePoint != token[k]) return false;
    return true;
}

/// XLMRobertaTokenizer never lower-cases: the SentencePiece model's normalizer is all there is.
TokenizerConfig keepingCase(TokenizerConfig config) {
    config.doLowerCase = false;
    config.stripAccents = false;
    return config;
}

}  // namespace

std::size_t Encoding::length() const noexcept {
    return static_cast<std::size_t>(
        std::count_if(attentionMask.begin(), attentionMask.end(), [](std::uint8_t m) { return m != 0; }));
}

BertTokenizer::BertTokenizer(Vocabulary vocabulary, TokenizerConfig config)
    : vocabulary_(std::move(vocabulary)), config_(std::move(config)) {
    validateAddedTokens();
    addMissingSpecialTokens();
    indexWholeTokens();
}

BertTokenizer::BertTokenizer(std::shared_ptr<const SentencePieceModel> sentencePiece, TokenizerConfig config)
    : BertTokenizer(Vocabulary::fromTokens(sentencePiece->fairseqTokens()), keepingCase(std::move(config))) {
    sentencePiece_ = std::move(sentencePiece);
}

void BertTokenizer::validateAddedTokens() {
    const std::string* specials[] = {&config_.unkToken, &config_.sepToken, &config_.padToken, &config_.clsToken,
                                     &config_.maskToken};
    for (const auto* special : specials) checkTokenText(*special, "special token");
    const auto isSpecial = [&](const std::string& token) {
        return std::any_of(std::begin(specials), std::end(specials), [&](const auto* s) { return *s == token; });
    };
    const std::size_t vocabularyCount = vocabulary_.size();
    std::vector<std::pair<std::string, std::int32_t>> kept;
    std::unordered_map<std::string, std::int32_t> idOf;
    std::map<std::int32_t, std::string> tokenOf;
    for (std::size_t index = 0; index < config_.addedTokens.size(); ++index) {
        auto& [token, id] = config_.addedTokens[index];
        try {
            checkTokenText(token, "added token");
        } catch (const Error& e) {
            throw AddedTokenError(index, e.what());
        }
        const auto fail = [index](const std::string& message) { return AddedTokenError(index, message); };
        const std::string quoted = "added token \"" + token + "\"";
        if (id < 0) throw fail(quoted + " has a negative id");
        // Ids past the vocabulary follow it without a gap (as transformers assigns them): an id
        // of 2^31 - 1 would size the embedding table at two billion rows, and the next id
        // given to a new token (the markers) would overflow to a negative one.
        if (static_cast<std::size_t>(id) >= vocabularyCount + config_.addedTokens.size())
            throw fail(quoted + " has id " + std::to_string(id) + ", past the " + std::to_string(vocabularyCount) +
                       " tokens of vocab.txt and the " + std::to_string(config_.addedTokens.size()) +
                       " added tokens: added ids must follow the vocabulary without a gap");
        if (const auto inVocabulary = vocabulary_.id(token); inVocabulary && *inVocabulary != id)
            throw fail(quoted + " has id " + std::to_string(id) + " but vocab.txt gives it id " +
                       std::to_string(*inVocabulary));
        if (static_cast<std::size_t>(id) < vocabularyCount && vocabulary_.token(id) != token)
            throw fail(quoted + " has id " + std::to_string(id) + ", which vocab.txt gives to \"" +
                       vocabulary_.token(id) + "\"");
        if (const auto it = idOf.find(token); it != idOf.end()) {
            if (it->second != id)
                throw fail(quoted + " has two ids, " + std::to_string(it->second) + " and " + std::to_string(id));
            continue;
        }
        if (const auto it = tokenOf.find(id); it != tokenOf.end())
            throw fail("id " + std::to_string(id) + " is given to two added tokens, \"" + it->second + "\" and \"" +
                       token + "\"");
        idOf.emplace(token, id);
        tokenOf.emplace(id, token);
        // A special token at its vocabulary id is matched whole anyway; keeping it out of the
        // list makes a loaded tokenizer (whose added_tokens_decoder lists [PAD] [UNK] ...)
        // equal to the one that was saved.
        if (isSpecial(token) && static_cast<std::size_t>(id) < vocabularyCount) continue;
        kept.emplace_back(std::move(token), id);
    }
    std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    config_.addedTokens = std::move(kept);
}

void BertTokenizer::addMissingSpecialTokens() {
    // As transformers does: a special token that is neither in vocab.txt nor added gets the
    // next free id, in the order unk, sep, pad, cls, mask.
    const std::pair<const std::string*, std::int32_t*> specials[] = {{&config_.unkToken, &unk_},
                                                                     {&config_.sepToken, &sep_},
                                                                     {&config_.padToken, &pad_},
                                                                     {&config_.clsToken, &cls_},
                                                                     {&config_.maskToken, &mask_}};
    for (const auto& [token, id] : specials) {
        const auto added = std::find_if(config_.addedTokens.begin(), config_.addedTokens.end(),
                                        [&](const auto& entry) { return entry.first == *token; });
        if (added != config_.addedTokens.end()) {
            *id = added->second;
        } else if (const auto inVocabulary = vocabulary_.id(*token)) {
            *id = *inVocabulary;
        } else {
            *id = nextId();
            config_.addedTokens.emplace_back(*token, *id);
        }
    }
}

void BertTokenizer::indexWholeTokens() {
    wholeTokens_.clear();
    byFirstChar_.clear();
    addedIds_.clear();
    const auto add = [&](const std::string& token, std::int32_t id) {
        if (std::any_of(wholeTokens_.begin(), wholeTokens_.end(), [&](const auto& w) { return w.utf8 == token; }))
            return;
        wholeTokens_.push_back({detail::toCodePoints(token), token, id});
    };
    add(config_.unkToken, unk_);
    add(config_.sepToken, sep_);
    add(config_.padToken, pad_);
    add(config_.clsToken, cls_);
    add(config_.maskToken, mask_);
    for (const auto& [token, id] : config_.addedTokens) {
        add(token, id);
        addedIds_.emplace(token, id);
    }
    for (std::size_t i = 0; i < wholeTokens_.size(); ++i) byFirstChar_[wholeTokens_[i].text.front()].push_back(i);
    for (auto& [first, candidates] : byFirstChar_)
        std::stable_sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) {
            return wholeTokens_[a].text.size() > wholeTokens_[b].text.size();
        });
}

std::vector<detail::TokenPiece> BertTokenizer::pieces(std::string_view text) const {
    using detail::TrackedChar;
    const detail::TrackedText input = detail::decodeTracked(text);
    const auto candidatesAt = [&](std::span<const TrackedChar> chars,
                                  std::size_t at) -> const std::vector<std::size_t>* {
        const auto it = byFirstChar_.find(chars[at].codePoint);
        return it == byFirstChar_.end() ? nullptr : &it->second;
    };

    // With do_lower_case the reference lower-cases the text, one character at a time, before it
    // looks for added tokens, skipping the special tokens it finds (the first of them, in
    // wholeTokens_ order, that matches at a position). Per character means no final-sigma rule.
    detail::TrackedText lowered;
    if (config_.doLowerCase) {
        lowered.reserve(input.size());
        for (std::size_t at = 0; at < input.size();) {
            std::optional<std::size_t> keep;
            if (const auto* candidates = candidatesAt(input, at))
                for (const std::size_t index : *candidates)
                    if (startsWithAt(input, at, wholeTokens_[index].text) && (!keep || index < *keep)) keep = index;
            if (keep) {
                const std::size_t length = wholeTokens_[*keep].text.size();
                lowered.insert(lowered.end(), input.begin() + static_cast<std::ptrdiff_t>(at),
                               input.begin() + static_cast<std::ptrdiff_t>(at + length));
                at += length;
            } else {
                detail::appendLowerCase(input[at], lowered);
                ++at;
            }
        }
    }
    const std::span<const TrackedChar> chars =
        config_.doLowerCase ? std::span<const TrackedChar>(lowered) : std::span<const TrackedChar>(input);

    const detail::BasicTokenizerOptions basic{config_.doLowerCase, config_.stripAccents.value_or(config_.doLowerCase),
                                              config_.tokenizeChineseChars};
    std::vector<detail::TokenPiece> out;
    std::vector<detail::TrackedText> words;
    const auto tokenizeStretch = [&](std::size_t first, std::size_t last) {
        if (sentencePiece_) {
            if (first < last)
                sentencePiece_->appendPieces(text.substr(chars[first].begin, chars[last - 1].end - chars[first].begin),
                                             chars[first].begin, unk_, out);
            return;
        }
        words.clear();
        detail::basicTokenize(chars.subspan(first, last - first), basic, words);
        for (const auto& word : words) detail::appendWordPieces(vocabulary_, word, unk_, config_.unkToken, out);
    };
    // Added and special tokens split the text first (leftmost, then longest match, as the
    // reference's trie); what lies between them goes through basic tokenization and WordPiece.
    std::size_t stretch = 0;
    for (std::size_t at = 0; at < chars.size();) {
        const WholeToken* match = nullptr;
        if (const auto* candidates = candidatesAt(chars, at))
            for (const std::size_t index : *candidates)
                if (startsWithAt(chars, at, wholeTokens_[index].text)) {
                    match = &wholeTokens_[index];
                    break;  // candidates are longest first
                }
        if (!match) {
            ++at;
            continue;
        }
        tokenizeStretch(stretch, at);
        std::size_t begin = chars[at].begin, end = chars[at].end;
        for (std::size_t k = at; k < at + match->text.size(); ++k) {
            begin = std::min(begin, chars[k].begin);
            end = std::max(end, chars[k].end);
        }
        out.push_back({match->id, match->utf8, begin, end});
        at += match->text.size();
        stretch = at;
    }
    tokenizeStretch(stretch, chars.size());
    return out;
}

std::vector<std::string> BertTokenizer::tokenize(std::string_view text) const {
    std::vector<std::string> tokens;
    for (auto& piece : pieces(text)) tokens.push_back(std::move(piece.text));
    return tokens;
}

Encoding BertTokenizer::encode(std::string_view text, const EncodeOptions& options) const {
    if (options.addSpecialTokens && options.maxLength < 2)
        throw Error("maxLength " + std::to_string(options.maxLength) + " leaves no room for [CLS] and [SEP]");
    std::vector<detail::TokenPiece> tokens = pieces(text);
    const std::size_t room = options.addSpecialTokens ? options.maxLength - 2 : options.maxLength;
    if (tokens.size() > room) tokens.resize(room);  // the reference keeps the first pieces

    Encoding encoding;
    const std::size_t total = options.padToMaxLength ? std::max(options.maxLength, tokens.size())
                                                     : tokens.size() + (options.addSpecialTokens ? 2 : 0);
    encoding.ids.reserve(total);
    encoding.offsets.reserve(total);
    const auto push = [&](std::int32_t id, std::size_t begin, std::size_t end, std::uint8_t attend) {
        encoding.ids.push_back(id);
        encoding.offsets.emplace_back(begin, end);
        encoding.attentionMask.push_back(attend);
    };
    if (options.addSpecialTokens) push(cls_, 0, 0, 1);
    for (const auto& token : tokens) push(token.id, token.begin, token.end, 1);
    if (options.addSpecialTokens) push(sep_, 0, 0, 1);
    if (options.padToMaxLength)
        while (encoding.ids.size() < options.maxLength) push(pad_, 0, 0, 0);
    encoding.typeIds.assign(encoding.ids.size(), 0);
    return encoding;
}

std::vector<std::int32_t> BertTokenizer::addTokens(std::span<const std::string> tokens) {
    for (const auto& token : tokens) checkTokenText(token, "added token");
    std::vector<std::int32_t> ids;
    ids.reserve(tokens.size());
    for (const auto& token : tokens) {
        if (const auto known = addedIds_.find(token); known != addedIds_.end()) {
            ids.push_back(known->second);
            continue;
        }
        const auto special = std::find_if(wholeTokens_.begin(), wholeTokens_.end(),
                                          [&](const WholeToken& w) { return w.utf8 == token; });
        if (special != wholeTokens_.end()) {
            ids.push_back(special->id);
            continue;
        }
        const auto id = vocabulary_.id(token) ? *vocabulary_.id(token) : nextId();
        config_.addedTokens.emplace_back(token, id);
        addedIds_.emplace(token, id);
        wholeTokens_.push_back({detail::toCodePoints(token), token, id});  // so a repeat is found
        ids.push_back(id);
    }
    std::stable_sort(config_.addedTokens.begin(), config_.addedTokens.end(),
                     [](const auto& a, const auto& b) { return a.second < b.second; });
    indexWholeTokens();
    return ids;
}

std::optional<std::int32_t> BertTokenizer::tokenId(std::string_view token) const {
    if (const auto it = addedIds_.find(token); it != addedIds_.end()) return it->second;
    return vocabulary_.id(token);
}

std::int32_t BertTokenizer::nextId() const {
    const std::size_t next = vocabularySize();
    if (next > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw Error("tokenizer: no token id is left for a new token (ids are 32-bit)");
    return static_cast<std::int32_t>(next);
}

std::size_t BertTokenizer::vocabularySize() const noexcept {
    std::size_t size = vocabulary_.size();
    for (const auto& entry : config_.addedTokens) size = std::max(size, static_cast<std::size_t>(entry.second) + 1);
    return size;
}

}  // namespace linkscope::encoder
