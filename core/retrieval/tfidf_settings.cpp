#include "retrieval/tfidf_settings.h"

#include "util/error.h"

namespace linkscope::retrieval {

namespace {

TfidfSettings withTerms(Analyzer analyzer, unsigned minN, unsigned maxN, bool englishStopWords) {
    TfidfSettings settings;  // scikit-learn's default weighting
    settings.analyzer = analyzer;
    settings.minN = minN;
    settings.maxN = maxN;
    settings.englishStopWords = englishStopWords;
    return settings;
}

}  // namespace

TfidfSettings TfidfSettings::bioSyn() { return withTerms(Analyzer::Char, 1, 2, false); }

TfidfSettings TfidfSettings::leNguyenChars() { return withTerms(Analyzer::Char, 2, 5, false); }

TfidfSettings TfidfSettings::leNguyenWords() { return withTerms(Analyzer::Word, 1, 1, true); }

void TfidfSettings::validate() const {
    if (minN == 0) throw Error("TF-IDF n-gram range must start at 1 or more, not 0");
    if (minN > maxN)
        throw Error("TF-IDF n-gram range " + std::to_string(minN) + "-" + std::to_string(maxN) + " is empty");
    if (maxN > 64) throw Error("TF-IDF n-gram order " + std::to_string(maxN) + " is above the supported 64");
}

std::string TfidfSettings::describe() const {
    std::string text = analyzer == Analyzer::Char ? "char " : "word ";
    text += std::to_string(minN) + "-" + std::to_string(maxN);
    if (lowercase) text += ", lowercase";
    if (analyzer == Analyzer::Word && englishStopWords) text += ", English stop words removed";
    text += norm == Norm::L2 ? ", l2" : norm == Norm::L1 ? ", l1" : ", no norm";
    if (!useIdf)
        text += ", no idf";
    else
        text += smoothIdf ? ", smooth idf" : ", plain idf";
    if (sublinearTf) text += ", sublinear tf";
    return text;
}

}  // namespace linkscope::retrieval
