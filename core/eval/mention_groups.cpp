#include "eval/mention_groups.h"

#include <nlohmann/json.hpp>
#include <set>

#include "eval/evaluate.h"
#include "eval/queries.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/line_reader.h"

namespace linkscope::eval {
namespace {

// A boolean that writePerMention writes as true / false, or null when it was not computed.
std::optional<bool> optionalBoolField(const nlohmann::json& row, const char* key, const LineReader& reader) {
    const auto it = row.find(key);
    if (it == row.end() || it->is_null()) return std::nullopt;
    if (!it->is_boolean())
        reader.fail(std::string("\"") + key + "\" must be true, false or null, not " + briefJson(*it));
    return it->get<bool>();
}

std::vector<std::uint8_t> membersWhere(std::span<const MentionFacts> facts, auto&& predicate) {
    std::vector<std::uint8_t> members;
    members.reserve(facts.size());
    for (const MentionFacts& f : facts) members.push_back(predicate(f) ? 1 : 0);
    return members;
}

}  // namespace

std::vector<MentionFacts> mentionFacts(std::span<const EvalQuery> queries, const EvalResult& result) {
    if (queries.size() != result.mentions.size())
        throw Error("mention groups: " + std::to_string(queries.size()) + " queries for " +
                    std::to_string(result.mentions.size()) + " evaluated mentions");
    std::vector<MentionFacts> facts;
    facts.reserve(queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
        MentionFacts f;
        f.type = queries[i].type;
        f.seen = result.mentions[i].seen;
        f.homonymAffected = queries[i].homonymAffected;
        f.composite = queries[i].composite;
        f.abbreviationExpanded = queries[i].abbreviationExpanded;
        facts.push_back(std::move(f));
    }
    return facts;
}

std::vector<MentionFacts> readMentionFacts(const std::filesystem::path& perMentionFile) {
    LineReader reader(perMentionFile);
    std::vector<MentionFacts> facts;
    std::string line;
    while (reader.next(line)) {
        if (line.empty()) continue;
        const nlohmann::json row = parseJsonLine(line, reader);
        if (!row.is_object()) reader.fail("expected one JSON object per line, got " + briefJson(row));
        MentionFacts f;
        if (const auto type = row.find("type"); type != row.end() && !type->is_null()) {
            if (!type->is_string()) reader.fail("\"type\" must be a string, not " + briefJson(*type));
            f.type = type->get<std::string>();
        }
        f.seen = optionalBoolField(row, "seen", reader);
        f.homonymAffected = optionalBoolField(row, "homonym_affected", reader);
        f.composite = optionalBoolField(row, "composite", reader).value_or(false);
        f.abbreviationExpanded = optionalBoolField(row, "abbreviation_expanded", reader).value_or(false);
        facts.push_back(std::move(f));
    }
    if (facts.empty()) throw ParseError(perMentionFile.string(), 0, "no mentions in the per-mention file");
    return facts;
}

std::vector<MentionGroup> mentionGroups(std::span<const MentionFacts> facts) {
    std::vector<MentionGroup> groups;
    const auto add = [&](std::string name, auto&& predicate) {
        MentionGroup group{std::move(name), membersWhere(facts, predicate)};
        for (const auto member : group.members)
            if (member != 0) {
                groups.push_back(std::move(group));
                return;
            }
    };
    add("seen", [](const MentionFacts& f) { return f.seen == true; });
    add("unseen", [](const MentionFacts& f) { return f.seen == false; });
    add("homonym-affected", [](const MentionFacts& f) { return f.homonymAffected == true; });
    add("not homonym-affected", [](const MentionFacts& f) { return f.homonymAffected == false; });
    add("composite", [](const MentionFacts& f) { return f.composite; });
    add("abbreviation expanded", [](const MentionFacts& f) { return f.abbreviationExpanded; });
    std::set<std::string> types;
    for (const MentionFacts& f : facts) types.insert(f.type);
    for (const std::string& type : types)
        add("type " + (type.empty() ? std::string("(none)") : type),
            [&type](const MentionFacts& f) { return f.type == type; });
    return groups;
}

}  // namespace linkscope::eval
