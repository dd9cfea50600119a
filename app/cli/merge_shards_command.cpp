// linkscope-cli merge-shards DIR --out FILE: the parts that `link --shard I/N --out DIR` wrote,
// joined into the file one `link` run writes, byte for byte (link_shards.h describes the files).
//
// Every shard is checked before anything is written, and the first problem is refused naming the
// shard: a missing manifest (a task that did not finish, or was killed while writing: files are
// written atomically, so such a task leaves no manifest), a part that is missing or not the size
// and CRC-32 its manifest records, shards of several N in the folder or a manifest that names
// another shard, and a shard that linked another input, with another linker or other settings
// than shard 0. The output is written atomically.
//
// Joining: PubTator parts are documents separated by one blank line (part 0 starts with the
// input's leading blank lines, the part that ends the input ends with its trailing ones): a blank
// line goes between two parts that hold documents. BioC parts are whole collections: part 0's
// header, every part's documents, then the closing tag.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "commands.h"
#include "corpus/corpus_format.h"
#include "link_shards.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/input_file.h"

namespace linkscope::cli {
namespace {

struct MergeArguments {
    std::filesystem::path folder;
    std::filesystem::path out;
};

struct Shard {
    std::filesystem::path manifestFile;
    nlohmann::json manifest;
    std::filesystem::path part;
    std::uint64_t bytes = 0;
    std::uint64_t headerBytes = 0;
    std::uint64_t footerBytes = 0;
    std::size_t documents = 0;
};

std::string nameOf(std::size_t index, std::size_t count, const std::filesystem::path& file) {
    return "shard " + std::to_string(index) + " of " + std::to_string(count) + " (" + file.string() + ")";
}

// The N of the shards in the folder; Error when there are none or several.
std::size_t shardCount(const std::filesystem::path& folder) {
    static const std::regex shardFile(R"(shard-(\d{5})-of-(\d{5})\.(json|pubtator|bioc\.xml))");
    std::map<std::size_t, std::string> counts;  // N -> a file of it
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        std::smatch match;
        const std::string name = entry.path().filename().string();
        if (!std::regex_match(name, match, shardFile)) continue;
        counts.emplace(std::stoul(match[2].str()), name);
    }
    if (counts.empty())
        throw Error(folder.string() + ": no shards (shard-IIIII-of-NNNNN.json and its part, as link --shard writes)");
    if (counts.size() > 1)
        throw Error(folder.string() + ": shards of " + std::to_string(counts.size()) + " runs with different N (" +
                    counts.begin()->second + ", " + counts.rbegin()->second +
                    "): a folder holds one run's shards; move the others away");
    const std::size_t count = counts.begin()->first;
    if (count == 0) throw Error(folder.string() + ": " + counts.begin()->second + " names a run of 0 shards");
    return count;
}

// Whether two shards agree on `key`; Error naming shard `index` when not.
void requireSame(const Shard& first, const Shard& shard, std::size_t index, std::size_t count, const char* key,
                 const std::string& what) {
    const nlohmann::json& a = first.manifest.at(key);
    const nlohmann::json& b = shard.manifest.at(key);
    if (a == b) return;
    throw Error(nameOf(index, count, shard.manifestFile) + " was linked " + what + " than shard 0: " + b.dump() +
                " instead of " + a.dump() + "; relink it (or all) with the same input, linker and settings");
}

Shard checkedShard(const std::filesystem::path& folder, std::size_t index, std::size_t count) {
    const CorpusPart part{index, count};
    Shard shard;
    shard.manifestFile = manifestPath(folder, part);
    std::string why;
    auto manifest = readManifest(shard.manifestFile, &why);
    if (!manifest)
        throw Error(nameOf(index, count, shard.manifestFile) +
                    ": no manifest: the task did not finish, or was killed while writing; rerun it");
    if (!why.empty()) throw Error(nameOf(index, count, shard.manifestFile) + ": " + why);
    shard.manifest = std::move(*manifest);
    try {
        const nlohmann::json& m = shard.manifest;
        if (m.at("shard").get<std::size_t>() != index || m.at("shards").get<std::size_t>() != count)
            throw Error(nameOf(index, count, shard.manifestFile) + ": the manifest is that of shard " +
                        m.at("shard").dump() + " of " + m.at("shards").dump() + " (a copy: a duplicated shard)");
        const auto format = corpusFormatFromName(m.at("corpusFormat").get<std::string>());
        if (!format) throw Error(nameOf(index, count, shard.manifestFile) + ": unknown corpusFormat");
        shard.part = partPath(folder, part, *format);
        const nlohmann::json& p = m.at("part");
        if (p.at("file").get<std::string>() != shard.part.filename().string())
            throw Error(nameOf(index, count, shard.manifestFile) + ": the manifest names the part " +
                        p.at("file").dump() + ", not " + shard.part.filename().string());
        shard.bytes = p.at("bytes").get<std::uint64_t>();
        shard.headerBytes = p.at("headerBytes").get<std::uint64_t>();
        shard.footerBytes = p.at("footerBytes").get<std::uint64_t>();
        shard.documents = p.at("documents").get<std::size_t>();
        if (shard.headerBytes + shard.footerBytes > shard.bytes)
            throw Error(nameOf(index, count, shard.manifestFile) + ": its header and footer exceed its part");
        if (!partIntact(shard.part, shard.bytes, p.at("crc32").get<std::uint32_t>(), why))
            throw Error(nameOf(index, count, shard.manifestFile) + ": " + why);
    } catch (const nlohmann::json::exception& e) {
        throw Error(nameOf(index, count, shard.manifestFile) + ": the manifest is not what link writes (" + e.what() +
                    ")");
    }
    return shard;
}

// Copies bytes [from, to) of `file` to `out`.
void copyRange(const std::filesystem::path& file, std::uint64_t from, std::uint64_t to, std::ostream& out) {
    InputFileStream in(file);
    in.seekg(static_cast<std::streamoff>(from));
    std::vector<char> block(std::size_t{1} << 20);
    std::uint64_t left = to - from;
    while (left > 0) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, block.size()));
        if (!in.read(block.data(), static_cast<std::streamsize>(n)))
            throw Error(file.string() + ": cannot read it (changed while merged?)");
        out.write(block.data(), static_cast<std::streamsize>(n));
        left -= n;
    }
}

