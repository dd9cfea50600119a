#include "corpus/corpus_format.h"

#include <array>
#include <string>
#include <system_error>
#include <utility>

#include <zlib.h>

#include "util/error.h"
#include "util/input_file.h"

namespace linkscope {
namespace {

constexpr std::array<std::pair<CorpusFormat, std::string_view>, 5> kNames{{
    {CorpusFormat::PubTator, "pubtator"},
    {CorpusFormat::BioC, "bioc"},
    {CorpusFormat::Brat, "brat"},
    {CorpusFormat::BioCJson, "bioc-json"},
    {CorpusFormat::BigBio, "bigbio"},
}};

// Where `text` holds "KEY" followed by blanks and ':' (a JSON key, not a word in a text).
std::size_t keyAt(std::string_view text, std::string_view quotedKey) {
    for (auto at = text.find(quotedKey); at != std::string_view::npos; at = text.find(quotedKey, at + 1)) {
        const auto after = text.find_first_not_of(" \t\r\n", at + quotedKey.size());
        if (after != std::string_view::npos && text[after] == ':') return at;
    }
    return std::string_view::npos;
}

// A file starting with '{': BigBio JSON lines or a BioC JSON collection. A BioC collection names
// its documents array before any passage; a BigBio line has passages at its top (its entities
// may lie beyond the bytes looked at, after a long abstract).
CorpusFormat jsonFormat(const std::filesystem::path& path, std::string_view text) {
    auto name = path.filename();
    if (name.extension() == ".gz") name = name.stem();
    if (name.extension() == ".jsonl") return CorpusFormat::BigBio;
    const std::string_view firstLine = text.substr(0, text.find('\n'));
    const auto passages = keyAt(firstLine, "\"passages\"");
    if (passages == std::string_view::npos) return CorpusFormat::BioCJson;
    const std::string_view before = firstLine.substr(0, passages);
    const bool collection = keyAt(before, "\"documents\"") != std::string_view::npos ||
                            keyAt(before, "\"PubTator3\"") != std::string_view::npos;
    return collection ? CorpusFormat::BioCJson : CorpusFormat::BigBio;
}

}  // namespace

std::string_view corpusFormatName(CorpusFormat format) noexcept {
    for (const auto& [value, name] : kNames)
        if (value == format) return name;
    return "pubtator";
}

std::optional<CorpusFormat> corpusFormatFromName(std::string_view name) noexcept {
    for (const auto& [value, known] : kNames)
        if (known == name) return value;
    return std::nullopt;
}

CorpusFormat detectCorpusFormat(const std::filesystem::path& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) throw ParseError(path.string(), 0, "no such corpus file or folder");
    if (std::filesystem::is_directory(status)) return CorpusFormat::Brat;
    // The first bytes only (a BioC file may be one line of hundreds of megabytes); zlib reads a
    // plain file as it is and a gzip file through its compression.
    const GzipInput file = openGzipInput(path, "the corpus file");  // a FIFO or device: refused, not waited on
    std::array<char, 4096> head{};
    const int read = gzread(file.get(), head.data(), static_cast<unsigned>(head.size()));
    if (read < 0) throw ParseError(path.string(), 0, "cannot read the corpus file (damaged gzip data?)");
    std::string_view text(head.data(), static_cast<std::size_t>(read));
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte-order mark
    const auto first = text.find_first_not_of(" \t\r\n");
    // Empty (or only blanks so far): PubTator, whose reader then says what is wrong.
    if (first == std::string_view::npos) return CorpusFormat::PubTator;
    if (text[first] == '<') return CorpusFormat::BioC;
    if (text[first] == '{') return jsonFormat(path, text.substr(first));
    return CorpusFormat::PubTator;
}

}  // namespace linkscope
