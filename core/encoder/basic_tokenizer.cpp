#include "encoder/basic_tokenizer.h"

namespace linkscope::encoder::detail {
namespace {

// _clean_text and _tokenize_chinese_chars in one pass.
TrackedText cleanText(std::span<const TrackedChar> text, bool splitCjk) {
    TrackedText out;
    out.reserve(text.size());
    for (const auto& c : text) {
        if (c.codePoint == 0 || c.codePoint == 0xFFFD || isBertControl(c.codePoint)) continue;
        if (isBertWhitespace(c.codePoint)) {
            out.push_back({U' ', c.begin, c.end});
        } else if (splitCjk && isCjkIdeograph(c.codePoint)) {
            out.push_back({U' ', c.begin, c.begin});
            out.push_back(c);
            out.push_back({U' ', c.end, c.end});
        } else {
            out.push_back(c);
        }
    }
    return out;
}

TrackedText lowerCase(std::span<const TrackedChar> word) {
    TrackedText out;
    out.reserve(word.size());
    for (const auto& c : word) appendLowerCase(c, out);
    return out;
}

// _run_strip_accents: NFD, then drop the combining marks (an accented letter keeps its base
// letter, which keeps the accented letter's bytes).
TrackedText stripAccents(std::span<const TrackedChar> word) {
    TrackedText decomposed = normalize(word, NormalForm::nfd);
    std::erase_if(decomposed, [](const TrackedChar& c) { return isNonSpacingMark(c.codePoint); });
    return decomposed;
}

// _run_split_on_punc followed by the final whitespace_tokenize: every punctuation character is
// a word of its own; a space a normalization might have produced separates words.
void splitOnPunctuation(std::span<const TrackedChar> word, std::vector<TrackedText>& words) {
    bool startNewWord = true;
    for (const auto& c : word) {
        if (isPythonSpace(c.codePoint)) {
            startNewWord = true;
        } else if (isBertPunctuation(c.codePoint)) {
            words.push_back({c});
            startNewWord = true;
        } else {
            if (startNewWord) words.emplace_back();
            startNewWord = false;
            words.back().push_back(c);
        }
    }
}

}  // namespace

void basicTokenize(std::span<const TrackedChar> text, const BasicTokenizerOptions& options,
                   std::vector<TrackedText>& words) {
    // The reference composes (NFC) the whole text before splitting it, so that a letter and a
    // combining accent typed separately behave like the precomposed letter.
    const TrackedText composed = normalize(cleanText(text, options.splitCjk), NormalForm::nfc);
    const std::span<const TrackedChar> all(composed);
    for (std::size_t first = 0; first < all.size();) {
        if (isPythonSpace(all[first].codePoint)) {
            ++first;
            continue;
        }
        std::size_t last = first;
        while (last < all.size() && !isPythonSpace(all[last].codePoint)) ++last;
        const auto token = all.subspan(first, last - first);
        if (options.lowerCase) {
            const TrackedText lowered = lowerCase(token);
            splitOnPunctuation(options.stripAccents ? stripAccents(lowered) : lowered, words);
        } else if (options.stripAccents) {
            splitOnPunctuation(stripAccents(token), words);
        } else {
            splitOnPunctuation(token, words);
        }
        first = last;
    }
}

}  // namespace linkscope::encoder::detail
