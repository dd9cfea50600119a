#include "text/abbreviations.h"

#include <algorithm>
#include <optional>
#include <string>

#include "text/code_points.h"

namespace linkscope::text {
namespace {

using detail::CodePoint;
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// For every "(" the index of its matching ")" or kNone. Matching restarts at each line break
// so that one stray parenthesis cannot pair up with text paragraphs away.
std::vector<std::size_t> matchParentheses(const std::vector<CodePoint>& text) {
    std::vector<std::size_t> closeOf(text.size(), kNone);
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char32_t c = text[i].value;
        if (c == U'\n') {
            open.clear();
        } else if (c == U'(') {
            open.push_back(i);
        } else if (c == U')' && !open.empty()) {
            closeOf[open.back()] = i;
            open.pop_back();
        }
    }
    return closeOf;
}

struct Range {
    std::size_t begin = 0;  // code point indexes, half-open
    std::size_t end = 0;
    std::size_t size() const noexcept { return end - begin; }
    bool empty() const noexcept { return begin >= end; }
};

Range trim(const std::vector<CodePoint>& text, Range r) {
    while (r.begin < r.end && detail::isWhiteSpace(text[r.begin].value)) ++r.begin;
    while (r.end > r.begin && detail::isWhiteSpace(text[r.end - 1].value)) --r.end;
    return r;
}

// Number of words of r, words being separated by white space (and by hyphens when asked: the
// reference implementation counts long-form words with StringTokenizer(" \t\n\r\f-")).
std::size_t countWords(const std::vector<CodePoint>& text, Range r, bool hyphenSeparates) {
    std::size_t words = 0;
    bool inWord = false;
    for (std::size_t i = r.begin; i < r.end; ++i) {
        const char32_t c = text[i].value;
        const bool separator = detail::isWhiteSpace(c) || (hyphenSeparates && c == U'-');
        if (!separator && !inWord) ++words;
        inWord = !separator;
    }
    return words;
}

bool isClausePunctuation(char32_t c) { return c == U'.' || c == U',' || c == U';'; }

// Start of the clause that ends just before position `paren` (see the header comment).
std::size_t clauseStart(const std::vector<CodePoint>& text, const std::vector<std::size_t>& closeOf,
                        std::size_t paren) {
    for (std::size_t j = paren; j-- > 0;) {
        const char32_t c = text[j].value;
        if (c == U'\n' || c == U')') return j + 1;
        if (c == U'(' && (closeOf[j] == kNone || closeOf[j] > paren)) return j + 1;  // enclosing
        if (isClausePunctuation(c) && j + 1 < paren && detail::isWhiteSpace(text[j + 1].value)) return j + 1;
    }
    return 0;
}

// Cuts a parenthesised candidate at its first ", " or "; " ("(ToM; Smith 2009)" -> "ToM").
Range cutAtListSeparator(const std::vector<CodePoint>& text, Range r) {
    for (std::size_t i = r.begin; i + 1 < r.end; ++i)
        if ((text[i].value == U',' || text[i].value == U';') && detail::isWhiteSpace(text[i + 1].value))
            return {r.begin, i};
    return r;
}

bool isValidShortForm(const std::vector<CodePoint>& text, Range r) {
    if (r.size() < 2 || r.size() > 10) return false;
    if (countWords(text, r, false) > 2) return false;
    if (!detail::isLetterOrDigit(text[r.begin].value)) return false;
    for (std::size_t i = r.begin; i < r.end; ++i)
        if (detail::isLetter(text[i].value)) return true;
    return false;
}

bool hasCapital(const std::vector<CodePoint>& text, Range r) {
    for (std::size_t i = r.begin; i < r.end; ++i)
        if (detail::isUpperCase(text[i].value)) return true;
    return false;
}

std::size_t countLettersAndDigits(const std::vector<CodePoint>& text, Range r) {
    std::size_t count = 0;
    for (std::size_t i = r.begin; i < r.end; ++i)
        if (detail::isLetterOrDigit(text[i].value)) ++count;
    return count;
}

struct LongFormMatch {
    std::size_t begin = 0;      // first character of the long form
    std::size_t lastMatch = 0;  // character matched by the last letter or digit of the short form
};

// Schwartz & Hearst's findBestLongForm: where the long form starts inside `candidate`, or
// nullopt. Short-form characters are matched right to left; characters that are not letters or
// digits are skipped; the first short-form character must begin a word of the long form.
std::optional<LongFormMatch> findBestLongForm(const std::vector<CodePoint>& text, Range shortForm, Range candidate) {
    auto l = static_cast<std::ptrdiff_t>(candidate.end) - 1;
    const auto lBegin = static_cast<std::ptrdiff_t>(candidate.begin);
    std::optional<std::size_t> lastMatch;
    for (auto s = static_cast<std::ptrdiff_t>(shortForm.end) - 1; s >= static_cast<std::ptrdiff_t>(shortForm.begin);
         --s) {
        const char32_t c = detail::toLowerSimple(text[static_cast<std::size_t>(s)].value);
        if (!detail::isLetterOrDigit(c)) continue;
        const bool first = s == static_cast<std::ptrdiff_t>(shortForm.begin);
        while ((l >= lBegin && detail::toLowerSimple(text[static_cast<std::size_t>(l)].value) != c) ||
               (first && l > lBegin && detail::isLetterOrDigit(text[static_cast<std::size_t>(l - 1)].value)))
            --l;
        if (l < lBegin) return std::nullopt;
        if (!lastMatch) lastMatch = static_cast<std::size_t>(l);
        --l;
    }
    if (!lastMatch) return std::nullopt;
    // The long form begins with the word that holds the first match.
    while (l >= lBegin && !detail::isWhiteSpace(text[static_cast<std::size_t>(l)].value)) --l;
    return LongFormMatch{static_cast<std::size_t>(l + 1), *lastMatch};
}

// Two guards beyond the paper, both against long forms that are not one name:
// - a long form that is a single token without lower-case letters is itself an abbreviation
//   ("The ATM (A-T, mutated) gene" would otherwise define A-T as "ATM");
// - words after the one that holds the short form's last character may not contain "and" or
//   "or" ("spinocerebellar ataxias 1 and 2 (SCA1, ...)" would define SCA1 as all of it).
bool isPlausibleLongForm(const std::vector<CodePoint>& text, Range longForm, std::size_t lastMatch) {
    bool hasSpace = false;
    bool hasLower = false;
    for (std::size_t i = longForm.begin; i < longForm.end; ++i) {
        hasSpace = hasSpace || detail::isWhiteSpace(text[i].value);
        hasLower = hasLower || detail::isLowerCase(text[i].value);
    }
    if (!hasSpace && !hasLower) return false;
    std::size_t i = lastMatch;
    while (i < longForm.end && !detail::isWhiteSpace(text[i].value)) ++i;  // rest of that word
    std::u32string word;
    for (; i <= longForm.end; ++i) {
        if (i == longForm.end || detail::isWhiteSpace(text[i].value)) {
            if (word == U"and" || word == U"or") return false;
            word.clear();
        } else {
            word.push_back(detail::toLowerSimple(text[i].value));
        }
    }
    return true;
}

// True when the code points of `needle` occur in `haystack` as a whole word (bounded by
// characters that are neither letters nor digits).
bool containsAsWord(const std::vector<CodePoint>& text, Range haystack, Range needle) {
    if (needle.empty() || needle.size() > haystack.size()) return false;
    for (std::size_t i = haystack.begin; i + needle.size() <= haystack.end; ++i) {
        bool equal = true;
        for (std::size_t k = 0; k < needle.size() && equal; ++k)
            equal = text[i + k].value == text[needle.begin + k].value;
        if (!equal) continue;
        const std::size_t after = i + needle.size();
        const bool startsWord = i == haystack.begin || !detail::isLetterOrDigit(text[i - 1].value);
        const bool endsWord = after == haystack.end || !detail::isLetterOrDigit(text[after].value);
        if (startsWord && endsWord) return true;
    }
    return false;
}

std::string slice(std::string_view utf8, const std::vector<CodePoint>& text, Range r) {
    if (r.empty()) return {};
    return std::string(utf8.substr(text[r.begin].byteBegin, text[r.end - 1].byteEnd - text[r.begin].byteBegin));
}

TextSpan bytesOf(const std::vector<CodePoint>& text, Range r) {
    return {text[r.begin].byteBegin, text[r.end - 1].byteEnd};
}

}  // namespace

