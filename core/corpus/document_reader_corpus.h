#pragma once
// A whole corpus from a reader that gives one document at a time (BioCJsonDocumentReader,
// BigBioDocumentReader): named after the file, a PMID read a second time kept once (the first
// copy, duplicate_documents.h), and what the reader left out reported as its diagnostics.
#include <filesystem>
#include <string>
#include <utility>

#include "corpus/corpus.h"
#include "corpus/duplicate_documents.h"

namespace linkscope {

/// The file name without its extensions: "train.bioc.json.gz" -> "train.bioc" (".gz" and one more).
inline std::string corpusNameOf(const std::filesystem::path& path) {
    auto name = path.filename();
    if (name.extension() == ".gz") name = name.stem();
    return name.stem().string();
}

/// Reader: constructed from the path; next() gives std::optional<Document>; diagnostics().
template <typename Reader>
Corpus readAllDocuments(const std::filesystem::path& path) {
    Corpus corpus(corpusNameOf(path));
    corpus.sourceFiles.push_back(path.string());
    Reader reader(path);
    while (auto document = reader.next()) addKeepingFirstCopy(corpus, std::move(*document));
    for (auto& diagnostic : reader.diagnostics()) corpus.diagnostics.push_back(std::move(diagnostic));
    return corpus;
}

}  // namespace linkscope
