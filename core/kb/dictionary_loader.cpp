#include "kb/dictionary_loader.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "corpus/concept_id.h"
#include "kb/kb_builder.h"
#include "kb/load_support.h"
#include "util/line_reader.h"

namespace linkscope::kb {
namespace {

using detail::trim;

// One identifier of the id column, or the reason it is not one.
std::optional<std::string> dictionaryId(std::string_view part, std::string& error) {
    const auto text = trim(part);
    if (text.empty()) {
        error = "empty identifier";
        return std::nullopt;
    }
    if (detail::allDigits(text)) return "OMIM:" + std::string(text);
    auto canonical = canonicalConceptId(text);
    if (!canonical) error = "identifier " + detail::quoted(text) + " marks a CUI-less mention, not a concept";
    return canonical;
}

// "D015862+D058499" -> "MESH:D015862+MESH:D058499"; a single id -> its canonical form.
std::optional<std::string> dictionaryIdPart(std::string_view part, std::string& error) {
    if (part.find('+') == std::string_view::npos) return dictionaryId(part, error);
    std::vector<std::string_view> members;
    detail::split(part, '+', members);
    std::string joined;
    for (const auto member : members) {
        auto id = dictionaryId(member, error);
        if (!id) return std::nullopt;
        if (!joined.empty()) joined += '+';
        joined += *id;
    }
    return joined;
}

struct ParsedIds {
    std::vector<std::string> ids;  // canonical, in file order, without repeats
    std::size_t primary = 0;       // index into ids
    std::string key;               // the sorted id set, which identifies the entity
};

std::optional<ParsedIds> parseIds(std::string_view column, std::string& error) {
    std::vector<std::string_view> parts;
    detail::split(column, '|', parts);
    ParsedIds parsed;
    for (const auto part : parts) {
        auto id = dictionaryIdPart(part, error);
        if (!id) return std::nullopt;
        if (std::find(parsed.ids.begin(), parsed.ids.end(), *id) == parsed.ids.end())
            parsed.ids.push_back(std::move(*id));
    }
    // The primary id is the first that is not an OMIM number (MEDIC's MeSH id), else the first.
    const auto isSingleOmim = [](const std::string& id) {
        return id.starts_with("OMIM:") && id.find('+') == std::string::npos;
    };
    const auto primary = std::find_if_not(parsed.ids.begin(), parsed.ids.end(), isSingleOmim);
    parsed.primary = primary == parsed.ids.end() ? 0 : static_cast<std::size_t>(primary - parsed.ids.begin());
    std::vector<std::string> sorted = parsed.ids;
    std::sort(sorted.begin(), sorted.end());
    for (const auto& id : sorted) {
        if (!parsed.key.empty()) parsed.key += '|';
        parsed.key += id;
    }
    return parsed;
}

}  // namespace

KbLoadResult loadDictionary(const std::filesystem::path& file, const DictionaryOptions& options) {
    KbLoadResult result;
    KnowledgeBaseBuilder builder;
    LineReader reader(file, detail::readerOptions(options));
    detail::LineProblems problems(reader, options.lenient, result.diagnostics);
    std::string line;
    std::vector<std::string_view> names;
    std::string error;
    while (problems.next(reader, line)) {
        if (trim(line).empty()) continue;  // blank lines carry nothing
        ++result.linesRead;
        const std::size_t bars = line.find("||");
        if (bars == std::string::npos) {
            problems.malformed("missing \"||\" between identifiers and names");
            continue;
        }
        const std::string_view text(line);
        auto ids = parseIds(text.substr(0, bars), error);
        if (!ids) {
            problems.malformed(error + " in " + detail::quoted(text.substr(0, bars)));
            continue;
        }
        detail::split(text.substr(bars + 2), '|', names);
        std::size_t emptyNames = 0;
        std::optional<EntityIndex> entity;
        for (const auto raw : names) {
            const auto name = trim(raw);
            if (name.empty()) {
                ++emptyNames;
                continue;
            }
            if (!entity) {
                const bool known = builder.findEntity(ids->key).has_value();
                entity = builder.entity(ids->key, ids->ids[ids->primary]);
                if (!known)
                    for (std::size_t i = 0; i < ids->ids.size(); ++i)
                        if (i != ids->primary) builder.addAlternativeId(*entity, ids->ids[i]);
            }
            if (builder.hasPreferredName(*entity))
                builder.addName(*entity, name);
            else
                builder.setPreferredName(*entity, name);
        }
        if (!entity) {
            problems.malformed("no name after \"||\"");
            continue;
        }
        if (emptyNames > 0) problems.note(std::to_string(emptyNames) + " empty name(s) skipped");
    }
    result.kb = builder.build();
    return result;
}

}  // namespace linkscope::kb
