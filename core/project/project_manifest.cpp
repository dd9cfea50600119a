#include "project/project_manifest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "kb/umls_subsets.h"
#include "util/error.h"
#include "util/json_file.h"

namespace linkscope {
namespace {

using Json = nlohmann::json;

const Json& member(const Json& object, const char* key, Json::value_t type, const std::string& file,
                   const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end()) throw ParseError(file, 0, where + ": missing \"" + key + "\"");
    if (it->type() != type) throw ParseError(file, 0, where + ": \"" + key + "\" has the wrong type");
    return *it;
}

// An optional string member: its fallback when absent, an error naming it when it is not a string
// (nlohmann's value() would throw its own type_error instead).
std::string optionalString(const Json& object, const char* key, std::string fallback, const std::string& file,
                           const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end()) return fallback;
    if (!it->is_string()) throw ParseError(file, 0, where + ": \"" + key + "\" must be a string");
    return it->get<std::string>();
}

std::filesystem::path resolve(const std::filesystem::path& base, const std::string& relative, const std::string& file,
                              const std::string& where) {
    if (relative.empty()) throw ParseError(file, 0, where + ": empty path");
    // The operating system reads a path up to its first NUL: "a.txt\0b" would open a.txt.
    if (relative.find('\0') != std::string::npos) throw ParseError(file, 0, where + ": the path holds a NUL character");
    std::filesystem::path path(relative);
    if (path.is_relative()) path = base / path;
    path = path.lexically_normal();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw ParseError(file, 0, where + ": " + path.string() + " does not exist");
    return path;
}

// A filter given as one string or an array of strings; each string may hold a comma list.
std::vector<std::string> stringList(const Json& object, const char* key, const std::string& file,
                                    const std::string& where) {
    std::vector<std::string> out;
    const auto it = object.find(key);
    if (it == object.end()) return out;
    const std::string what = where + ": \"" + key + "\" must be a string or an array of strings";
    if (it->is_string()) return {it->get<std::string>()};
    if (!it->is_array()) throw ParseError(file, 0, what);
    for (const Json& item : *it) {
        if (!item.is_string()) throw ParseError(file, 0, what);
        out.push_back(item.get<std::string>());
    }
    return out;
}

void readKbFilters(const Json& kb, KbReference& reference, int version, const std::string& file) {
    try {
        reference.semanticTypeFilter =
            kb::semanticTypeFilter(stringList(kb, "semanticTypeFilter", file, "knowledgeBase"));
        reference.sources = kb::sourceFilter(stringList(kb, "sources", file, "knowledgeBase"));
        reference.languages = kb::languageFilter(stringList(kb, "languages", file, "knowledgeBase"));
    } catch (const ParseError&) {
        throw;
    } catch (const Error& e) {
        throw ParseError(file, 0, std::string("knowledgeBase: ") + e.what());
    }
    if (!reference.filtered()) return;
    if (version < 2)
        throw ParseError(file, 0,
                         "knowledgeBase: UMLS filters (semanticTypeFilter, sources, languages) need \"version\": 2 "
                         "(a version-1 reader would ignore them)");
    if (reference.format != KbFormat::Umls)
        throw ParseError(file, 0,
                         std::string("knowledgeBase: semanticTypeFilter, sources and languages filter UMLS; this "
                                     "knowledge base is ") +
                             kbFormatName(reference.format));
    if (!reference.semanticTypeFilter.empty() && reference.semanticTypes.empty())
        throw ParseError(file, 0, "knowledgeBase: semanticTypeFilter needs \"semanticTypes\" (MRSTY.RRF)");
}

CorpusFormat corpusFormatOf(const Json& entry, const std::filesystem::path& path, const std::string& file,
                            const std::string& where) {
    const std::string name = entry.contains("format")
                                 ? member(entry, "format", Json::value_t::string, file, where).get<std::string>()
                                 : std::string("auto");
    if (name == "auto") {
        try {
            return detectCorpusFormat(path);
        } catch (const Error& e) {
            throw ParseError(file, 0, where + ": " + e.what());
        }
    }
    if (const auto format = corpusFormatFromName(name)) return *format;
    throw ParseError(
        file, 0,
        where + ": unknown corpus format \"" + name + "\" (expected auto, pubtator, bioc, bioc-json, brat or bigbio)");
}

}  // namespace

KbFormat kbFormatFromName(const std::string& name) {
    if (name == "medic" || name == "biosyn") return KbFormat::Medic;
    if (name == "ctd") return KbFormat::Ctd;
    if (name == "umls") return KbFormat::Umls;
    throw Error("unknown knowledge-base format \"" + name + "\" (expected medic, ctd or umls)");
}

