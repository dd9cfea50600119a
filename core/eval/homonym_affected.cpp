#include "eval/homonym_affected.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "eval/queries.h"
#include "kb/knowledge_base.h"
#include "util/error.h"

namespace linkscope::eval {
namespace {

std::vector<UChar32> codePoints(std::string_view text) {
    std::vector<UChar32> out;
    out.reserve(text.size());
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
    const auto length = static_cast<std::int32_t>(text.size());
    for (std::int32_t i = 0; i < length;) {
        UChar32 c = 0;
        U8_NEXT(bytes, i, length, c);
        if (c < 0) throw Error("text is not valid UTF-8: \"" + std::string(text) + "\"");
        out.push_back(c);
    }
    return out;
}

/// Longest common subsequence length, two rows of the dynamic programme.
std::size_t lcsLength(const std::vector<UChar32>& a, const std::vector<UChar32>& b) {
    std::vector<std::size_t> previous(b.size() + 1, 0), current(b.size() + 1, 0);
    for (const UChar32 x : a) {
        for (std::size_t j = 0; j < b.size(); ++j)
            current[j + 1] = x == b[j] ? previous[j] + 1 : std::max(previous[j + 1], current[j]);
        std::swap(previous, current);
    }
    return previous[b.size()];
}

}  // namespace

std::string homonymMatchKey(std::string_view text) {
    std::string key;
    key.reserve(text.size());
    for (const UChar32 c : codePoints(text)) {
        if (!u_isalnum(c)) continue;
        const UChar32 lower = u_tolower(c);
        std::uint8_t buffer[U8_MAX_LENGTH];
        std::int32_t written = 0;
        U8_APPEND_UNSAFE(buffer, written, lower);  // a lower-case code point fits in U8_MAX_LENGTH
        key.append(reinterpret_cast<const char*>(buffer), static_cast<std::size_t>(written));
    }
    return key;
}

double indelSimilarity(std::string_view a, std::string_view b) {
    const auto x = codePoints(a);
    const auto y = codePoints(b);
    const std::size_t total = x.size() + y.size();
    if (total == 0) return 1.0;
    // Indel distance = |a| + |b| - 2 * LCS, so the similarity is 2 * LCS / (|a| + |b|).
    return 2.0 * static_cast<double>(lcsLength(x, y)) / static_cast<double>(total);
}

std::size_t markHomonymAffected(std::span<EvalQuery> queries, const kb::KnowledgeBase& kb,
                                const HomonymAffectedOptions& options) {
    // Entities per match key, counted once per entity (an entity's pairs are contiguous).
    struct KeyHolders {
        kb::EntityIndex last = 0;
        std::uint32_t entities = 0;
    };
    std::unordered_map<std::string, KeyHolders> holders;
    if (options.homonymsOnMatchKeys) {
        kb.forEachNamePair([&](kb::EntityIndex entity, kb::StringId name) {
            auto& slot = holders[homonymMatchKey(kb.strings().view(name))];
            if (slot.entities == 0 || slot.last != entity) ++slot.entities;
            slot.last = entity;
        });
    }
    const auto isHomonym = [&](std::string_view name, const std::string& key) {
        if (!options.homonymsOnMatchKeys) return kb.findByName(name).size() > 1;
        const auto found = holders.find(key);
        return found != holders.end() && found->second.entities > 1;
    };

    std::size_t affected = 0;
    for (EvalQuery& query : queries) {
        const std::string mentionKey = homonymMatchKey(query.mention);
        bool hit = false;
        for (const auto& id : query.goldIds) {
            const auto entity = kb.findEntity(id);
            if (!entity) continue;
            for (const std::string_view name : kb.names(*entity)) {
                const std::string key = homonymMatchKey(name);
                if (isHomonym(name, key) && indelSimilarity(mentionKey, key) >= options.minSimilarity) {
                    hit = true;
                    break;
                }
            }
            if (hit) break;
        }
        query.homonymAffected = hit;
        affected += hit ? 1 : 0;
    }
    return affected;
}

}  // namespace linkscope::eval
