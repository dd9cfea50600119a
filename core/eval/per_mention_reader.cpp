#include "eval/per_mention_reader.h"

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/line_reader.h"

namespace linkscope::eval {
namespace {

// writePerMention writes null for "not within the ranking depth", which MentionOutcome calls 0.
std::size_t rankField(const nlohmann::json& row, const char* key) {
    const nlohmann::json& value = row.at(key);
    return value.is_null() ? 0 : value.get<std::size_t>();
}

}  // namespace

EvalResult readPerMention(const std::filesystem::path& file) {
    LineReader reader(file);
    EvalResult result;
    std::string line;
    while (reader.next(line)) {
        if (line.empty()) continue;
        nlohmann::json row;
        try {
            row = nlohmann::json::parse(line);
        } catch (const nlohmann::json::parse_error& e) {
            reader.fail(std::string("not a JSON line: ") + e.what());
        }
        MentionOutcome mention;
        try {
            mention.document = row.at("document").get<std::string>();
            mention.start = row.at("start").get<std::size_t>();
            mention.end = row.at("end").get<std::size_t>();
            mention.rank = rankField(row, "rank");
            mention.strictRank = rankField(row, "strict_rank");
        } catch (const nlohmann::json::exception& e) {
            reader.fail(std::string("not a per-mention line (document, start, end, rank, strict_rank): ") + e.what());
        }
        result.mentions.push_back(std::move(mention));
    }
    if (result.mentions.empty()) throw ParseError(file.string(), 0, "no mentions in the per-mention file");
    return result;
}

}  // namespace linkscope::eval
