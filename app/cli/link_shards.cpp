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

InputIdentity identifyInput(const std::filesystem::path& input) {
    const auto stamp = fileStamp(input.string());
    if (!stamp) throw Error(input.string() + ": not a regular file");
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(input, ec);
    InputIdentity identity;
    identity.path = ec ? input.string() : absolute.lexically_normal().string();
    identity.size = stamp->first;
    identity.mtimeNs = stamp->second;
    InputFileStream in(input, "the input");
    identity.crc32 = streamChecksum(in, identity.size, input.string(), "input");
    return identity;
}

bool inputStampChanged(const std::filesystem::path& input, const InputIdentity& identity) {
    const auto stamp = fileStamp(input.string());
    return !stamp || stamp->first != identity.size || stamp->second != identity.mtimeNs;
}

void requireInputAsLinked(const InputIdentity& identity, const std::string& who) {
    const std::string& path = identity.path;
    const auto stamp = fileStamp(path);
    if (!stamp)
        throw Error(who + ": the input the shards were linked from, " + path +
                    ", is missing or not a regular file (merge-shards checks that its bytes are still those "
                    "linked)");
    if (stamp->first != identity.size)
        throw Error(who + ": the input " + path + " holds " + std::to_string(stamp->first) +
                    " bytes, the shards were linked from " + std::to_string(identity.size) +
                    ": it changed since; relink the shards");
    InputFileStream in(path, "the input");
    if (streamChecksum(in, identity.size, path, "input") != identity.crc32)
        throw Error(who + ": the input " + path +
                    " is not the one the shards were linked from (its CRC-32 differs, with the same size): it "
                    "changed since; relink the shards");
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

void requireShardFileOrNothing(const std::filesystem::path& path) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) return;
    if (S_ISREG(info.st_mode)) return;
    throw Error(path.string() + (S_ISLNK(info.st_mode) ? ": is a symbolic link" : ": is not a regular file") +
                ": link --shard writes its part and manifest as files of the folder, never through a link or over "
                "anything else; remove it");
}

bool partIntact(const std::filesystem::path& part, std::uint64_t bytes, std::uint32_t crc, std::string& why) {
    struct stat info {};
    if (::lstat(part.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
        why = part.string() + (S_ISLNK(info.st_mode) ? " is a symbolic link" : " is not a regular file") +
              ", not a part as link --shard writes it";
        return false;
    }
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

void writeManifest(const std::filesystem::path& path, const ShardManifest& manifest) {
    AtomicFileWriter writer(path);
    writer.stream() << shardManifestJson(manifest).dump(2) << '\n';
    writer.commit();
}

}  // namespace linkscope::cli
