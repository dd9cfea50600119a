// sparse_dump: Linkscope's TF-IDF model of a list of names, as JSON, for comparison with
// scikit-learn (benchmarks/sklearn_tfidf_check.py runs both and compares them term by term).
//
//   sparse_dump [--analyzer char|word] [--ngrams MIN-MAX] [--stop-words] [--no-lowercase]
//               [--norm l1|l2|none] [--no-idf] [--no-smooth] [--sublinear]
//               [--json] NAMES_FILE [QUERIES_FILE]
// Its output is always JSON; --json is accepted, as every benchmark takes it, and changes nothing.
// Fits on the lines of NAMES_FILE (one document per line) and writes to standard output
//   {"settings": "...", "vocabulary": [terms in order], "idf": [...],
//    "rows": [[[term id, weight], ...] per name], "queries": [[[term id, weight], ...] per query],
//    "analyzed": [[terms of each query, with repetitions]]}
#include <cstdio>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "retrieval/tfidf.h"
#include "util/error.h"
#include "util/line_reader.h"

namespace {

using namespace linkscope;
using namespace linkscope::retrieval;

std::vector<std::string> readLines(const char* file) {
    std::vector<std::string> lines;
    LineReader reader(file);
    std::string line;
    while (reader.next(line)) lines.push_back(line);
    return lines;
}

nlohmann::json rowJson(std::span<const std::uint32_t> terms, std::span<const float> weights) {
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t i = 0; i < terms.size(); ++i) row.push_back({terms[i], weights[i]});
    return row;
}

int usage() {
    std::cerr
        << "usage: sparse_dump [--analyzer char|word] [--ngrams MIN-MAX] [--stop-words] [--no-lowercase]\n"
           "                   [--norm l1|l2|none] [--no-idf] [--no-smooth] [--sublinear] [--json] NAMES [QUERIES]\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    TfidfSettings settings;
    std::vector<const char*> files;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--analyzer" && hasValue) {
            const std::string_view value = argv[++i];
            if (value != "char" && value != "word") return usage();
            settings.analyzer = value == "char" ? Analyzer::Char : Analyzer::Word;
        } else if (arg == "--ngrams" && hasValue) {
            if (std::sscanf(argv[++i], "%u-%u", &settings.minN, &settings.maxN) != 2) return usage();
        } else if (arg == "--stop-words")
            settings.englishStopWords = true;
        else if (arg == "--no-lowercase")
            settings.lowercase = false;
        else if (arg == "--norm" && hasValue) {
            const std::string_view value = argv[++i];
            if (value == "l1")
                settings.norm = Norm::L1;
            else if (value == "l2")
                settings.norm = Norm::L2;
            else if (value == "none")
                settings.norm = Norm::None;
            else
                return usage();
        } else if (arg == "--no-idf")
            settings.useIdf = false;
        else if (arg == "--no-smooth")
            settings.smoothIdf = false;
        else if (arg == "--sublinear")
            settings.sublinearTf = true;
        else if (arg == "--json")
            continue;
        else if (!arg.starts_with("--"))
            files.push_back(argv[i]);
        else
            return usage();
    }
    if (files.empty() || files.size() > 2) return usage();
    try {
        const auto names = readLines(files[0]);
        const auto queries = files.size() > 1 ? readLines(files[1]) : std::vector<std::string>{};
        const std::vector<std::string_view> documents(names.begin(), names.end());
        TfidfVectorizer model(settings);
        const SparseRows rows = model.fitTransform(documents);
        nlohmann::json out;
        out["settings"] = settings.describe();
        out["vocabulary"] = nlohmann::json::array();
        for (std::uint32_t t = 0; t < model.vocabularySize(); ++t)
            out["vocabulary"].push_back(std::string(model.term(t)));
        out["idf"] = std::vector<double>(model.idfs().begin(), model.idfs().end());
        out["rows"] = nlohmann::json::array();
        for (std::size_t r = 0; r < rows.rows(); ++r)
            out["rows"].push_back(rowJson(rows.rowTerms(r), rows.rowWeights(r)));
        out["queries"] = nlohmann::json::array();
        out["analyzed"] = nlohmann::json::array();
        for (const auto& query : queries) {
            const SparseVector vector = model.transform(query);
            nlohmann::json row = nlohmann::json::array();
            for (const auto& term : vector) row.push_back({term.term, term.weight});
            out["queries"].push_back(row);
            out["analyzed"].push_back(analyzeTerms(settings, query));
        }
        std::cout << out.dump() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "sparse_dump: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
