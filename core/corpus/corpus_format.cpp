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

constexpr std::array<std::pair<CorpusFormat, std::string_view>, 3> kNames{{
    {CorpusFormat::PubTator, "pubtator"},
    {CorpusFormat::BioC, "bioc"},
    {CorpusFormat::Brat, "brat"},
}};

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
    return first != std::string_view::npos && text[first] == '<' ? CorpusFormat::BioC : CorpusFormat::PubTator;
}

}  // namespace linkscope
