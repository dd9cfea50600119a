#include "shard_manifest.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "link_shards.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/text_file.h"

namespace linkscope::cli {
namespace {

constexpr std::uint64_t kMaxUnsigned = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kMaxShards = 99999;  // parseShard's bound
constexpr std::uint64_t kMaxTop = 64;        // link --top's bound

// A JSON integer that is not negative, whether nlohmann holds it signed or unsigned.
std::optional<std::uint64_t> wholeNumber(const nlohmann::json& value) {
    if (value.is_number_unsigned()) return value.get<std::uint64_t>();
    if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
        return static_cast<std::uint64_t>(value.get<std::int64_t>());
    return std::nullopt;
}

// The members of one JSON object of the manifest, read with their types checked. `where` is the
// object's place ("" for the manifest, "part." for its part...), so that a message names the
// field as the file spells it.
class Fields {
public:
    Fields(const nlohmann::json& object, const std::string& file, std::string where)
        : object_(object), file_(file), where_(std::move(where)) {}

    const nlohmann::json& member(const char* key) const {
        const auto found = object_.find(key);
        if (found == object_.end())
            throw ParseError(file_, 0, "the manifest has no \"" + where_ + key + "\"" + kNotLinks);
        return *found;
    }
    Fields object(const char* key) const {
        const nlohmann::json& value = member(key);
        if (!value.is_object()) fail(key, value, "an object");
        return Fields(value, file_, where_ + key + ".");
    }
    const nlohmann::json& array(const char* key) const {
        const nlohmann::json& value = member(key);
        if (!value.is_array()) fail(key, value, "an array");
        return value;
    }
    std::string text(const char* key) const {
        const nlohmann::json& value = member(key);
        if (!value.is_string()) fail(key, value, "a string");
        return value.get<std::string>();
    }
    bool flag(const char* key) const {
        const nlohmann::json& value = member(key);
        if (!value.is_boolean()) fail(key, value, "true or false");
        return value.get<bool>();
    }
    // A whole number from `low` to `high`. A negative one, a fraction, or one beyond 64 bits (read
    // as a float) is refused here rather than converted, as nlohmann's get<> would.
    std::uint64_t count(const char* key, std::uint64_t low = 0, std::uint64_t high = kMaxUnsigned) const {
        const nlohmann::json& value = member(key);
        const auto number = wholeNumber(value);
        if (!number || *number < low || *number > high)
            fail(key, value,
                 low == high ? std::to_string(low) + " (what the fields before it make)"
                             : "a whole number from " + std::to_string(low) + " to " + std::to_string(high));
        return *number;
    }
    std::int64_t integer(const char* key) const {
        const nlohmann::json& value = member(key);
        if (value.is_number_unsigned() && value.get<std::uint64_t>() <= std::uint64_t(INT64_MAX))
            return static_cast<std::int64_t>(value.get<std::uint64_t>());
        if (value.is_number_integer() && !value.is_number_unsigned()) return value.get<std::int64_t>();
        fail(key, value, "a whole number of 64 bits");
    }
    [[noreturn]] void fail(const char* key, const nlohmann::json& value, const std::string& expected) const {
        throw ParseError(file_, 0,
                         "\"" + where_ + key + "\" is " + briefJson(value) + ", expected " + expected + kNotLinks);
    }
    [[noreturn]] void wrong(const std::string& what) const { throw ParseError(file_, 0, what + kNotLinks); }

private:
    static constexpr const char* kNotLinks = " (not a manifest as link --shard writes it; relink the shard)";
    const nlohmann::json& object_;
    const std::string& file_;
    std::string where_;
};

std::string kindOf(const nlohmann::json& value) {
    return value.is_object() ? "an object" : value.is_array() ? "an array" : briefJson(value);
}

std::size_t toSize(std::uint64_t value) { return static_cast<std::size_t>(value); }

// The words of linkerArguments: strings, each file word followed by [size, mtimeNs].
void checkLinkerArguments(const nlohmann::json& words, const Fields& fields) {
    for (const nlohmann::json& word : words) {
        if (word.is_string()) continue;
        if (word.is_array() && word.size() == 2 && wholeNumber(word[0]) && word[1].is_number_integer()) continue;
        fields.fail("linkerArguments", word, "words (strings), each file's followed by [size, mtimeNs]");
    }
}

void checkSettings(const Fields& settings, CorpusFormat format) {
    settings.count("top", 1, kMaxTop);
    const nlohmann::json& nilBelow = settings.member("nilBelow");
    if (!nilBelow.is_null() && !nilBelow.is_number()) settings.fail("nilBelow", nilBelow, "a number or null");
    settings.flag("keepGold");
    if (settings.text("format") != corpusFormatName(format))
        settings.fail("format", settings.member("format"),
                      "the manifest's corpusFormat \"" + std::string(corpusFormatName(format)) + "\"");
}

ShardPartRecord partOf(const Fields& part, const ShardManifest& manifest) {
    ShardPartRecord record;
    record.file = part.text("file");
    const std::string expected =
        shardStem({manifest.shard, manifest.shards}) + "." + partExtension(manifest.corpusFormat);
    if (record.file != expected)
        part.fail("file", part.member("file"),
                  "\"" + expected + "\", the part of shard " + std::to_string(manifest.shard) + " of " +
                      std::to_string(manifest.shards) + " in its format");
    record.bytes = part.count("bytes");
    record.crc32 = static_cast<std::uint32_t>(part.count("crc32", 0, 0xffffffffu));
    const bool collection =
        manifest.corpusFormat == CorpusFormat::BioC || manifest.corpusFormat == CorpusFormat::BioCJson;
    // A BioC collection's part starts with its header and ends with its footer, neither empty;
    // the other formats' parts are documents alone.
    record.headerBytes = part.count("headerBytes", collection ? 1 : 0, collection ? record.bytes : 0);
    record.footerBytes =
        part.count("footerBytes", collection ? 1 : 0, collection ? record.bytes - record.headerBytes : 0);
    record.documents = toSize(part.count("documents", 0, record.bytes));  // each document writes bytes
    return record;
}

ShardCounts countsOf(const Fields& counts, const ShardPartRecord& part) {
    ShardCounts record;
    // Every document and mention writes at least one byte of the part.
    record.documents = toSize(counts.count("documents", part.documents, part.documents));
    record.mentions = toSize(counts.count("mentions", 0, part.bytes));
    record.linked = toSize(counts.count("linked", 0, record.mentions));
    record.nilBelow = toSize(counts.count("nilBelow", 0, record.mentions - record.linked));
    record.unranked = toSize(counts.count("unranked", 0, record.mentions - record.linked - record.nilBelow));
    const std::size_t rest = record.mentions - record.linked - record.nilBelow - record.unranked;
    record.withoutCandidate = toSize(counts.count("withoutCandidate", rest, rest));
    return record;
}

}  // namespace

nlohmann::json shardManifestJson(const ShardManifest& m) {
    return {{"format", "linkscope-link-shard"},
            {"version", kShardManifestVersion},
            {"shard", m.shard},
            {"shards", m.shards},
            {"input",
             {{"path", m.input.path}, {"size", m.input.size}, {"mtimeNs", m.input.mtimeNs}, {"crc32", m.input.crc32}}},
            {"range", {{"bytes", m.rangeBytes}, {"crc32", m.rangeCrc32}}},
            {"corpusFormat", std::string(corpusFormatName(m.corpusFormat))},
            {"linker", {{"description", m.linkerDescription}, {"fingerprint", m.linkerFingerprint}}},
            {"linkerArguments", m.linkerArguments},
            {"settings", m.settings},
            {"part",
             {{"file", m.part.file},
              {"bytes", m.part.bytes},
              {"crc32", m.part.crc32},
              {"headerBytes", m.part.headerBytes},
              {"footerBytes", m.part.footerBytes},
              {"documents", m.part.documents}}},
            {"counts",
             {{"documents", m.counts.documents},
              {"mentions", m.counts.mentions},
              {"linked", m.counts.linked},
              {"nilBelow", m.counts.nilBelow},
              {"unranked", m.counts.unranked},
              {"withoutCandidate", m.counts.withoutCandidate}}},
            {"command", m.command},
            {"complete", true}};
}

ShardManifest parseShardManifest(const nlohmann::json& json, const std::string& file) {
    if (!json.is_object())
        throw ParseError(file, 0, "the manifest is " + kindOf(json) + ", not a shard manifest of linkscope-cli link");
    const Fields fields(json, file, "");
    const nlohmann::json& format = fields.member("format");
    if (format != "linkscope-link-shard")
        fields.fail("format", format, "\"linkscope-link-shard\" (a shard manifest of linkscope-cli link)");
    const nlohmann::json& version = fields.member("version");
    if (version == 1)
        fields.wrong(
            "the manifest is of version 1, written by an earlier linkscope-cli that did not record the "
            "input's CRC-32");
    if (version != kShardManifestVersion)
        fields.fail("version", version, "version " + std::to_string(kShardManifestVersion));
    if (!fields.flag("complete")) fields.wrong("the manifest is not complete");

    ShardManifest m;
    m.shards = toSize(fields.count("shards", 1, kMaxShards));
    m.shard = toSize(fields.count("shard", 0, m.shards - 1));

    const Fields input = fields.object("input");
    m.input.path = input.text("path");
    if (m.input.path.empty()) input.fail("path", input.member("path"), "the input's path");
    m.input.size = input.count("size");
    m.input.mtimeNs = input.integer("mtimeNs");
    m.input.crc32 = static_cast<std::uint32_t>(input.count("crc32", 0, 0xffffffffu));

    const Fields range = fields.object("range");
    m.rangeBytes = range.count("bytes");
    m.rangeCrc32 = static_cast<std::uint32_t>(range.count("crc32", 0, 0xffffffffu));

    const std::string formatName = fields.text("corpusFormat");
    const auto corpusFormat = corpusFormatFromName(formatName);
    if (!corpusFormat || *corpusFormat == CorpusFormat::Brat)
        fields.fail("corpusFormat", fields.member("corpusFormat"), "pubtator, bioc, bioc-json or bigbio");
    m.corpusFormat = *corpusFormat;

    const Fields linker = fields.object("linker");
    m.linkerDescription = linker.text("description");
    m.linkerFingerprint = linker.text("fingerprint");
    m.linkerArguments = fields.array("linkerArguments");
    checkLinkerArguments(m.linkerArguments, fields);

    const Fields settings = fields.object("settings");
    checkSettings(settings, m.corpusFormat);
    m.settings = fields.member("settings");

    m.part = partOf(fields.object("part"), m);
    m.counts = countsOf(fields.object("counts"), m.part);

    for (const nlohmann::json& word : fields.array("command")) {
        if (!word.is_string()) fields.fail("command", word, "the command's words (strings)");
        m.command.push_back(word.get<std::string>());
    }
    return m;
}

std::optional<ShardManifest> readShardManifest(const std::filesystem::path& path) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) {
        if (errno == ENOENT) return std::nullopt;
        throw ParseError(path.string(), 0, std::string("cannot read the shard manifest: ") + std::strerror(errno));
    }
    if (S_ISLNK(info.st_mode))
        throw ParseError(path.string(), 0,
                         "is a symbolic link: link --shard writes its manifest as a file of the shards' folder; "
                         "remove the link and relink the shard");
    // readTextFile refuses a folder, a FIFO or a device, naming what it is, and a file larger
    // than the bound before reading it whole.
    const std::string text = readTextFile(path, kMaxShardManifestBytes);
    return parseShardManifest(parseJson(text, path.string()), path.string());
}

}  // namespace linkscope::cli
