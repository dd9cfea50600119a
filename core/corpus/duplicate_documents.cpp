#include "corpus/duplicate_documents.h"

#include <utility>

namespace linkscope {

bool addKeepingFirstCopy(Corpus& corpus, Document document, const DescribeDifference& describeDifference) {
    const Document* kept = corpus.find(document.pmid());
    if (!kept) {
        corpus.add(std::move(document));
        return true;
    }
    DuplicateDocument duplicate{document.pmid(),     kept->sourceFile,    kept->sourceLine,
                                document.sourceFile, document.sourceLine, sameContent(*kept, document)};
    const std::string difference = duplicate.identical  ? std::string("the copies are identical")
                                   : describeDifference ? describeDifference(*kept, document)
                                                        : std::string("the copies differ");
    corpus.diagnostics.push_back(Diagnostic{document.sourceFile, document.sourceLine,
                                            "document " + document.pmid() + " appears again (first at " +
                                                kept->sourceFile + ":" + std::to_string(kept->sourceLine) + "); " +
                                                difference + "; the first copy is kept"});
    corpus.duplicates.push_back(std::move(duplicate));
    return false;
}

}  // namespace linkscope
