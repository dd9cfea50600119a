#include "project/kb_filters_text.h"

#include <nlohmann/json.hpp>

#include <vector>

#include "util/error.h"

namespace linkscope::project {

std::string filtersText(const KbReference& kb) {
    if (!kb.filtered()) return {};
    return nlohmann::json{
        {"semanticTypes", kb.semanticTypeFilter}, {"sources", kb.sources}, {"languages", kb.languages}}
        .dump();
}

void readFilters(const std::string& text, KbReference& kb, const std::string& store) {
    if (text.empty()) return;
    const auto json = nlohmann::json::parse(text, nullptr, false);
    const auto list = [&](const char* key) {
        std::vector<std::string> out;
        const auto it = json.find(key);
        if (it == json.end() || !it->is_array())
            throw ParseError(store, 0, "damaged project: the knowledge-base filters lack \"" + std::string(key) + "\"");
        for (const auto& item : *it) {
            if (!item.is_string())
                throw ParseError(store, 0, "damaged project: a knowledge-base filter is not a string");
            out.push_back(item.get<std::string>());
        }
        return out;
    };
    if (!json.is_object())
        throw ParseError(store, 0, "damaged project: the knowledge-base filters are not a JSON object");
    kb.semanticTypeFilter = list("semanticTypes");
    kb.sources = list("sources");
    kb.languages = list("languages");
}

}  // namespace linkscope::project
