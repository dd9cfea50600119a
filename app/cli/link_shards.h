#pragma once
// What `link --shard` and `merge-shards` share: the shard argument, the names of a shard's files
// in the output folder, and its manifest.
//
//   DIR/shard-IIIII-of-NNNNN.pubtator (.bioc.xml, .bioc.json, .bigbio.jsonl)
//                                                      the part, as `link` writes the format
//   DIR/shard-IIIII-of-NNNNN.json                      the manifest, written after the part
//
// Both are written atomically (util/atomic_file.h): a task killed while writing leaves at most a
// temporary file, never a part or manifest cut short. The manifest (format
// "linkscope-link-shard", version 1) records:
//   shard, shards              I and N (I from 0)
//   input                      path, size, mtimeNs (what merge-shards compares), compressed
//   range                      the part's bytes of the input (decompressed): count and CRC-32
//                              (BioC JSON: of its documents' JSON texts)
//   corpusFormat               pubtator | bioc | bioc-json | bigbio
//   linker                     description and fingerprint (the dictionary's, the model's)
//   linkerArguments            the command's words that choose the linker, with the size and
//                              time of each file they name: what a rerun compares before it
//                              builds the linker
//   settings                   top, nilBelow, keepGold, format
//   part                       file name, bytes, CRC-32, headerBytes/footerBytes (BioC XML and
//                              JSON), documents
//   counts                     documents, mentions, linked, nilBelow, withoutCandidate, unranked
//   command                    the command line
//   complete                   true
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "corpus/corpus_format.h"
#include "corpus/document_chunk_reader.h"

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

/// The input's identity as manifests record it: path (absolute), size, mtimeNs.
nlohmann::json inputIdentity(const std::filesystem::path& input);
/// The command line of this process (/proc/self/cmdline), words in order; empty if unreadable.
std::vector<std::string> commandLine();
/// The words of the command line that choose the linker: all but those of the options in
/// `ignored` (each with its value), with [size, mtimeNs] after each word that names a file.
nlohmann::json linkerArguments(const std::vector<std::string>& words, const std::vector<std::string>& ignored);

/// The manifest at `path`, or nullopt when there is none; Error naming it when it cannot be read
/// or is not a complete shard manifest (with `why` set instead of throwing when given).
std::optional<nlohmann::json> readManifest(const std::filesystem::path& path, std::string* why = nullptr);
/// Whether `part` exists with `bytes` bytes whose CRC-32 is `crc`; `why` says what differs.
bool partIntact(const std::filesystem::path& part, std::uint64_t bytes, std::uint32_t crc, std::string& why);
/// Writes the manifest atomically.
void writeManifest(const std::filesystem::path& path, const nlohmann::json& manifest);

}  // namespace linkscope::cli
