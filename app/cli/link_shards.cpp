#include "link_shards.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "util/atomic_file.h"
#include "util/checksummed_writer.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_file.h"

namespace linkscope::cli {
namespace {

std::optional<std::size_t> number(std::string_view text) {
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

std::optional<std::size_t> environmentNumber(const char* name) {
    const char* value = std::getenv(name);
    if (!value) return std::nullopt;
    const auto parsed = number(value);
    if (!parsed) throw Error(std::string("--shard slurm: ") + name + "=\"" + value + "\" is not a number");
    return parsed;
}

// [size, mtime in ns] of a regular file; nullopt for anything else.
std::optional<std::pair<std::uint64_t, std::int64_t>> fileStamp(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
    return std::make_pair(static_cast<std::uint64_t>(info.st_size),
                          static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec);
}

std::string partNumber(std::size_t value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%05zu", value);
    return buffer;
}

}  // namespace

CorpusPart parseShard(const std::string& argument) {
    CorpusPart part;
    if (argument == "slurm") {
        const auto id = environmentNumber("SLURM_ARRAY_TASK_ID");
        if (!id) throw Error("--shard slurm: SLURM_ARRAY_TASK_ID is not set (not a task of a job array)");
        const std::size_t min = environmentNumber("SLURM_ARRAY_TASK_MIN").value_or(0);
        std::optional<std::size_t> count = environmentNumber("SLURM_ARRAY_TASK_COUNT");
        if (!count)
            if (const auto max = environmentNumber("SLURM_ARRAY_TASK_MAX")) count = *max >= min ? *max - min + 1 : 0;
        if (!count) throw Error("--shard slurm: neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX is set");
        if (*id < min) throw Error("--shard slurm: SLURM_ARRAY_TASK_ID is below SLURM_ARRAY_TASK_MIN");
        part = {*id - min, *count};
    } else {
        const auto slash = argument.find('/');
        const auto index =
            slash == std::string::npos ? std::nullopt : number(std::string_view(argument).substr(0, slash));
        const auto count =
            slash == std::string::npos ? std::nullopt : number(std::string_view(argument).substr(slash + 1));
        if (!index || !count)
            throw Error("--shard \"" + argument + "\": expected I/N (part I of N, I from 0 to N-1) or slurm");
        part = {*index, *count};
    }
    if (part.count == 0 || part.index >= part.count)
        throw Error("--shard " + argument + ": part " + std::to_string(part.index) + " of " +
                    std::to_string(part.count) + " does not exist (parts are numbered from 0 to N-1)");
    if (part.count > 99999) throw Error("--shard " + argument + ": at most 99999 parts");
    return part;
}

std::string shardStem(CorpusPart part) { return "shard-" + partNumber(part.index) + "-of-" + partNumber(part.count); }

std::string partExtension(CorpusFormat format) {
    if (format == CorpusFormat::PubTator) return "pubtator";
    if (format == CorpusFormat::BioC) return "bioc.xml";
    if (format == CorpusFormat::BioCJson) return "bioc.json";
    if (format == CorpusFormat::BigBio) return "bigbio.jsonl";
    throw Error("--shard: a " + std::string(corpusFormatName(format)) +
                " corpus is not split into parts (PubTator, BioC XML, BioC JSON and BigBio files are)");
}

std::filesystem::path partPath(const std::filesystem::path& folder, CorpusPart part, CorpusFormat format) {
    return folder / (shardStem(part) + "." + partExtension(format));
}

std::filesystem::path manifestPath(const std::filesystem::path& folder, CorpusPart part) {
    return folder / (shardStem(part) + ".json");
}

nlohmann::json inputIdentity(const std::filesystem::path& input) {
    const auto stamp = fileStamp(input.string());
    if (!stamp) throw Error(input.string() + ": not a regular file");
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(input, ec);
    return {{"path", ec ? input.string() : absolute.lexically_normal().string()},
            {"size", stamp->first},
            {"mtimeNs", stamp->second}};
}

std::vector<std::string> commandLine() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::vector<std::string> words;
    std::string word;
    while (std::getline(in, word, '\0')) words.push_back(word);
    return words;
}

nlohmann::json linkerArguments(const std::vector<std::string>& words, const std::vector<std::string>& ignored) {
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 2; i < words.size(); ++i) {  // after the program and the command
        const std::string& word = words[i];
        const std::string name = word.substr(0, word.find('='));
        if (std::find(ignored.begin(), ignored.end(), name) != ignored.end()) {
            if (name == word) ++i;  // its value follows
            continue;
        }
        out.push_back(word);
        if (const auto stamp = fileStamp(word)) out.push_back({stamp->first, stamp->second});
    }
    return out;
}

std::optional<nlohmann::json> readManifest(const std::filesystem::path& path, std::string* why) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    try {
        nlohmann::json manifest = readJsonFile(path);
        if (!manifest.is_object() || manifest.value("format", "") != "linkscope-link-shard" ||
            manifest.value("version", 0) != 1)
            throw Error(path.string() + ": not a shard manifest of linkscope-cli link");
        if (!manifest.value("complete", false)) throw Error(path.string() + ": the manifest is not complete");
        for (const char* key : {"shard", "shards", "input", "linker", "settings", "part", "counts"})
            if (!manifest.contains(key)) throw Error(path.string() + ": the manifest has no \"" + key + "\"");
        return manifest;
    } catch (const Error& e) {
        if (!why) throw;
        *why = e.what();
        return nlohmann::json();
    } catch (const nlohmann::json::exception& e) {
        const std::string message = path.string() + ": the manifest is not what link writes (" + e.what() + ")";
        if (!why) throw Error(message);
        *why = message;
        return nlohmann::json();
    }
}

bool partIntact(const std::filesystem::path& part, std::uint64_t bytes, std::uint32_t crc, std::string& why) {
    const auto stamp = fileStamp(part.string());
    if (!stamp) {
        why = part.string() + " is missing";
        return false;
    }
    if (stamp->first != bytes) {
        why = part.string() + " holds " + std::to_string(stamp->first) + " bytes, its manifest says " +
              std::to_string(bytes) + " (cut short or changed)";
        return false;
    }
    InputFileStream in(part);
    if (streamChecksum(in, bytes, part.string(), "shard part") != crc) {
        why = part.string() + ": its CRC-32 is not the one its manifest records (changed since it was written)";
        return false;
    }
    return true;
}

void writeManifest(const std::filesystem::path& path, const nlohmann::json& manifest) {
    AtomicFileWriter writer(path);
    writer.stream() << manifest.dump(2) << '\n';
    writer.commit();
}

}  // namespace linkscope::cli