std::vector<AbbreviationDefinition> findAbbreviations(std::string_view utf8) {
    const auto text = detail::decode(utf8);
    const auto closeOf = matchParentheses(text);
    std::vector<AbbreviationDefinition> found;
    for (std::size_t paren = 1; paren < text.size(); ++paren) {
        if (text[paren].value != U'(' || closeOf[paren] == kNone) continue;
        if (!detail::isWhiteSpace(text[paren - 1].value)) continue;  // "IL-2(human)" is not a definition

        Range shortForm = trim(text, cutAtListSeparator(text, {paren + 1, closeOf[paren]}));
        Range longCandidate = trim(text, {clauseStart(text, closeOf, paren), paren});
        if (shortForm.empty() || longCandidate.size() < 2) continue;

        bool reversed = false;
        if (countWords(text, shortForm, false) > 2 || shortForm.size() > longCandidate.size()) {
            // "short form (long form)": the short form is the word before the parenthesis.
            std::size_t wordBegin = longCandidate.end;
            while (wordBegin > longCandidate.begin && !detail::isWhiteSpace(text[wordBegin - 1].value)) --wordBegin;
            const Range word{wordBegin, longCandidate.end};
            if (!hasCapital(text, word)) continue;
            longCandidate = shortForm;
            shortForm = word;
            reversed = true;
        }
        if (!isValidShortForm(text, shortForm)) continue;
        const std::size_t letters = countLettersAndDigits(text, shortForm);
        if (letters > 10) continue;

        const auto match = findBestLongForm(text, shortForm, longCandidate);
        if (!match) continue;
        const Range longForm = trim(text, {match->begin, longCandidate.end});
        if (longForm.size() < shortForm.size()) continue;
        if (!isPlausibleLongForm(text, longForm, match->lastMatch)) continue;
        if (containsAsWord(text, longForm, shortForm)) continue;
        if (countWords(text, longForm, true) > std::min(letters + 5, letters * 2)) continue;

        AbbreviationDefinition definition;
        definition.shortForm = slice(utf8, text, shortForm);
        definition.longForm = slice(utf8, text, longForm);
        definition.shortSpan = {shortForm.begin, shortForm.end};
        definition.longSpan = {longForm.begin, longForm.end};
        definition.shortBytes = bytesOf(text, shortForm);
        definition.longBytes = bytesOf(text, longForm);
        definition.longFormInParentheses = reversed;
        found.push_back(std::move(definition));
    }
    return found;
}

