#pragma once
// The manifest of one shard of `link --shard I/N` (format "linkscope-link-shard", version 2):
// what link writes after the shard's part, what a rerun compares before it links again and what
// merge-shards checks before it joins the parts (link_shards.h names the files).
//
// The manifest is read by one checked reader: every field must be there and of the JSON type
// link writes (a number a non-negative integer within its bound, a string, an object...), and the
// fields must agree with one another (the part's file name with the shard and format, the counts
// with one another and with the part). Anything else is an Error naming the file and the field,
// never a JSON library exception: a manifest is outside data, written by a careless user as
// easily as by link.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "corpus/corpus_format.h"

namespace linkscope::cli {

/// The input a shard was linked from: its path (absolute), size and modification time as stat()
/// gave them, and the CRC-32 of its bytes as stored (compressed or not).
struct InputIdentity {
    std::string path;
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    std::uint32_t crc32 = 0;

    /// Same path, size and CRC-32. The time is not compared: the bytes decide, so that a file
    /// rewritten in place with its time restored is another input, and one touched is not.
    bool sameContent(const InputIdentity& other) const noexcept {
        return path == other.path && size == other.size && crc32 == other.crc32;
    }
};

/// The part file of a shard as its manifest records it.
struct ShardPartRecord {
    std::string file;  ///< its name in the shards' folder
    std::uint64_t bytes = 0;
    std::uint32_t crc32 = 0;
    std::uint64_t headerBytes = 0;  ///< BioC XML and JSON: the collection's header, else 0
    std::uint64_t footerBytes = 0;  ///< BioC XML and JSON: the collection's footer, else 0
    std::size_t documents = 0;
};

/// What a shard counted (withoutCandidate = mentions - linked - nilBelow - unranked).
struct ShardCounts {
    std::size_t documents = 0;
    std::size_t mentions = 0;
    std::size_t linked = 0;
    std::size_t nilBelow = 0;
    std::size_t withoutCandidate = 0;
    std::size_t unranked = 0;
};

struct ShardManifest {
    std::size_t shard = 0;   ///< I, from 0
    std::size_t shards = 1;  ///< N
    InputIdentity input;
    std::uint64_t rangeBytes = 0;  ///< the part's bytes of the input (decompressed)
    std::uint32_t rangeCrc32 = 0;
    CorpusFormat corpusFormat = CorpusFormat::PubTator;  ///< PubTator, BioC, BioCJson or BigBio
    std::string linkerDescription;
    std::string linkerFingerprint;
    /// The words of the command that choose the linker, each file word followed by its
    /// [size, mtimeNs] (link_shards.h, linkerArguments).
    nlohmann::json linkerArguments = nlohmann::json::array();
    /// {"top": K, "nilBelow": S or null, "keepGold": bool, "format": the corpus format's name}
    nlohmann::json settings = nlohmann::json::object();
    ShardPartRecord part;
    ShardCounts counts;
    std::vector<std::string> command;
};

inline constexpr int kShardManifestVersion = 2;
/// No manifest link writes comes near this: the command line it records is bounded by the
/// system's argument limit.
inline constexpr std::size_t kMaxShardManifestBytes = std::size_t{16} << 20;

/// The manifest as link writes it (with "format", "version" and "complete": true).
nlohmann::json shardManifestJson(const ShardManifest& manifest);

/// The manifest `json` read from `file`, every field checked as described above; Error
/// "FILE: ..." naming the field and what is wrong with it.
ShardManifest parseShardManifest(const nlohmann::json& json, const std::string& file);

/// The manifest at `path`; nullopt when nothing is there. Error naming the file when it is a
/// symbolic link, not a regular file (a folder, a FIFO), larger than kMaxShardManifestBytes, not
/// JSON, or not a complete manifest as parseShardManifest checks it.
std::optional<ShardManifest> readShardManifest(const std::filesystem::path& path);

}  // namespace linkscope::cli
