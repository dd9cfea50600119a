#include "encoder_ranking.h"

#include <chrono>
#include <iostream>
#include <span>
#include <sstream>
#include <vector>

#include "encoder/biosyn_folder.h"
#include "retrieval/tfidf_settings.h"

namespace linkscope::cli {
namespace {

std::vector<std::vector<retrieval::Candidate>> withoutBreakdown(
    const std::vector<std::vector<retrieval::ScoredCandidate>>& ranked) {
    std::vector<std::vector<retrieval::Candidate>> out(ranked.size());
    for (std::size_t i = 0; i < ranked.size(); ++i)
        for (const auto& c : ranked[i]) out[i].push_back({c.entry, c.score});
    return out;
}

}  // namespace

std::string EncoderRanking::describe(const std::filesystem::path& model, const encoder::TextEncoder& encoder) const {
    std::string text = "encoder " + model.string() + " (" + std::string(encoder::poolingName(encoder.pooling())) +
                       " pooling, " + encoder.deviceName() + "), " +
                       std::string(retrieval::denseIndexKindName(dense.index.kind())) + " index";
    if (method == "dense") return text;
    std::ostringstream weight;
    weight << sparseWeight;
    return text + " + " + weight.str() + " x " + sparseDescription;
}

std::unique_ptr<EncoderRanking> prepareEncoderRanking(const std::string& method, const encoder::TextEncoder& encoder,
                                                      const retrieval::NameDictionary& dictionary,
                                                      const DenseIndexArguments& denseArgs,
                                                      const SparseIndexArguments& sparseArgs, float sparseWeight,
                                                      unsigned threads, ConsoleProgress& progress) {
    const auto start = std::chrono::steady_clock::now();
    auto ranking = std::make_unique<EncoderRanking>();
    ranking->method = method;
    ranking->sparseWeight = sparseWeight;
    ranking->dense = prepareDenseDictionary(encoder, dictionary, denseArgs, progress);
    // Mentions are encoded batch by batch inside the ranking: the caller's "Ranking queries" is
    // their progress (a stage of their own would alternate with it on every batch).
    const encoder::TextEncoder* model = &encoder;
    const DenseDictionary* dense = &ranking->dense;
    if (method == "dense") {
        ranking->rank = [model, dense](std::span<const std::string> queries, std::size_t k) {
            return dense->index.search(model->encode(queries), k);
        };
    } else {
        ranking->sparse.emplace(prepareSparseIndex(sparseArgs, dictionary, progress));
        ranking->sparseDescription = sparseArgs.describe(ranking->sparse->index);
        ranking->hybrid.emplace(
            dictionary, ranking->sparse->index, dense->vectors, encoder.dimension(),
            [dense](std::span<const float> queries, std::size_t k) { return dense->index.search(queries, k); },
            sparseWeight);
        const retrieval::HybridRanker* hybrid = &*ranking->hybrid;
        ranking->rank = [model, hybrid, threads](std::span<const std::string> queries, std::size_t k) {
            return withoutBreakdown(hybrid->rank(queries, model->encode(queries), k, threads));
        };
    }
    ranking->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return ranking;
}

float hybridSparseWeight(const std::filesystem::path& model, float weight, bool given) {
    const auto folder = encoder::readBioSynFolder(model);
    if (!folder.sparseEncoderFile.empty())
        std::cerr << "note: " << folder.sparseEncoderFile.string()
                  << " (a pickled scikit-learn vectorizer) is not loaded: unpickling it would run code. The sparse "
                     "index is refit from the dictionary with BioSyn's settings ("
                  << retrieval::TfidfSettings::bioSyn().describe() << ").\n";
    if (!folder.sparseWeight) return weight;
    if (given) {
        std::cerr << "note: --sparse-weight " << weight << " is used, not " << *folder.sparseWeight << " from "
                  << folder.sparseWeightFile.string() << "\n";
        return weight;
    }
    std::cerr << "note: hybrid lambda " << *folder.sparseWeight << " from " << folder.sparseWeightFile.string()
              << " (BioSyn's learned sparse weight)\n";
    return *folder.sparseWeight;
}

}  // namespace linkscope::cli
