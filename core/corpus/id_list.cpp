#include "corpus/id_list.h"

namespace linkscope {

std::vector<std::string_view> splitIdList(std::string_view list, char separator) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = list.find(separator, start);
        parts.push_back(list.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) return parts;
        start = end + 1;
    }
}

}  // namespace linkscope
