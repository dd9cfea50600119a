#include "curation/decision_log.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <type_traits>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/line_reader.h"

namespace linkscope::curation {
namespace {

using Json = nlohmann::ordered_json;

class LineParser {
public:
    LineParser(const Json& object, const std::string& file, std::size_t line)
        : object_(object), file_(file), line_(line) {}

    [[noreturn]] void fail(const std::string& message) const { throw ParseError(file_, line_, message); }

    const Json& member(const char* key) const {
        const auto it = object_.find(key);
        if (it == object_.end()) fail(std::string("missing \"") + key + "\"");
        return *it;
    }

    std::string text(const char* key) const {
        const Json& value = member(key);
        if (!value.is_string()) fail(std::string("\"") + key + "\" must be a string");
        return value.get<std::string>();
    }

    template <typename Integer>
    Integer integer(const char* key) const {
        const Json& value = member(key);
        // Unsigned keys refuse negative numbers; is_number_integer accepts both signs.
        if (!value.is_number_integer() || (std::is_unsigned_v<Integer> && !value.is_number_unsigned()))
            fail(std::string("\"") + key + "\" must be " +
                 (std::is_unsigned_v<Integer> ? "a non-negative integer" : "an integer"));
        if (value.is_number_unsigned() &&
            value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<Integer>::max()))
            fail(std::string("\"") + key + "\" is too large");
        return value.get<Integer>();
    }

private:
    const Json& object_;
    const std::string& file_;
    std::size_t line_;
};

}  // namespace

std::string formatDecisionLogLine(const project::Decision& decision) {
    Json line;
    line["id"] = decision.id;
    line["split"] = decision.mention.split;
    line["document"] = decision.mention.document;
    line["start"] = decision.mention.start;
    line["end"] = decision.mention.end;
    line["text"] = decision.mentionText;
    line["kind"] = std::string(project::decisionKindName(decision.kind));
    line["previous"] = decision.previousLink;
    line["new"] = decision.newLink;
    line["curator"] = decision.curator;
    line["timestamp"] = decision.timestamp;
    line["state"] = std::string(project::decisionStateName(decision.state));
    try {
        return line.dump();  // non-ASCII text stays UTF-8, control characters are escaped
    } catch (const Json::exception& e) {
        throw Error("cannot write decision " + std::to_string(decision.id) + " to the log: " + e.what());
    }
}

void writeDecisionLog(std::span<const project::Decision> decisions, const std::filesystem::path& path) {
    AtomicFileWriter writer(path);
    for (const auto& decision : decisions) writer.stream() << formatDecisionLogLine(decision) << '\n';
    writer.commit();
}

std::vector<project::Decision> readDecisionLog(const std::filesystem::path& path) {
    LineReader reader(path);
    const std::string& file = reader.fileName();
    std::vector<project::Decision> decisions;
    std::map<std::int64_t, std::size_t> lineOfId;
    std::string text;
    while (reader.next(text)) {
        if (text.find_first_not_of(" \t") == std::string::npos) continue;
        const std::size_t line = reader.lineNumber();
        const Json object = parseJsonLine(text, reader);
        if (!object.is_object()) reader.fail("expected one JSON object per line");
        const LineParser parse(object, file, line);
        project::Decision decision;
        decision.id = parse.integer<std::int64_t>("id");
        decision.mention.split = parse.text("split");
        decision.mention.document = parse.text("document");
        decision.mention.start = parse.integer<std::size_t>("start");
        decision.mention.end = parse.integer<std::size_t>("end");
        decision.mentionText = parse.text("text");
        const auto kind = project::parseDecisionKind(parse.text("kind"));
        if (!kind)
            parse.fail("unknown \"kind\" \"" + parse.text("kind") +
                       "\" (expected accept, correct, reject, nil or skip)");
        decision.kind = *kind;
        decision.previousLink = parse.text("previous");
        decision.newLink = parse.text("new");
        decision.curator = parse.text("curator");
        decision.timestamp = parse.text("timestamp");
        const auto state = project::parseDecisionState(parse.text("state"));
        if (!state)
            parse.fail("unknown \"state\" \"" + parse.text("state") + "\" (expected done, undone or discarded)");
        decision.state = *state;
        if (decision.mention.split.empty() || decision.mention.document.empty())
            parse.fail("empty \"split\" or \"document\"");
        if (decision.mention.end <= decision.mention.start)
            parse.fail("\"end\" " + std::to_string(decision.mention.end) + " is not after \"start\" " +
                       std::to_string(decision.mention.start));
        if (const auto [it, added] = lineOfId.emplace(decision.id, line); !added)
            parse.fail("decision id " + std::to_string(decision.id) + " appears again (first at line " +
                       std::to_string(it->second) + ")");
        decisions.push_back(std::move(decision));
    }
    return decisions;
}

}  // namespace linkscope::curation