const char* kbFormatName(KbFormat format) noexcept {
    switch (format) {
        case KbFormat::Medic:
            return "medic";
        case KbFormat::Ctd:
            return "ctd";
        case KbFormat::Umls:
            return "umls";
    }
    return "?";
}

ProjectManifest readProjectManifest(const std::filesystem::path& file) {
    const std::string name = file.string();
    const Json root = readJsonFile(file);
    if (!root.is_object()) throw ParseError(name, 0, "a project manifest must be a JSON object");
    const auto formatField = root.find("format");
    if (formatField == root.end() || !formatField->is_string() ||
        formatField->get<std::string>() != "linkscope-project-manifest")
        throw ParseError(name, 0,
                         "not a Linkscope project manifest (\"format\" must be \"linkscope-project-manifest\")");
    const auto versionField = root.find("version");
    const int version = versionField != root.end() && versionField->is_number_integer() ? versionField->get<int>() : 0;
    if (version != 1 && version != 2)
        throw ParseError(name, 0, "unsupported manifest version (this Linkscope reads versions 1 and 2)");

    ProjectManifest manifest;
    manifest.file = std::filesystem::absolute(file).lexically_normal();
    const auto base = manifest.file.parent_path();
    manifest.name = optionalString(root, "name", manifest.file.stem().string(), name, "manifest");
    manifest.description = optionalString(root, "description", {}, name, "manifest");

    const Json& kb = member(root, "knowledgeBase", Json::value_t::object, name, "manifest");
    manifest.knowledgeBase.path =
        resolve(base, member(kb, "path", Json::value_t::string, name, "knowledgeBase").get<std::string>(), name,
                "knowledgeBase");
    const std::string kbFormat = optionalString(kb, "format", "medic", name, "knowledgeBase");
    try {
        manifest.knowledgeBase.format = kbFormatFromName(kbFormat);
    } catch (const Error& e) {
        throw ParseError(name, 0, std::string("knowledgeBase: ") + e.what());
    }
    if (kb.contains("semanticTypes"))
        manifest.knowledgeBase.semanticTypes =
            resolve(base, member(kb, "semanticTypes", Json::value_t::string, name, "knowledgeBase").get<std::string>(),
                    name, "knowledgeBase.semanticTypes");
    readKbFilters(kb, manifest.knowledgeBase, version, name);

    const Json& corpora = member(root, "corpora", Json::value_t::array, name, "manifest");
    if (corpora.empty()) throw ParseError(name, 0, "manifest: \"corpora\" is empty");
    for (std::size_t i = 0; i < corpora.size(); ++i) {
        const std::string where = "corpora[" + std::to_string(i) + "]";
        const Json& entry = corpora[i];
        if (!entry.is_object()) throw ParseError(name, 0, where + ": expected an object");
        CorpusReference ref;
        ref.path =
            resolve(base, member(entry, "path", Json::value_t::string, name, where).get<std::string>(), name, where);
        ref.format = corpusFormatOf(entry, ref.path, name, where);
        if (!entry.contains("pmidLists")) {
            ref.split = entry.contains("split")
                            ? member(entry, "split", Json::value_t::string, name, where).get<std::string>()
                            : std::string("corpus");
            if (const auto problem = splitNameProblem(ref.split)) throw ParseError(name, 0, where + ": " + *problem);
            manifest.corpora.push_back(std::move(ref));
            continue;
        }
        // One file, one PMID list per split: one reference per split, sharing the file.
        if (version < 2)
            throw ParseError(name, 0,
                             where +
                                 ": \"pmidLists\" needs \"version\": 2 (a version-1 reader would ignore it "
                                 "and load the whole corpus as one split)");
        if (entry.contains("split"))
            throw ParseError(name, 0,
                             where + ": give either \"split\" or \"pmidLists\" (whose entries name the splits)");
        const Json& lists = member(entry, "pmidLists", Json::value_t::array, name, where);
        if (lists.empty()) throw ParseError(name, 0, where + ": \"pmidLists\" is empty");
        for (std::size_t k = 0; k < lists.size(); ++k) {
            const std::string listWhere = where + ".pmidLists[" + std::to_string(k) + "]";
            if (!lists[k].is_object()) throw ParseError(name, 0, listWhere + ": expected an object");
            CorpusReference split = ref;
            split.split = member(lists[k], "split", Json::value_t::string, name, listWhere).get<std::string>();
            if (const auto problem = splitNameProblem(split.split))
                throw ParseError(name, 0, listWhere + ": " + *problem);
            split.pmidList =
                resolve(base, member(lists[k], "path", Json::value_t::string, name, listWhere).get<std::string>(), name,
                        listWhere);
            manifest.corpora.push_back(std::move(split));
        }
    }
    return manifest;
}

}  // namespace linkscope
