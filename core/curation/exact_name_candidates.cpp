#include "curation/exact_name_candidates.h"

#include <algorithm>
#include <unordered_set>

#include "kb/knowledge_base.h"

namespace linkscope::curation {
namespace {

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
char upper(char c) noexcept { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }
bool isLetter(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

std::vector<std::string> nameCaseVariants(std::string_view text) {
    std::string lowered(text), capitalised, titled, uppered(text);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(), lower);
    std::transform(uppered.begin(), uppered.end(), uppered.begin(), upper);
    capitalised = lowered;
    if (!capitalised.empty()) capitalised[0] = upper(capitalised[0]);
    titled = lowered;
    // A word starts after a space, hyphen, comma or parenthesis ("Diabetes Mellitus, Type 2").
    bool wordStart = true;
    for (char& c : titled) {
        if (wordStart) c = upper(c);
        wordStart = !isLetter(c) && !(c >= '0' && c <= '9') && c != '\'' && static_cast<unsigned char>(c) < 0x80;
    }
    std::vector<std::string> variants;
    for (const std::string& variant : {std::string(text), lowered, capitalised, titled, uppered})
        if (std::find(variants.begin(), variants.end(), variant) == variants.end()) variants.push_back(variant);
    return variants;
}

std::vector<CandidateRow> exactNameCandidates(const kb::KnowledgeBase& kb, std::string_view text, std::size_t k) {
    std::vector<CandidateRow> rows;
    if (k == 0 || text.empty()) return rows;
    std::unordered_set<kb::EntityIndex> listed;
    for (const std::string& variant : nameCaseVariants(text)) {
        const auto entities = kb.findByName(variant);
        for (const kb::EntityIndex entity : entities) {
            if (!listed.insert(entity).second) continue;
            CandidateRow row;
            row.entity = std::string(kb.primaryId(entity));
            row.matchedName = variant;
            row.score = 1.0;
            row.sharedName = entities.size() > 1;
            rows.push_back(std::move(row));
            if (rows.size() == k) return rows;
        }
    }
    return rows;
}

}  // namespace linkscope::curation
