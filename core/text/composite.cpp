#include "text/composite.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <utility>

#include "text/code_points.h"

namespace linkscope::text {
namespace {

using Words = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------
// Word classes. Small closed lists: they only steer where shared words are cut, and a wrong
// guess costs one badly split mention, not a wrong link elsewhere.

std::string lowerAscii(std::string_view word) {
    std::string lower(word);
    for (char& c : lower)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return lower;
}

bool isOneOf(std::string_view lower, std::initializer_list<std::string_view> list) {
    return std::find(list.begin(), list.end(), lower) != list.end();
}

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool isPreposition(std::string_view word) { return isOneOf(lowerAscii(word), {"of", "in", "to", "with", "on"}); }

bool isDeterminer(std::string_view word) { return isOneOf(lowerAscii(word), {"the", "a", "an"}); }

// "both X and Y", "either X or Y": markers of the coordination itself, not part of any name.
bool isCoordinationMarker(std::string_view word) { return isOneOf(lowerAscii(word), {"both", "either", "neither"}); }

// Singular candidates of a lower-case word: itself and its forms without a plural ending.
std::vector<std::string> singulars(const std::string& lower) {
    std::vector<std::string> forms{lower};
    if (endsWith(lower, "ies") && lower.size() > 4) forms.push_back(lower.substr(0, lower.size() - 3) + "y");
    if (endsWith(lower, "es") && lower.size() > 3) forms.push_back(lower.substr(0, lower.size() - 2));
    if (endsWith(lower, "s") && lower.size() > 2) forms.push_back(lower.substr(0, lower.size() - 1));
    return forms;
}

// A word that names a disease by itself ("cancer", "adenomas", "dystrophy"): when the first
// conjunct ends in one, it is a complete name and shares nothing with the others.
bool isDiseaseHead(std::string_view word) {
    static constexpr std::array<std::string_view, 52> kHeads = {
        "cancer",      "tumor",         "tumour",        "neoplasm",     "neoplasia", "syndrome",     "disease",
        "disorder",    "deficiency",    "defect",        "abnormality",  "anomaly",   "malformation", "dysfunction",
        "failure",     "insufficiency", "infection",     "injury",       "lesion",    "cyst",         "polyp",
        "ataxia",      "dystonia",      "palsy",         "paralysis",    "loss",      "deafness",     "blindness",
        "retardation", "ulcer",         "hernia",        "dementia",     "epilepsy",  "seizure",      "stroke",
        "hemorrhage",  "haemorrhage",   "bleeding",      "pain",         "fever",     "degeneration", "agenesis",
        "dysgenesis",  "hemophilia",    "haemophilia",   "inflammation", "obesity",   "diabetes",     "asthma",
        "autism",      "cataract",      "leukodystrophy"};
    static constexpr std::array<std::string_view, 11> kEndings = {"oma",    "itis",  "pathy", "emia", "osis", "plasia",
                                                                  "trophy", "algia", "ism",   "cele", "iasis"};
    for (const auto& form : singulars(lowerAscii(word))) {
        if (std::find(kHeads.begin(), kHeads.end(), form) != kHeads.end()) return true;
        for (const auto ending : kEndings)
            if (form.size() > ending.size() + 1 && endsWith(form, ending)) return true;
    }
    return false;
}

bool sameHead(std::string_view a, std::string_view b) {
    const auto formsA = singulars(lowerAscii(a));
    const auto formsB = singulars(lowerAscii(b));
    for (const auto& x : formsA)
        if (std::find(formsB.begin(), formsB.end(), x) != formsB.end()) return true;
    return false;
}

// An adjective by its ending ("muscular", "serous", "congenital"): in a shared head
// such words stay with the noun after them ("Becker muscular dystrophy").
bool isAdjectiveLike(std::string_view word) {
    const std::string lower = lowerAscii(word);
    if (lower.size() < 5) return false;
    for (const auto ending : {"al", "ar", "ic", "ous", "ive", "ary", "oid", "ile"})
        if (endsWith(lower, ending)) return true;
    return false;
}

// Modifiers that come in parallel pairs ("male and female", "sporadic and hereditary",
// "syndromic and non-syndromic"): the conjunct is that one word and everything after it is
// shared.
bool isParallelModifier(std::string_view word) {
    std::string lower = lowerAscii(word);
    if (lower.starts_with("non-"))
        lower.erase(0, 4);
    else if (lower.starts_with("non") && lower.size() > 6)
        lower.erase(0, 3);
    return isOneOf(
        lower,
        {"male",       "female",      "early",      "late",      "adult",      "juvenile",  "childhood", "infantile",
         "congenital", "acquired",    "familial",   "sporadic",  "hereditary", "inherited", "primary",   "secondary",
         "benign",     "malignant",   "acute",      "chronic",   "mild",       "severe",    "left",      "right",
         "upper",      "lower",       "unilateral", "bilateral", "autosomal",  "dominant",  "recessive", "syndromic",
         "isolated",   "typical",     "atypical",   "classic",   "classical",  "complete",  "partial",   "focal",
         "diffuse",    "generalized", "localized",  "invasive",  "metastatic", "proximal",  "distal",    "central",
         "peripheral", "maternal",    "paternal"});
}

// Numbers, single capitals, roman numerals and short codes ("1", "B", "IV", "C6", "1A"): the
// members of an enumeration such as "type 1 or 2 diabetes" or "hemophilia A and B".
bool isIdentifierLike(std::string_view word) {
    if (word.empty() || word.size() > 4) return false;
    bool digit = false;
    bool roman = true;
    for (const char c : word) {
        const bool isDigit = c >= '0' && c <= '9';
        const bool isUpper = c >= 'A' && c <= 'Z';
        const bool isLower = c >= 'a' && c <= 'z';
        if (!isDigit && !isUpper && !isLower) return false;
        digit = digit || isDigit;
        roman = roman && (c == 'I' || c == 'V' || c == 'X');
    }
    if (digit) return true;
    if (word.size() == 1) return word[0] >= 'A' && word[0] <= 'Z';
    return roman;
}

// ---------------------------------------------------------------------------------------------
// Reading the mention as runs of words separated by coordinators.

enum class TokenKind { Word, Comma, Slash, Conjunction };

struct Token {
    TokenKind kind;
    std::string text;
};

std::vector<Token> tokenize(std::string_view mention) {
    std::vector<Token> raw;
    std::string word;
    const auto flush = [&] {
        if (!word.empty()) raw.push_back({TokenKind::Word, std::move(word)});
        word.clear();
    };
    for (const auto& cp : detail::decode(mention)) {
        const char32_t c = cp.value;
        if (detail::isWhiteSpace(c) || c == U'(' || c == U')' || c == U'[' || c == U']' || c == U'{' || c == U'}') {
            flush();
        } else if (c == U',' || c == U';') {
            flush();
            raw.push_back({TokenKind::Comma, ","});
        } else if (c == U'/') {
            flush();
            raw.push_back({TokenKind::Slash, "/"});
        } else if (c == U'&') {
            flush();
            raw.push_back({TokenKind::Conjunction, "&"});
        } else {
            word.append(mention.substr(cp.byteBegin, cp.byteEnd - cp.byteBegin));
        }
    }
    flush();

    std::vector<Token> tokens;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const auto lowerAt = [&](std::size_t k) {
            return k < raw.size() && raw[k].kind == TokenKind::Word ? lowerAscii(raw[k].text) : std::string();
        };
        const std::string lower = lowerAt(i);
        if (lower == "and" && i + 2 < raw.size() && raw[i + 1].kind == TokenKind::Slash && lowerAt(i + 2) == "or") {
            tokens.push_back({TokenKind::Conjunction, "and/or"});
            i += 2;
        } else if (lower == "as" && lowerAt(i + 1) == "well" && lowerAt(i + 2) == "as") {
            tokens.push_back({TokenKind::Conjunction, "as well as"});
            i += 2;
        } else if (lower == "and" || lower == "or" || lower == "nor") {
            tokens.push_back({TokenKind::Conjunction, lower});
        } else {
            tokens.push_back(raw[i]);
        }
    }
    return tokens;
}

// The conjuncts with whatever they share, in mention order: "breast and ovarian cancer" ->
// {"breast"}, {"ovarian", "cancer"}.
using Runs = std::vector<Words>;

Runs readRuns(const std::vector<Token>& tokens) {
    struct Separator {
        bool conjunction = false;
        bool commaOnly = true;
    };
    Runs runs;
    std::vector<Separator> separators;  // separators[i] lies between runs[i] and runs[i + 1]
    Separator pending;
    bool havePending = false;
    for (const auto& token : tokens) {
        if (token.kind == TokenKind::Word) {
            if (runs.empty() || havePending) {
                if (!runs.empty()) separators.push_back(pending);
                runs.emplace_back();
            }
            runs.back().push_back(token.text);
            pending = {};
            havePending = false;
            continue;
        }
        if (runs.empty()) continue;  // leading separators coordinate nothing
        havePending = true;
        pending.conjunction = pending.conjunction || token.kind == TokenKind::Conjunction;
        pending.commaOnly = pending.commaOnly && token.kind == TokenKind::Comma;
    }
    // "colorectal, or other, cancers": a lone comma after the conjunction closes an aside.
    if (separators.size() >= 2 && separators.back().commaOnly &&
        std::any_of(separators.begin(), separators.end() - 1, [](const Separator& s) { return s.conjunction; })) {
        auto last = std::move(runs.back());
        runs.pop_back();
        runs.back().insert(runs.back().end(), last.begin(), last.end());
    }
    if (!runs.empty() && runs.front().size() > 1 && isCoordinationMarker(runs.front().front()))
        runs.front().erase(runs.front().begin());
    return runs;
}

// Joins words with single spaces; a suspended hyphen ("breast- and ovarian cancer") is dropped
// when the word is followed by shared words.
std::string joinWords(const Words& words) {
    std::string text;
    for (std::size_t i = 0; i < words.size(); ++i) {
        std::string_view word = words[i];
        if (i + 1 < words.size() && word.size() > 1 && word.back() == '-') word.remove_suffix(1);
        if (!text.empty()) text.push_back(' ');
        text.append(word);
    }
    return text;
}

Words concat(std::initializer_list<const Words*> pieces) {
    Words words;
    for (const Words* piece : pieces) words.insert(words.end(), piece->begin(), piece->end());
    return words;
}

Words slice(const Words& words, std::size_t begin, std::size_t end) {
    return Words(words.begin() + static_cast<std::ptrdiff_t>(begin), words.begin() + static_cast<std::ptrdiff_t>(end));
}

std::optional<std::size_t> findPreposition(const Words& words, std::size_t from = 0) {
    for (std::size_t i = from; i < words.size(); ++i)
        if (isPreposition(words[i])) return i;
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// The ways of distributing shared words. Each returns nullopt when its form does not apply.

CompositeSplit make(CompositeForm form, const std::vector<Words>& parts) {
    CompositeSplit split;
    split.form = form;
    for (const auto& part : parts) split.parts.push_back(joinWords(part));
    return split;
}

std::optional<CompositeSplit> enumeration(const Runs& runs) {
    const Words& first = runs.front();
    const Words& last = runs.back();
    if (!isIdentifierLike(first.back()) || !isIdentifierLike(last.front())) return std::nullopt;
    for (std::size_t i = 1; i + 1 < runs.size(); ++i)
        if (runs[i].size() != 1 || !isIdentifierLike(runs[i].front())) return std::nullopt;
    const Words prefix = slice(first, 0, first.size() - 1);
    const Words suffix = slice(last, 1, last.size());
    std::vector<Words> parts;
    const Words firstItem{first.back()};
    parts.push_back(concat({&prefix, &firstItem, &suffix}));
    for (std::size_t i = 1; i + 1 < runs.size(); ++i) parts.push_back(concat({&prefix, &runs[i], &suffix}));
    const Words lastItem{last.front()};
    parts.push_back(concat({&prefix, &lastItem, &suffix}));
    return make(CompositeForm::Enumeration, parts);
}

// "deficiency of [both] [the] X and Y": returns the split and the length of X.
std::optional<std::pair<CompositeSplit, std::size_t>> sharedPreposition(const Runs& runs) {
    const Words& first = runs.front();
    const auto preposition = findPreposition(first, 1);
    if (!preposition || *preposition + 1 >= first.size()) return std::nullopt;
    for (std::size_t i = 1; i < runs.size(); ++i)
        if (findPreposition(runs[i])) return std::nullopt;
    std::size_t itemBegin = *preposition + 1;
    Words prefix = slice(first, 0, itemBegin);
    while (itemBegin + 1 < first.size() && (isCoordinationMarker(first[itemBegin]) || isDeterminer(first[itemBegin]))) {
        if (isDeterminer(first[itemBegin])) prefix.push_back(first[itemBegin]);  // "of the X and Y": shared
        ++itemBegin;
    }
    std::vector<Words> parts;
    const Words firstItem = slice(first, itemBegin, first.size());
    parts.push_back(concat({&prefix, &firstItem}));
    for (std::size_t i = 1; i < runs.size(); ++i) parts.push_back(concat({&prefix, &runs[i]}));
    return std::pair{make(CompositeForm::SharedPreposition, parts), firstItem.size()};
}

// The last conjunct is the first `length` words of the last run; the rest is shared by all.
CompositeSplit sharedHead(const Runs& runs, std::size_t length) {
    const Words& last = runs.back();
    const Words head = slice(last, length, last.size());
    std::vector<Words> parts;
    for (std::size_t i = 0; i + 1 < runs.size(); ++i) parts.push_back(concat({&runs[i], &head}));
    const Words lastItem = slice(last, 0, length);
    parts.push_back(concat({&lastItem, &head}));
    return make(CompositeForm::SharedHead, parts);
}

// Where the last conjunct ends when nothing better is known (see the header comment).
std::size_t guessLastConjunctLength(const Runs& runs) {
    const Words& last = runs.back();
    const bool parallelModifiers =
        isParallelModifier(last.front()) && std::all_of(runs.begin(), runs.end() - 1, [](const Words& run) {
            return run.size() == 1 && isParallelModifier(run.front());
        });
    if (parallelModifiers) return 1;
    // The conjunct keeps at least one word that is not a determiner ("the pineal tumours").
    std::size_t shortest = 1;
    while (shortest + 1 < last.size() && isDeterminer(last[shortest - 1])) ++shortest;
    std::size_t headBegin = last.size() - 1;
    while (headBegin > shortest && isAdjectiveLike(last[headBegin - 1])) --headBegin;
    return headBegin;
}

std::optional<CompositeSplit> sharedModifier(const Runs& runs) {
    const Words& first = runs.front();
    if (first.size() < 2) return std::nullopt;
    for (std::size_t i = 1; i < runs.size(); ++i)
        if (runs[i].size() != 1) return std::nullopt;
    const Words prefix = slice(first, 0, first.size() - 1);
    std::vector<Words> parts;
    parts.push_back(first);
    for (std::size_t i = 1; i < runs.size(); ++i) parts.push_back(concat({&prefix, &runs[i]}));
    return make(CompositeForm::SharedModifier, parts);
}

CompositeSplit fullNames(const Runs& runs) { return make(CompositeForm::FullNames, runs); }

// The heuristic choice, without a vocabulary.
CompositeSplit chooseByRules(const Runs& runs) {
    if (auto split = enumeration(runs)) return *split;
    if (auto split = sharedPreposition(runs); split && split->second <= runs.back().size()) return split->first;

    const Words& first = runs.front();
    const Words& last = runs.back();
    // "aplasia or hypoplasia of the thymus": the shared part starts at the preposition.
    if (const auto preposition = findPreposition(last, 1); preposition && !findPreposition(first))
        return sharedHead(runs, *preposition);
    const bool anyPreposition =
        std::any_of(runs.begin(), runs.end(), [](const Words& run) { return findPreposition(run).has_value(); });

    if (last.size() >= 2) {
        if (anyPreposition || isDiseaseHead(first.back()) || (first.size() >= 2 && sameHead(first.back(), last.back())))
            return fullNames(runs);
        return sharedHead(runs, guessLastConjunctLength(runs));
    }
    if (auto split = sharedModifier(runs)) {
        const bool modifiedHead = !isDiseaseHead(first.back()) || isAdjectiveLike(first[first.size() - 2]) ||
                                  isParallelModifier(first[first.size() - 2]);
        if (modifiedHead) return *split;
    }
    return fullNames(runs);
}

std::size_t countKnown(const CompositeSplit& split, const std::function<bool(std::string_view)>& isKnown) {
    return static_cast<std::size_t>(
        std::count_if(split.parts.begin(), split.parts.end(), [&](const std::string& part) { return isKnown(part); }));
}

std::string trimmed(std::string_view mention) {
    const auto cps = detail::decode(mention);
    std::size_t begin = 0;
    std::size_t end = cps.size();
    while (begin < end && detail::isWhiteSpace(cps[begin].value)) ++begin;
    while (end > begin && detail::isWhiteSpace(cps[end - 1].value)) --end;
    if (begin == end) return {};
    return std::string(mention.substr(cps[begin].byteBegin, cps[end - 1].byteEnd - cps[begin].byteBegin));
}

}  // namespace

std::string_view toString(CompositeForm form) noexcept {
    switch (form) {
        case CompositeForm::Single:
            return "single";
        case CompositeForm::Enumeration:
            return "enumeration";
        case CompositeForm::SharedPreposition:
            return "shared-preposition";
        case CompositeForm::SharedHead:
            return "shared-head";
        case CompositeForm::SharedModifier:
            return "shared-modifier";
        case CompositeForm::FullNames:
            return "full-names";
    }
    return "unknown";
}

std::optional<CompositeSplit> splitComposite(std::string_view mention, std::size_t expectedParts,
                                             const CompositeOptions& options) {
    if (expectedParts == 0) return std::nullopt;
    if (expectedParts == 1) {
        std::string whole = trimmed(mention);
        if (whole.empty()) return std::nullopt;
        return CompositeSplit{{std::move(whole)}, CompositeForm::Single};
    }
    const Runs runs = readRuns(tokenize(mention));
    if (runs.size() != expectedParts) return std::nullopt;

    CompositeSplit best = chooseByRules(runs);
    if (!options.isKnownName) return best;

    // With a vocabulary: every applicable split competes; the rules' choice keeps ties.
    std::vector<CompositeSplit> candidates;
    if (auto split = enumeration(runs)) candidates.push_back(std::move(*split));
    if (auto split = sharedPreposition(runs)) candidates.push_back(std::move(split->first));
    for (std::size_t length = 1; length < runs.back().size(); ++length) candidates.push_back(sharedHead(runs, length));
    if (auto split = sharedModifier(runs)) candidates.push_back(std::move(*split));
    candidates.push_back(fullNames(runs));
    std::size_t bestKnown = countKnown(best, options.isKnownName);
    for (auto& candidate : candidates) {
        const std::size_t known = countKnown(candidate, options.isKnownName);
        if (known > bestKnown) {
            bestKnown = known;
            best = std::move(candidate);
        }
    }
    return best;
}

}  // namespace linkscope::text
