// linkscope-cli merge-shards DIR --out FILE: the parts that `link --shard I/N --out DIR` wrote,
// joined into the file one `link` run writes, byte for byte (link_shards.h describes the files).
//
// Every shard is checked before anything is written, and the first problem is refused naming the
// shard: a missing manifest (a task that did not finish, or was killed while writing: files are
// written atomically, so such a task leaves no manifest), a part that is missing or not the size
// and CRC-32 its manifest records, shards of several N in the folder or a manifest that names
// another shard, a file named as a shard's that is not one of the run's (numbered N or more, a
// part of another format), a manifest of the wrong shape (shard_manifest.h: every field's type
// checked), and a shard that linked another input, with another linker or other settings than
// shard 0. The input is then read once: its bytes (size and CRC-32) must be those the shards
// linked, or the merge is refused naming it. The output is written atomically; an output that
// would replace a shard's part or manifest (or is the folder) is refused before any of this.
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
    ShardManifest manifest;
    std::filesystem::path part;
};

std::string nameOf(std::size_t index, std::size_t count, const std::filesystem::path& file) {
    return "shard " + std::to_string(index) + " of " + std::to_string(count) + " (" + file.string() + ")";
}

// The name of a shard's part or manifest, of any run: shard-IIIII-of-NNNNN and the extension.
const std::regex& shardFileName() {
    static const std::regex name(R"(shard-(\d{5})-of-(\d{5})\.(json|pubtator|bioc\.xml|bioc\.json|bigbio\.jsonl))");
    return name;
}

// The path with its symbolic links resolved and "." and ".." taken out, as far as it exists.
std::filesystem::path resolved(const std::filesystem::path& path) {
    std::error_code ec;
    std::filesystem::path result = std::filesystem::weakly_canonical(path, ec);
    if (ec) result = std::filesystem::absolute(path, ec).lexically_normal();
    return result;
}

// Error when --out would replace a file of the shards' folder that merge-shards and link --shard
// read: a part or manifest (of this run or another: a merged file under such a name is read as a
// shard by the next merge or rerun), or the folder itself. Paths are compared resolved, so that
// DIR/./x, a symbolic link to the folder and an --out that is a link into it are caught (the
// output is written through a link). Any other file of the folder may be the output: link --shard
// and merge-shards leave such files alone.
void requireOutOutsideShards(const std::filesystem::path& folder, const std::filesystem::path& out) {
    const std::filesystem::path shards = resolved(folder);
    const std::filesystem::path target = resolved(out);
    if (target == shards)
        throw Error("--out " + out.string() + " is the shards' folder " + folder.string() +
                    ": name a file to write the merged corpus to");
    if (target.parent_path() == shards && std::regex_match(target.filename().string(), shardFileName()))
        throw Error("--out " + out.string() + " is " + target.string() + ", named as a shard's part or manifest in " +
                    folder.string() +
                    ": the merged corpus would replace a file the shards are read from; write it under another "
                    "name or outside the folder");
}

// The N of the shards in the folder; Error when there are none or several, or when a file named
// as a shard's is not one of that run's (a part or manifest numbered N or more).
std::size_t shardCount(const std::filesystem::path& folder) {
    const std::regex& shardFile = shardFileName();
    std::map<std::size_t, std::string> counts;               // N -> a file of it
    std::vector<std::pair<std::size_t, std::string>> files;  // I, the file's name
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        std::smatch match;
        const std::string name = entry.path().filename().string();
        if (!std::regex_match(name, match, shardFile)) continue;
        counts.emplace(std::stoul(match[2].str()), name);
        files.emplace_back(std::stoul(match[1].str()), name);
    }
    if (counts.empty())
        throw Error(folder.string() + ": no shards (shard-IIIII-of-NNNNN.json and its part, as link --shard writes)");
    if (counts.size() > 1)
        throw Error(folder.string() + ": shards of " + std::to_string(counts.size()) + " runs with different N (" +
                    counts.begin()->second + ", " + counts.rbegin()->second +
                    "): a folder holds one run's shards; move the others away");
    const std::size_t count = counts.begin()->first;
    if (count == 0) throw Error(folder.string() + ": " + counts.begin()->second + " names a run of 0 shards");
    for (const auto& [index, name] : files)
        if (index >= count)
            throw Error((folder / name).string() + ": shard " + std::to_string(index) + " of " + std::to_string(count) +
                        " does not exist (shards are numbered from 0 to N-1): not a file "
                        "of this run; move it away");
    return count;
}

// Error naming shard `index` when it was linked otherwise than shard 0 (`what`: how).
void requireSame(bool same, const Shard& shard, std::size_t index, std::size_t count, const std::string& what,
                 const std::string& theirs, const std::string& first) {
    if (same) return;
    throw Error(nameOf(index, count, shard.manifestFile) + " was linked " + what + " than shard 0: " + theirs +
                " instead of " + first + "; relink it (or all) with the same input, linker and settings");
}

void requireLikeFirst(const Shard& first, const Shard& shard, std::size_t index, std::size_t count) {
    const ShardManifest& a = first.manifest;
    const ShardManifest& b = shard.manifest;
    const auto input = [](const InputIdentity& i) {
        return i.path + " (" + std::to_string(i.size) + " bytes, CRC-32 " + std::to_string(i.crc32) + ")";
    };
    requireSame(a.input.sameContent(b.input), shard, index, count, "from another input (path, size or bytes)",
                input(b.input), input(a.input));
    requireSame(a.corpusFormat == b.corpusFormat, shard, index, count, "in another format",
                std::string(corpusFormatName(b.corpusFormat)), std::string(corpusFormatName(a.corpusFormat)));
    requireSame(a.linkerDescription == b.linkerDescription && a.linkerFingerprint == b.linkerFingerprint, shard, index,
                count, "with another linker (model, KB or dictionary)", b.linkerDescription + " " + b.linkerFingerprint,
                a.linkerDescription + " " + a.linkerFingerprint);
    requireSame(a.settings == b.settings, shard, index, count, "with other settings", b.settings.dump(),
                a.settings.dump());
}

