#pragma once
// Writing documents back in PubTator format. What the reader kept for the purpose (id columns
// as written, BC5CDR's empty 7th column, blank lines around the documents) is reproduced, so
// reading a real file and writing it gives the same bytes, duplicates aside.
#include <filesystem>
#include <string>

#include "corpus/corpus.h"

namespace linkscope {

/// Appends the lines of one document (title, abstract, mentions, relations), each ending in
/// "\n", without the blank separator line. Throws Error when a field cannot be written in the
/// format (a line break in a title, a tab in a mention text, a '|' in an individual mention).
void appendPubTator(std::string& out, const Document& document);
std::string formatPubTator(const Document& document);

/// The whole file: Corpus::layout's leading blank lines, documents separated by one blank
/// line, then the trailing blank lines.
std::string formatPubTator(const Corpus& corpus);

/// Writes the corpus through AtomicFileWriter (the target is replaced only when all is
/// written); throws Error on failure.
void writePubTator(const Corpus& corpus, const std::filesystem::path& path);

}  // namespace linkscope