void runMergeShards(const MergeArguments& args) {
    requireFolder(args.folder, "the shards' folder");
    const std::size_t count = shardCount(args.folder);
    std::vector<Shard> shards;
    for (std::size_t i = 0; i < count; ++i) {
        shards.push_back(checkedShard(args.folder, i, count));
        if (i == 0) continue;
        requireSame(shards[0], shards[i], i, count, "input", "from another input (path, size or time)");
        requireSame(shards[0], shards[i], i, count, "corpusFormat", "in another format");
        requireSame(shards[0], shards[i], i, count, "linker", "with another linker (model, KB or dictionary)");
        requireSame(shards[0], shards[i], i, count, "settings", "with other settings");
    }
    const bool bioc = shards[0].manifest.at("corpusFormat") == "bioc";
    std::size_t documents = 0;
    std::size_t mentions = 0;
    std::size_t linked = 0;
    for (const Shard& shard : shards) {
        documents += shard.documents;
        mentions += shard.manifest.at("counts").value("mentions", std::size_t{0});
        linked += shard.manifest.at("counts").value("linked", std::size_t{0});
    }
    if (documents == 0 && !bioc)
        throw Error(args.folder.string() + ": the shards hold no documents (the input has none)");

    AtomicFileWriter writer(args.out);
    std::ostream& out = writer.stream();
    if (bioc) {
        copyRange(shards[0].part, 0, shards[0].headerBytes, out);
        for (const Shard& shard : shards)
            copyRange(shard.part, shard.headerBytes, shard.bytes - shard.footerBytes, out);
        const Shard& last = shards.back();
        copyRange(last.part, last.bytes - last.footerBytes, last.bytes, out);
    } else {
        bool documentsBefore = false;
        for (const Shard& shard : shards) {
            if (shard.documents > 0 && documentsBefore) out.put('\n');
            copyRange(shard.part, 0, shard.bytes, out);
            documentsBefore = documentsBefore || shard.documents > 0;
        }
    }
    if (!out) throw Error("cannot write " + args.out.string());
    writer.commit();
    std::cout << count << " shards, " << documents << " documents, " << mentions << " mentions (" << linked
              << " linked) -> " << args.out.string() << '\n';
}

}  // namespace

void addMergeShardsCommand(CLI::App& app) {
    auto args = std::make_shared<MergeArguments>();
    CLI::App* cmd = app.add_subcommand(
        "merge-shards", "Join the parts of `link --shard I/N --out DIR` into the file one link run writes");
    cmd->add_option("folder", args->folder, "The folder the shards wrote (link --shard I/N --out DIR)")->required();
    cmd->add_option("--out", args->out, "The merged corpus (written atomically)")->required();
    cmd->callback([args] { runMergeShards(*args); });
}

}  // namespace linkscope::cli
