#pragma once
// Text put into the SVG plots the CLI writes (curation_plot, review_plot): XML's five
// reserved characters escaped (only four occur in attribute values and text we write).
#include <string>

namespace linkscope::cli {

inline std::string svgEscaped(const std::string& text) {
    std::string out;
    for (const char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

}  // namespace linkscope::cli
