#pragma once
// The corpus formats Linkscope reads, and telling them apart from the input itself, so that every
// place that opens a corpus (the CLI's commands, a project manifest) accepts all of them.
#include <filesystem>
#include <optional>
#include <string_view>

namespace linkscope {

enum class CorpusFormat {
    PubTator,  ///< one file, plain or .gz (pubtator_reader.h)
    BioC,      ///< one BioC XML file, plain or .gz (bioc_reader.h)
    Brat,      ///< a folder of PMID.txt + PMID.ann (brat_reader.h)
    BioCJson,  ///< one BioC JSON collection, plain or .gz (bioc_json_reader.h)
    BigBio,    ///< BigBio KB schema JSON lines, plain or .gz (bigbio_reader.h)
};

/// "pubtator", "bioc", "brat", "bioc-json", "bigbio".
std::string_view corpusFormatName(CorpusFormat format) noexcept;
/// The format of a name corpusFormatName() gives; nullopt for any other name ("auto" included).
std::optional<CorpusFormat> corpusFormatFromName(std::string_view name) noexcept;

/// The format of an input judged from what it is: a folder is brat; a file whose first non-blank
/// line starts with '<' is BioC XML (gzip is looked through); one that starts with '{' is BigBio
/// when it is named .jsonl (.jsonl.gz) or its first line is an object with "passages" and
/// "entities" but no "documents" key, else BioC JSON; any other file is PubTator, whose reader
/// then names the line it cannot read. Throws ParseError (line 0) when the path does not
/// exist or cannot be read.
CorpusFormat detectCorpusFormat(const std::filesystem::path& path);

}  // namespace linkscope
