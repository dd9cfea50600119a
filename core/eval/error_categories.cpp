#include "eval/error_categories.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "kb/knowledge_base.h"
#include "util/error.h"

namespace linkscope::eval {
namespace {

constexpr std::array<std::string_view, kErrorCategoryCount> kNames = {
    "unseen",   "homonym", "composite",         "abbreviation",     "contextual entity",
    "hypernym", "hyponym", "overlapped entity", "incomplete synset"};

using WordSet = std::vector<std::string>;  // sorted, distinct

WordSet wordSet(std::string_view text) {
    WordSet words = comparisonWords(text);
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    return words;
}

bool strictSubset(const WordSet& small, const WordSet& large) {
    return small.size() < large.size() && std::includes(large.begin(), large.end(), small.begin(), small.end());
}

bool shareWord(const WordSet& a, const WordSet& b) {
    for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end();) {
        if (*i == *j) return true;
        if (*i < *j)
            ++i;
        else
            ++j;
    }
    return false;
}

// The mention, exactly as written, is a KB name of several entities (KnowledgeBase::findByName,
// BELHD's criterion for a homonym name).
bool isKbHomonym(std::string_view mention, const kb::KnowledgeBase& kb) { return kb.findByName(mention).size() > 1; }

}  // namespace

std::vector<ErrorCategory> ErrorCategories::list() const {
    std::vector<ErrorCategory> out;
    for (std::size_t i = 0; i < kErrorCategoryCount; ++i)
        if (has(static_cast<ErrorCategory>(i))) out.push_back(static_cast<ErrorCategory>(i));
    return out;
}

std::string_view errorCategoryName(ErrorCategory category) noexcept {
    const auto i = static_cast<std::size_t>(category);
    return i < kNames.size() ? kNames[i] : std::string_view("?");
}

std::string describe(ErrorCategories categories) {
    std::string out;
    for (const ErrorCategory c : categories.list()) {
        if (!out.empty()) out += ", ";
        out += errorCategoryName(c);
    }
    return out;
}

bool isBioSynErrorKind(ErrorCategory category) noexcept {
    return static_cast<unsigned>(category) >= static_cast<unsigned>(ErrorCategory::ContextualEntity);
}

std::vector<std::string> comparisonWords(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
    const auto length = static_cast<std::int32_t>(text.size());
    for (std::int32_t i = 0; i < length;) {
        UChar32 c = 0;
        U8_NEXT(bytes, i, length, c);
        if (c < 0) throw Error("text is not valid UTF-8: \"" + std::string(text) + "\"");
        if (!u_isalnum(c)) {
            if (!word.empty()) words.push_back(std::move(word));
            word.clear();
            continue;
        }
        std::uint8_t buffer[U8_MAX_LENGTH];
        std::int32_t written = 0;
        U8_APPEND_UNSAFE(buffer, written, u_tolower(c));
        word.append(reinterpret_cast<const char*>(buffer), static_cast<std::size_t>(written));
    }
    if (!word.empty()) words.push_back(std::move(word));
    return words;
}

bool looksLikeShortForm(std::string_view mention) {
    std::size_t characters = 0, upper = 0, lower = 0;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(mention.data());
    const auto length = static_cast<std::int32_t>(mention.size());
    for (std::int32_t i = 0; i < length;) {
        UChar32 c = 0;
        U8_NEXT(bytes, i, length, c);
        if (c < 0 || u_isUWhiteSpace(c)) return false;
        ++characters;
        if (u_isupper(c))
            ++upper;
        else if (u_islower(c))
            ++lower;
    }
    return characters >= 2 && characters <= 10 && upper > 0 && upper >= lower;
}

ErrorCategories categorizeMention(const MentionOutcomeFacts& facts, const kb::KnowledgeBase* kb) {
    ErrorCategories out;

    std::optional<bool> seen = facts.seen;
    if (facts.trainingIds)
        seen = !facts.goldIds.empty() &&
               std::all_of(facts.goldIds.begin(), facts.goldIds.end(),
                           [&](const std::string& id) { return facts.trainingIds->contains(id); });
    if (seen.has_value() && !*seen) out.add(ErrorCategory::Unseen);

    if (facts.predictedIds.size() > 1 || (kb && isKbHomonym(facts.mention, *kb))) out.add(ErrorCategory::Homonym);
    if (facts.goldIds.size() > 1) out.add(ErrorCategory::Composite);

    const bool definedShortForm = std::find(facts.documentShortForms.begin(), facts.documentShortForms.end(),
                                            facts.mention) != facts.documentShortForms.end();
    if (definedShortForm || facts.abbreviationExpanded || looksLikeShortForm(facts.mention))
        out.add(ErrorCategory::Abbreviation);

    if (facts.correct || facts.predictedIds.empty()) return out;

    const WordSet mention = wordSet(facts.mention);
    const WordSet predicted = wordSet(facts.predictedName);
    if (!mention.empty() && mention == predicted)
        out.add(ErrorCategory::ContextualEntity);
    else if (shareWord(mention, predicted))
        out.add(ErrorCategory::OverlappedEntity);

    if (!kb || mention.empty()) return out;
    bool anyGoldName = false;
    bool sharesWithGold = false;
    for (const std::string& id : facts.goldIds) {
        const auto entity = kb->findEntity(id);
        if (!entity) continue;
        for (const std::string_view name : kb->names(*entity)) {
            const WordSet gold = wordSet(name);
            if (gold.empty()) continue;
            anyGoldName = true;
            if (shareWord(mention, gold)) sharesWithGold = true;
            if (strictSubset(mention, gold)) out.add(ErrorCategory::Hypernym);
            if (strictSubset(gold, mention)) out.add(ErrorCategory::Hyponym);
        }
    }
    if (anyGoldName && !sharesWithGold) out.add(ErrorCategory::IncompleteSynset);
    return out;
}

}  // namespace linkscope::eval
