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
// header, every part's documents, then the closing tag. BioC JSON parts likewise: part 0's header,
// the documents (one a line) joined with the separator the chunk writers write
// (kBioCJsonDocumentSeparator), the last part's footer. BigBio parts are whole lines, joined as
// they are. A PMID that two shards hold is written
// once, the first copy, as one run writes it (each task leaves out its own repeats).
// Memory: a line and one PMID per document.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "commands.h"
#include "corpus/bioc_json_writer.h"
#include "corpus/corpus_format.h"
#include "corpus/pubtator_lines.h"
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
    static const std::regex shardFile(
        R"(shard-(\d{5})-of-(\d{5})\.(json|pubtator|bioc\.xml|bioc\.json|bigbio\.jsonl))");
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

// Calls `line` for each line of bytes [from, to) of `file`, without its "\n" (a part's lines all
// end with one).
template <typename Line>
void forEachLine(const std::filesystem::path& file, std::uint64_t from, std::uint64_t to, Line&& line) {
    InputFileStream in(file);
    in.seekg(static_cast<std::streamoff>(from));
    std::uint64_t at = from;
    std::string text;
    while (at < to && std::getline(in, text)) {
        at += text.size() + 1;
        line(std::string_view(text));
    }
    if (at != to) throw Error(file.string() + ": cannot read it (changed while merged?)");
}

// Joins the parts' documents, leaving out a document whose PMID an earlier shard already wrote, as
// one run leaves out a PMID read a second time. The parts are as link writes them: PubTator
// documents separated by one blank line, BioC <document> elements indented by two spaces.
class RepeatFilter {
public:
    explicit RepeatFilter(std::ostream& out) : out_(out) {}
    std::size_t dropped = 0;
    std::string example;
    std::size_t written() const noexcept { return written_; }

    void pubTator(std::string_view line) {
        if (line.empty()) {
            if (pmids_.empty())
                out_.put('\n');  // the input's leading blank lines
            else
                ++blankLines_;
            return;
        }
        const auto shape = pubtator::classify(line);
        if (shape.kind == pubtator::LineKind::Title) {
            blankLines_ = 0;
            skipping_ = seen(std::string(shape.pmid));
            if (skipping_) return;
            if (written_++ > 0) out_.put('\n');
        }
        if (!skipping_) writeLine(line);
    }
    void finishPubTator() {
        for (std::size_t i = 0; i < blankLines_; ++i) out_.put('\n');  // the input's trailing blank lines
    }

    // A BioC JSON document line (its separator's ',' taken off) or a BigBio line: both start
    // with the document's id, {"id":"PMID", as the JSON writers write it.
    void jsonLine(std::string_view line, std::string_view separator) {
        constexpr std::string_view kId = "{\"id\":\"";
        if (line.starts_with(kId)) {
            const std::size_t end = line.find('"', kId.size());
            if (end != std::string_view::npos && seen(std::string(line.substr(kId.size(), end - kId.size())))) return;
        }
        if (written_++ > 0) out_.write(separator.data(), static_cast<std::streamsize>(separator.size()));
        out_.write(line.data(), static_cast<std::streamsize>(line.size()));
    }

    void bioc(std::string_view line) {
        constexpr std::string_view kStart = "  <document>";
        constexpr std::string_view kEnd = "  </document>";
        constexpr std::string_view kId = "    <id>";
        if (line == kStart) {  // written with the id line after it, unless that names a repeat
            inDocument_ = true;
            idLine_ = true;
            skipping_ = false;
            return;
        }
        if (inDocument_ && idLine_) {
            idLine_ = false;
            if (line.starts_with(kId) && line.ends_with("</id>"))
                skipping_ = seen(std::string(line.substr(kId.size(), line.size() - kId.size() - 5)));
            if (!skipping_) writeLine(kStart);
        }
        if (!skipping_) writeLine(line);
        if (line == kEnd) inDocument_ = false;
        if (skipping_ && !inDocument_) skipping_ = false;
    }

private:
    bool seen(const std::string& pmid) {
        if (pmids_.insert(pmid).second) return false;
        ++dropped;
        if (example.empty()) example = pmid;
        return true;
    }
    void writeLine(std::string_view line) {
        out_.write(line.data(), static_cast<std::streamsize>(line.size()));
        out_.put('\n');
    }

    std::ostream& out_;
    std::unordered_set<std::string> pmids_;
    std::size_t written_ = 0;
    std::size_t blankLines_ = 0;  // since the latest title line
    bool skipping_ = false;
    bool inDocument_ = false;
    bool idLine_ = false;
};

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
    const std::string format = shards[0].manifest.at("corpusFormat").get<std::string>();
    const bool bioc = format == "bioc";
    const bool biocJson = format == "bioc-json";
    std::size_t documents = 0;
    std::size_t mentions = 0;
    std::size_t linked = 0;
    for (const Shard& shard : shards) {
        documents += shard.documents;
        mentions += shard.manifest.at("counts").value("mentions", std::size_t{0});
        linked += shard.manifest.at("counts").value("linked", std::size_t{0});
    }
    if (documents == 0 && !bioc && !biocJson)
        throw Error(args.folder.string() + ": the shards hold no documents (the input has none)");

    AtomicFileWriter writer(args.out);
    std::ostream& out = writer.stream();
    RepeatFilter repeats(out);
    if (bioc) {
        copyRange(shards[0].part, 0, shards[0].headerBytes, out);
        for (const Shard& shard : shards)
            forEachLine(shard.part, shard.headerBytes, shard.bytes - shard.footerBytes,
                        [&](std::string_view line) { repeats.bioc(line); });
        const Shard& last = shards.back();
        copyRange(last.part, last.bytes - last.footerBytes, last.bytes, out);
    } else if (biocJson) {
        // A part's documents end with the footer's first byte, a line break.
        copyRange(shards[0].part, 0, shards[0].headerBytes, out);
        for (const Shard& shard : shards)
            if (shard.documents > 0)
                forEachLine(shard.part, shard.headerBytes, shard.bytes - shard.footerBytes + 1,
                            [&](std::string_view line) {
                                if (line.ends_with(',')) line.remove_suffix(1);
                                repeats.jsonLine(line, kBioCJsonDocumentSeparator);
                            });
        const Shard& last = shards.back();
        copyRange(last.part, last.bytes - last.footerBytes, last.bytes, out);
    } else if (format == "bigbio") {
        for (const Shard& shard : shards)
            forEachLine(shard.part, 0, shard.bytes, [&](std::string_view line) { repeats.jsonLine(line, "\n"); });
        if (repeats.written() > 0) out.put('\n');
    } else {
        for (const Shard& shard : shards)
            forEachLine(shard.part, 0, shard.bytes, [&](std::string_view line) { repeats.pubTator(line); });
        repeats.finishPubTator();
    }
    if (repeats.dropped > 0)
        std::cerr << "note: " << repeats.dropped << " documents held by two shards were written once (the first copy)"
                  << (repeats.example.empty() ? "" : ", e.g. " + repeats.example) << '\n';
    documents -= repeats.dropped;
    if (!out) throw Error("cannot write " + args.out.string());
    writer.commit();
    std::cout << count << " shards, " << documents << " documents, " << mentions << " mentions (" << linked
              << " linked, as the shards counted them) -> " << args.out.string() << '\n';
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
