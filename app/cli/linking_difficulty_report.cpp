#include "linking_difficulty_report.h"

#include <iomanip>

#include "eval/linking_difficulty.h"

namespace linkscope::cli {
namespace {

using Json = nlohmann::json;

double ratio(std::size_t part, std::size_t whole) {
    return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

Json groupJson(const eval::DifficultyGroup& g, std::size_t mentions, bool hasOutcomes, std::size_t errors) {
    Json j{{"name", g.name},
           {"mentions", g.mentions},
           {"share", ratio(g.mentions, mentions)},
           {"mean_words", ratio(g.words, g.mentions)},
           {"distinct_texts", g.distinctTexts}};
    if (hasOutcomes) {
        const std::size_t wrong = g.withOutcome - g.correctAt1;
        j["with_outcome"] = g.withOutcome;
        j["correct_at_1"] = g.correctAt1;
        j["acc_at_1"] = g.withOutcome == 0 ? Json() : Json(ratio(g.correctAt1, g.withOutcome));
        j["errors"] = wrong;
        j["error_share"] = ratio(wrong, errors);
        j["distinct_wrong_texts"] = g.distinctWrongTexts;
    }
    return j;
}

std::string cell(const Json& value, bool percent) {
    if (value.is_null()) return "-";
    std::ostringstream out;
    if (percent)
        out << std::fixed << std::setprecision(1) << 100.0 * value.get<double>();
    else if (value.is_number_float())
        out << std::fixed << std::setprecision(4) << value.get<double>();
    else
        out << value.dump();
    return out.str();
}

void tableRows(std::ostringstream& out, const Json& groups, bool hasOutcomes) {
    for (const Json& g : groups) {
        out << "    " << std::left << std::setw(24) << g["name"].get<std::string>() << std::right << std::setw(8)
            << cell(g["mentions"], false) << std::setw(8) << cell(g["share"], true);
        if (hasOutcomes)
            out << std::setw(10) << cell(g["acc_at_1"], false) << std::setw(8) << cell(g["errors"], false)
                << std::setw(10) << cell(g["error_share"], true);
        out << '\n';
    }
}

}  // namespace

Json linkingDifficultyReport(const eval::LinkingDifficulty& d) {
    std::size_t errors = 0;
    std::size_t withOutcome = 0;
    for (const auto& g : d.classes) {
        errors += g.withOutcome - g.correctAt1;
        withOutcome += g.withOutcome;
    }
    Json report{{"mentions", d.mentions},
                {"distinct_texts", d.distinctTexts},
                {"classes", Json::array()},
                {"properties", Json::array()}};
    for (const auto& g : d.classes) report["classes"].push_back(groupJson(g, d.mentions, d.hasOutcomes, errors));
    for (const auto& g : d.properties) report["properties"].push_back(groupJson(g, d.mentions, d.hasOutcomes, errors));
    if (d.hasOutcomes)
        report["outcomes"] = Json{{"mentions", d.outcomes},
                                  {"matched", withOutcome},
                                  {"unmatched", d.outcomesUnmatched},
                                  {"acc_at_1", ratio(withOutcome - errors, withOutcome)},
                                  {"errors", errors},
                                  {"distinct_wrong_texts", d.distinctWrongTexts}};
    return report;
}

void renderLinkingDifficulty(std::ostringstream& out, const Json& section) {
    const bool hasOutcomes = section.contains("outcomes");
    out << "  Linking difficulty (" << section["mentions"].dump() << " mentions";
    if (section.contains("types")) {
        std::string types;
        for (const auto& t : section["types"]) types += (types.empty() ? "" : ", ") + t.get<std::string>();
        if (!types.empty()) out << " of type " << types;
    }
    out << ")\n";
    if (hasOutcomes) {
        const Json& o = section["outcomes"];
        out << "    outcomes " << (section.contains("outcomes_file") ? section["outcomes_file"].get<std::string>() : "")
            << ": " << o["matched"].dump() << " mentions, Acc@1 " << cell(o["acc_at_1"], false) << ", "
            << o["errors"].dump() << " errors\n";
    }
    out << "    " << std::left << std::setw(24) << "class" << std::right << std::setw(8) << "mentions" << std::setw(8)
        << "%";
    if (hasOutcomes) out << std::setw(10) << "Acc@1" << std::setw(8) << "errors" << std::setw(10) << "% errors";
    out << '\n';
    tableRows(out, section["classes"], hasOutcomes);
    out << "    property\n";
    tableRows(out, section["properties"], hasOutcomes);
}

}  // namespace linkscope::cli
