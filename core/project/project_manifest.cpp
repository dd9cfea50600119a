#include "project/project_manifest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>

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

std::filesystem::path resolve(const std::filesystem::path& base, const std::string& relative,
                              const std::string& file, const std::string& where) {
    if (relative.empty()) throw ParseError(file, 0, where + ": empty path");
    // The operating system reads a path up to its first NUL: "a.txt\0b" would open a.txt.
    if (relative.find('\0') != std::string::npos)
        throw ParseError(file, 0, where + ": the path holds a NUL character");
    std::filesystem::path path(relative);
    if (path.is_relative()) path = base / path;
    path = path.lexically_normal();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw ParseError(file, 0, where + ": " + path.string() + " does not exist");
    return path;
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
    case KbFormat::Medic: return "medic";
    case KbFormat::Ctd: return "ctd";
    case KbFormat::Umls: return "umls";
    }
    return "?";
}

ProjectManifest readProjectManifest(const std::filesystem::path& file) {
    const std::string name = file.string();
    const Json root = readJsonFile(file);
    if (!root.is_object()) throw ParseError(name, 0, "a project manifest must be a JSON object");
    if (root.value("format", std::string{}) != "linkscope-project-manifest")
        throw ParseError(name, 0, "not a Linkscope project manifest (\"format\" must be \"linkscope-project-manifest\")");
    if (root.value("version", 0) != 1)
        throw ParseError(name, 0, "unsupported manifest version (this Linkscope reads version 1)");

    ProjectManifest manifest;
    manifest.file = std::filesystem::absolute(file).lexically_normal();
    const auto base = manifest.file.parent_path();
    manifest.name = root.value("name", manifest.file.stem().string());
    manifest.description = root.value("description", std::string{});

    const Json& kb = member(root, "knowledgeBase", Json::value_t::object, name, "manifest");
    manifest.knowledgeBase.path =
        resolve(base, member(kb, "path", Json::value_t::string, name, "knowledgeBase").get<std::string>(), name, "knowledgeBase");
    try {
        manifest.knowledgeBase.format = kbFormatFromName(kb.value("format", std::string("medic")));
    } catch (const Error& e) {
        throw ParseError(name, 0, std::string("knowledgeBase: ") + e.what());
    }
    if (kb.contains("semanticTypes"))
        manifest.knowledgeBase.semanticTypes =
            resolve(base, member(kb, "semanticTypes", Json::value_t::string, name, "knowledgeBase").get<std::string>(),
                    name, "knowledgeBase.semanticTypes");

    const Json& corpora = member(root, "corpora", Json::value_t::array, name, "manifest");
    if (corpora.empty()) throw ParseError(name, 0, "manifest: \"corpora\" is empty");
    for (std::size_t i = 0; i < corpora.size(); ++i) {
        const std::string where = "corpora[" + std::to_string(i) + "]";
        const Json& entry = corpora[i];
        if (!entry.is_object()) throw ParseError(name, 0, where + ": expected an object");
        CorpusReference ref;
        ref.split = entry.contains("split") ? member(entry, "split", Json::value_t::string, name, where).get<std::string>()
                                            : std::string("corpus");
        if (const auto problem = splitNameProblem(ref.split)) throw ParseError(name, 0, where + ": " + *problem);
        ref.path = resolve(base, member(entry, "path", Json::value_t::string, name, where).get<std::string>(), name, where);
        if (const auto format = entry.value("format", std::string("pubtator")); format != "pubtator")
            throw ParseError(name, 0, where + ": unknown corpus format \"" + format + "\" (expected pubtator)");
        manifest.corpora.push_back(std::move(ref));
    }
    return manifest;
}

std::optional<std::string> splitNameProblem(std::string_view split) {
    constexpr std::size_t kMaxSplitBytes = 100;
    const auto shown = [&] {
        std::string text;
        for (const char c : split.substr(0, 40)) {
            const auto byte = static_cast<unsigned char>(c);
            if (byte < 0x20 || byte == 0x7f) {
                constexpr char hex[] = "0123456789abcdef";
                text += std::string("\\x") + hex[byte >> 4] + hex[byte & 15];
            } else {
                text += c;
            }
        }
        return "the split name \"" + text + (split.size() > 40 ? "...\"" : "\"");
    };
    if (split.empty()) return std::string("the split name is empty");
    if (split.size() > kMaxSplitBytes) return shown() + " is longer than " + std::to_string(kMaxSplitBytes) + " bytes";
    if (split == "." || split == "..") return shown() + " is not a file name (exports are named after the split)";
    for (const char c : split) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '/' || c == '\\')
            return shown() + " holds a path separator (exports are named after the split and stay in the output folder)";
        if (byte < 0x20 || byte == 0x7f) return shown() + " holds a control character";
    }
    return std::nullopt;
}

}  // namespace linkscope
