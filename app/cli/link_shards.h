#pragma once
// What `link --shard` and `merge-shards` share: the shard argument, the names of a shard's files
// in the output folder, and its manifest.
//
//   DIR/shard-IIIII-of-NNNNN.pubtator (.bioc.xml, .bioc.json, .bigbio.jsonl)
//                                                      the part, as `link` writes the format
//   DIR/shard-IIIII-of-NNNNN.json                      the manifest, written after the part
//
// Both are written atomically (util/atomic_file.h): a task killed while writing leaves at most a
// temporary file, never a part or manifest cut short. The manifest and its checked reader are in
// shard_manifest.h. Both files must be regular files of the folder: a task refuses to write
// through a symbolic link or over anything else found at their paths, and merge-shards refuses
// such files.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "corpus/corpus_format.h"
#include "corpus/document_chunk_reader.h"
#include "shard_manifest.h"

namespace linkscope::cli {

/// "I/N" (0 <= I < N) or "slurm": I = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN (MIN 0 when
/// unset), N = SLURM_ARRAY_TASK_COUNT, else SLURM_ARRAY_TASK_MAX - MIN + 1. Error naming what is
/// wrong (a malformed value, I out of range, the variables missing).
CorpusPart parseShard(const std::string& argument);

/// "shard-00003-of-00010"
std::string shardStem(CorpusPart part);
/// "pubtator", "bioc.xml", "bioc.json", "bigbio.jsonl"; Error for a format that shards do not take.
std::string partExtension(CorpusFormat format);
std::filesystem::path partPath(const std::filesystem::path& folder, CorpusPart part, CorpusFormat format);
std::filesystem::path manifestPath(const std::filesystem::path& folder, CorpusPart part);

/// The input's identity as a manifest records it: path (absolute), size, time and the CRC-32 of
/// its bytes (read once, whole). Error when it is not a regular file or cannot be read.
InputIdentity identifyInput(const std::filesystem::path& input);
/// Whether `input` has another size or time than `identity` records (stat only, no reading).
bool inputStampChanged(const std::filesystem::path& input, const InputIdentity& identity);
/// Error naming the input when the file at `identity.path` is missing, or its size or CRC-32 is
/// not what `identity` records: the shards were linked from other bytes. `who` begins the message.
void requireInputAsLinked(const InputIdentity& identity, const std::string& who);
/// The command line of this process (/proc/self/cmdline), words in order; empty if unreadable.
std::vector<std::string> commandLine();
/// The words of the command line that choose the linker: all but those of the options in
/// `ignored` (each with its value), with [size, mtimeNs] after each word that names a file.
nlohmann::json linkerArguments(const std::vector<std::string>& words, const std::vector<std::string>& ignored);

/// Error naming `path` when something is there that is not a regular file (a symbolic link, a
/// folder, a FIFO): a shard's part and manifest are written as files of the folder, never
/// through a link.
void requireShardFileOrNothing(const std::filesystem::path& path);
/// Whether `part` is a regular file (not a symbolic link) of `bytes` bytes whose CRC-32 is `crc`;
/// `why` says what differs.
bool partIntact(const std::filesystem::path& part, std::uint64_t bytes, std::uint32_t crc, std::string& why);
/// Writes the manifest atomically.
void writeManifest(const std::filesystem::path& path, const ShardManifest& manifest);

}  // namespace linkscope::cli