// The files of a part that other files of its folder hold: the part of the manifest's format and
// no other (a part of another format is left from another run).
void requireNoOtherPart(const std::filesystem::path& folder, const Shard& shard, std::size_t index, std::size_t count) {
    for (const CorpusFormat format :
         {CorpusFormat::PubTator, CorpusFormat::BioC, CorpusFormat::BioCJson, CorpusFormat::BigBio}) {
        if (format == shard.manifest.corpusFormat) continue;
        const auto other = partPath(folder, {index, count}, format);
        std::error_code ec;
        if (std::filesystem::symlink_status(other, ec).type() != std::filesystem::file_type::not_found)
            throw Error(nameOf(index, count, shard.manifestFile) + ": " + other.string() +
                        " is a part of another format (" + std::string(corpusFormatName(format)) +
                        ") beside it, left from another run; move it away");
    }
}

Shard checkedShard(const std::filesystem::path& folder, std::size_t index, std::size_t count) {
    const CorpusPart part{index, count};
    Shard shard;
    shard.manifestFile = manifestPath(folder, part);
    std::optional<ShardManifest> manifest;
    try {
        manifest = readShardManifest(shard.manifestFile);
    } catch (const Error& e) {
        throw Error("shard " + std::to_string(index) + " of " + std::to_string(count) + ": " + e.what());
    }
    if (!manifest)
        throw Error(nameOf(index, count, shard.manifestFile) +
                    ": no manifest: the task did not finish, or was killed while writing; rerun it");
    shard.manifest = std::move(*manifest);
    const ShardManifest& m = shard.manifest;
    if (m.shard != index || m.shards != count)
        throw Error(nameOf(index, count, shard.manifestFile) + ": the manifest is that of shard " +
                    std::to_string(m.shard) + " of " + std::to_string(m.shards) + " (a copy: a duplicated shard)");
    shard.part = partPath(folder, part, m.corpusFormat);  // the manifest's part.file, checked by its reader
    requireNoOtherPart(folder, shard, index, count);
    std::string why;
    if (!partIntact(shard.part, m.part.bytes, m.part.crc32, why))
        throw Error(nameOf(index, count, shard.manifestFile) + ": " + why);
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
    if (at != to)
        throw Error(file.string() + ": its lines do not end at byte " + std::to_string(to) +
                    ", where its manifest's sizes say (the part or its manifest changed)");
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
    requireOutOutsideShards(args.folder, args.out);
    const std::size_t count = shardCount(args.folder);
    std::vector<Shard> shards;
    for (std::size_t i = 0; i < count; ++i) {
        shards.push_back(checkedShard(args.folder, i, count));
        if (i > 0) requireLikeFirst(shards[0], shards[i], i, count);
    }
    // The input read once: its bytes must still be those every shard linked.
    requireInputAsLinked(shards[0].manifest.input, args.folder.string());
    const CorpusFormat format = shards[0].manifest.corpusFormat;
    const bool bioc = format == CorpusFormat::BioC;
    const bool biocJson = format == CorpusFormat::BioCJson;
    // The counts each stay within their part's bytes (the manifest's reader checks it), and the
    // parts are files of one folder: the sums cannot overflow.
    std::size_t documents = 0;
    std::size_t mentions = 0;
    std::size_t linked = 0;
    for (const Shard& shard : shards) {
        documents += shard.manifest.part.documents;
        mentions += shard.manifest.counts.mentions;
        linked += shard.manifest.counts.linked;
    }
    if (documents == 0 && !bioc && !biocJson)
        throw Error(args.folder.string() + ": the shards hold no documents (the input has none)");

    AtomicFileWriter writer(args.out);
    std::ostream& out = writer.stream();
    RepeatFilter repeats(out);
    if (bioc) {
        copyRange(shards[0].part, 0, shards[0].manifest.part.headerBytes, out);
        for (const Shard& shard : shards) {
            const ShardPartRecord& p = shard.manifest.part;
            forEachLine(shard.part, p.headerBytes, p.bytes - p.footerBytes,
                        [&](std::string_view line) { repeats.bioc(line); });
        }
        const ShardPartRecord& last = shards.back().manifest.part;
        copyRange(shards.back().part, last.bytes - last.footerBytes, last.bytes, out);
    } else if (biocJson) {
        // A part's documents end with the footer's first byte, a line break.
        copyRange(shards[0].part, 0, shards[0].manifest.part.headerBytes, out);
        for (const Shard& shard : shards) {
            const ShardPartRecord& p = shard.manifest.part;
            if (p.documents > 0)
                forEachLine(shard.part, p.headerBytes, p.bytes - p.footerBytes + 1, [&](std::string_view line) {
                    if (line.ends_with(',')) line.remove_suffix(1);
                    repeats.jsonLine(line, kBioCJsonDocumentSeparator);
                });
        }
        const ShardPartRecord& last = shards.back().manifest.part;
        copyRange(shards.back().part, last.bytes - last.footerBytes, last.bytes, out);
    } else if (format == CorpusFormat::BigBio) {
        for (const Shard& shard : shards)
            forEachLine(shard.part, 0, shard.manifest.part.bytes,
                        [&](std::string_view line) { repeats.jsonLine(line, "\n"); });
        if (repeats.written() > 0) out.put('\n');
    } else {
        for (const Shard& shard : shards)
            forEachLine(shard.part, 0, shard.manifest.part.bytes,
                        [&](std::string_view line) { repeats.pubTator(line); });
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
