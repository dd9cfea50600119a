#include "eval/gold_agreement.h"

#include <algorithm>
#include <vector>

#include "corpus/id_list.h"

namespace linkscope::eval {

bool partsAgreeLeniently(std::span<const std::string_view> ids, std::span<const std::string> gold) {
    if (ids.empty()) return false;
    return std::all_of(ids.begin(), ids.end(), [&](std::string_view id) {
        return !id.empty() && std::find(gold.begin(), gold.end(), id) != gold.end();
    });
}

bool linkAgreesLeniently(std::string_view link, std::span<const std::string> gold) {
    if (link.empty()) return false;
    return partsAgreeLeniently(splitIdList(link), gold);
}

bool linkAgreesExactly(std::string_view link, const ConceptIdList& gold) {
    std::vector<std::string_view> linked;
    for (const std::string_view id : splitIdList(link))
        if (!id.empty()) linked.push_back(id);
    std::vector<std::string_view> expected;
    if (gold.cuiLess)
        expected.emplace_back("-1");
    else
        expected.assign(gold.ids.begin(), gold.ids.end());
    std::sort(linked.begin(), linked.end());
    std::sort(expected.begin(), expected.end());
    return linked == expected;
}

}  // namespace linkscope::eval
