#include "corpus/bigbio_writer.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "corpus/link_column.h"
#include "corpus/pubtator_lines.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace linkscope {
namespace {

using Json = nlohmann::ordered_json;
using pubtator::quoteForMessage;

[[noreturn]] void refuse(const Document& document, const std::string& what) {
    throw Error("cannot write document " + document.pmid() + " as BigBio: " + what);
}

const std::string& checked(const std::string& text, const Document& document, std::string_view what) {
    if (text.find('\0') != std::string::npos) refuse(document, std::string(what) + " holds a NUL character");
    return text;
}

// {db_name, db_id} of a canonical id: split at the first ':'.
Json normalizedEntry(const std::string& id) {
    const auto colon = id.find(':');
    if (colon == std::string::npos || colon == 0) return Json{{"db_name", ""}, {"db_id", id}};
    return Json{{"db_name", id.substr(0, colon)}, {"db_id", id.substr(colon + 1)}};
}

Json passageOf(const Document& document, const char* type, std::size_t start, const std::string& text,
               std::size_t characters) {
    return Json{{"id", document.pmid() + "_" + type},
                {"type", type},
                {"text", Json::array({checked(text, document, type)})},
                {"offsets", Json::array({Json::array({start, start + characters})})}};
}

std::string entityId(const Document& document, std::size_t mention) {
    return document.pmid() + "_T" + std::to_string(mention + 1);
}

}  // namespace

std::string formatBigBioDocument(const Document& document, BigBioExportSummary& summary,
                                 const std::function<std::vector<BigBioCandidate>(std::size_t mention)>& candidates) {
    if (!pubtator::isValidPmid(document.pmid())) refuse(document, "malformed PMID");
    if (!document.hasAbstract && !document.abstract.empty())
        refuse(document, "an abstract is set but hasAbstract is false");
    const std::size_t characters = document.characterCount();
    const std::size_t abstractStart = document.abstractStart();
    Json passages = Json::array();
    passages.push_back(
        passageOf(document, "title", 0, document.title, document.hasAbstract ? abstractStart - 1 : characters));
    if (document.hasAbstract)
        passages.push_back(
            passageOf(document, "abstract", abstractStart, document.abstract, characters - abstractStart));

    Json entities = Json::array();
    for (std::size_t i = 0; i < document.mentions.size(); ++i) {
        const Mention& mention = document.mentions[i];
        if (!mention.offsetsValid)
            refuse(document, "mention " + quoteForMessage(mention.text) + " at offsets " +
                                 std::to_string(mention.start) + "-" + std::to_string(mention.end) +
                                 " failed validation when it was read");
        if (mention.type.empty()) refuse(document, "a mention has an empty type");
        Json normalized = Json::array();
        if (!isUnlinked(mention)) {
            if (mention.ids.ids.empty()) normalized.push_back(Json{{"db_name", ""}, {"db_id", "-1"}});
            for (const auto& id : mention.ids.ids)
                normalized.push_back(id == "-1" ? Json{{"db_name", ""}, {"db_id", "-1"}} : normalizedEntry(id));
        }
        Json entity{{"id", entityId(document, i)},
                    {"type", checked(mention.type, document, "mention type")},
                    {"text", Json::array({checked(mention.text, document, "mention text")})},
                    {"offsets", Json::array({Json::array({mention.start, mention.end})})},
                    {"normalized", std::move(normalized)}};
        if (!isUnlinked(mention) && mention.ids.join == IdJoin::Conjunction) entity["linkscope_join"] = "+";
        if (candidates) {
            const auto scored = candidates(i);
            if (!scored.empty()) {
                Json list = Json::array();
                for (const auto& candidate : scored) {
                    Json entry = normalizedEntry(candidate.id);
                    entry["score"] = candidate.score;
                    list.push_back(std::move(entry));
                }
                entity["linkscope_candidates"] = std::move(list);
            }
        }
        if (!mention.individualMentions.empty()) ++summary.individualMentionListsLeftOut;
        entities.push_back(std::move(entity));
    }

    Json relations = Json::array();
    for (const Relation& relation : document.relations) {
        // A BigBio relation is between entities: the first mention linked to each argument alone.
        const auto entityOf = [&](const std::string& id) -> std::optional<std::size_t> {
            for (std::size_t i = 0; i < document.mentions.size(); ++i)
                if (document.mentions[i].ids.ids.size() == 1 && document.mentions[i].ids.ids[0] == id) return i;
            return std::nullopt;
        };
        const auto first = relation.arguments.size() == 2 ? entityOf(relation.arguments[0]) : std::nullopt;
        const auto second = relation.arguments.size() == 2 ? entityOf(relation.arguments[1]) : std::nullopt;
        if (!first || !second || relation.type.empty()) {
            ++summary.relationsLeftOut;
            continue;
        }
        relations.push_back(Json{{"id", document.pmid() + "_R" + std::to_string(relations.size() + 1)},
                                 {"type", checked(relation.type, document, "relation type")},
                                 {"arg1_id", entityId(document, *first)},
                                 {"arg2_id", entityId(document, *second)},
                                 {"normalized", Json::array()}});
        ++summary.relations;
    }
    Json line{{"id", document.pmid()},
              {"document_id", document.pmid()},
              {"passages", std::move(passages)},
              {"entities", std::move(entities)},
              {"events", Json::array()},
              {"coreferences", Json::array()},
              {"relations", std::move(relations)}};
    ++summary.documents;
    summary.entities += document.mentions.size();
    try {
        return line.dump(-1, ' ', false, Json::error_handler_t::strict);
    } catch (const nlohmann::json::exception&) {
        refuse(document, "a text is not valid UTF-8");
    }
}

namespace {

template <typename Out>
BigBioExportSummary writeLines(const Corpus& corpus, const BigBioWriteOptions& options, Out&& out) {
    BigBioExportSummary summary;
    const auto documents = corpus.documents();
    for (std::size_t d = 0; d < documents.size(); ++d) {
        std::function<std::vector<BigBioCandidate>(std::size_t)> candidates;
        if (options.candidates) candidates = [&, d](std::size_t mention) { return options.candidates(d, mention); };
        out(formatBigBioDocument(documents[d], summary, candidates));
        out("\n");
    }
    return summary;
}

}  // namespace

BigBioExportSummary writeBigBio(const Corpus& corpus, const std::filesystem::path& path,
                                const BigBioWriteOptions& options) {
    AtomicFileWriter writer(path);
    const auto summary = writeLines(corpus, options, [&](std::string_view part) { writer.stream() << part; });
    writer.commit();
    return summary;
}

std::string formatBigBio(const Corpus& corpus, BigBioExportSummary& summary, const BigBioWriteOptions& options) {
    std::string text;
    const auto written = writeLines(corpus, options, [&](std::string_view part) { text += part; });
    summary.documents += written.documents;
    summary.entities += written.entities;
    summary.relations += written.relations;
    summary.relationsLeftOut += written.relationsLeftOut;
    summary.individualMentionListsLeftOut += written.individualMentionListsLeftOut;
    return text;
}

}  // namespace linkscope
