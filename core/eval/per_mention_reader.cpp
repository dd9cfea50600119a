#include "eval/per_mention_reader.h"

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/json_file.h"
#include "util/line_reader.h"

namespace linkscope::eval {
namespace {

// A count or offset: a whole number >= 0 written as such. nlohmann's get<std::size_t>() would turn
// -1 into 2^64 - 1 and 1.9 into 1 without a word.
std::size_t wholeField(const nlohmann::json& row, const char* key, const LineReader& reader) {
    const nlohmann::json& value = row.at(key);
    if (!value.is_number_unsigned())
        reader.fail(std::string("\"") + key + "\" must be a whole number >= 0, not " + briefJson(value));
    return value.get<std::size_t>();
}

// writePerMention writes null for "not within the ranking depth", which MentionOutcome calls 0.
std::size_t rankField(const nlohmann::json& row, const char* key, const LineReader& reader) {
    return row.at(key).is_null() ? 0 : wholeField(row, key, reader);
}

}  // namespace

EvalResult readPerMention(const std::filesystem::path& file) {
    LineReader reader(file);
    EvalResult result;
    std::string line;
    while (reader.next(line)) {
        if (line.empty()) continue;
        const nlohmann::json row = parseJsonLine(line, reader);
        if (!row.is_object()) reader.fail("expected one JSON object per line, got " + briefJson(row));
        MentionOutcome mention;
        try {
            mention.document = row.at("document").get<std::string>();
            mention.start = wholeField(row, "start", reader);
            mention.end = wholeField(row, "end", reader);
            mention.rank = rankField(row, "rank", reader);
            mention.strictRank = rankField(row, "strict_rank", reader);
        } catch (const nlohmann::json::exception& e) {
            reader.fail(std::string("not a per-mention line (document, start, end, rank, strict_rank): ") + e.what());
        }
        if (mention.end <= mention.start)
            reader.fail("the mention ends (" + std::to_string(mention.end) + ") at or before it starts (" +
                        std::to_string(mention.start) + ")");
        result.mentions.push_back(std::move(mention));
    }
    if (result.mentions.empty()) throw ParseError(file.string(), 0, "no mentions in the per-mention file");
    return result;
}

}  // namespace linkscope::eval