namespace {

bool equalsIgnoringAsciiCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
        if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
}

// True when the short form at [begin, end) of text is written "long form (SF)": the mention
// quotes the definition itself, and expanding it would only repeat the long form.
bool isTheDefinitionItself(std::string_view text, std::size_t begin, std::size_t end, std::string_view longForm) {
    const auto isBlank = [](char c) { return c == ' ' || c == '\t'; };
    std::size_t open = begin;
    while (open > 0 && isBlank(text[open - 1])) --open;
    if (open == 0 || text[open - 1] != '(') return false;
    std::size_t close = end;
    while (close < text.size() && isBlank(text[close])) ++close;
    if (close >= text.size() || text[close] != ')') return false;
    std::size_t before = open - 1;
    while (before > 0 && isBlank(text[before - 1])) --before;
    return before >= longForm.size() &&
           equalsIgnoringAsciiCase(text.substr(before - longForm.size(), longForm.size()), longForm);
}

// One left-to-right replacement pass; returns true when something was replaced.
bool expandOnce(std::string_view mention, std::span<const AbbreviationDefinition> definitions,
                const std::vector<std::size_t>& order, std::string& out, std::vector<std::size_t>& applied) {
    out.clear();
    const auto text = detail::decode(mention);
    // Code point index of each byte offset that starts a character (and of the end).
    std::vector<std::size_t> indexOfByte(mention.size() + 1, kNone);
    for (std::size_t i = 0; i < text.size(); ++i) indexOfByte[text[i].byteBegin] = i;
    indexOfByte[mention.size()] = text.size();

    bool replacedAny = false;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t byte = text[i].byteBegin;
        const bool atWordStart = i == 0 || !detail::isLetterOrDigit(text[i - 1].value);
        bool replaced = false;
        if (atWordStart) {
            for (const std::size_t k : order) {
                const std::string& shortForm = definitions[k].shortForm;
                if (mention.compare(byte, shortForm.size(), shortForm) != 0) continue;
                const std::size_t endByte = byte + shortForm.size();
                const std::size_t end = indexOfByte[endByte];
                if (end == kNone) continue;  // would end inside a character
                if (end < text.size() && detail::isLetterOrDigit(text[end].value)) continue;
                if (isTheDefinitionItself(mention, byte, endByte, definitions[k].longForm)) continue;
                out += definitions[k].longForm;
                if (std::find(applied.begin(), applied.end(), k) == applied.end()) applied.push_back(k);
                i = end;
                replaced = true;
                break;
            }
        }
        if (replaced) {
            replacedAny = true;
        } else {
            out.append(mention, byte, text[i].byteEnd - byte);
            ++i;
        }
    }
    return replacedAny;
}

}  // namespace

ExpandedMention expandAbbreviations(std::string_view mention, std::span<const AbbreviationDefinition> definitions) {
    // The candidates: first definition of each short form, longest short forms first so that
    // "HD-1" is preferred over "HD" where both are defined.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < definitions.size(); ++i) {
        const auto& shortForm = definitions[i].shortForm;
        if (shortForm.empty()) continue;
        const bool seen = std::any_of(order.begin(), order.end(),
                                      [&](std::size_t k) { return definitions[k].shortForm == shortForm; });
        if (!seen) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return definitions[a].shortForm.size() > definitions[b].shortForm.size();
    });

    ExpandedMention result;
    result.text.assign(mention);
    std::string next;
    // Long forms may hold short forms ("isolated DMS (IDMS)"): repeat, as BioSyn does until
    // nothing changes, but a bounded number of times so that cyclic definitions terminate.
    for (int pass = 0; pass < kMaxExpansionPasses; ++pass) {
        if (!expandOnce(result.text, definitions, order, next, result.applied)) break;
        result.text.swap(next);
    }
    return result;
}

}  // namespace linkscope::text
