#include "curation/training_datastore.h"

#include <algorithm>

#include "train/method_linker.h"
#include "util/error.h"

namespace linkscope::curation {

std::vector<std::string> keyIds(const eval::EvalQuery& query) {
    return query.parts.size() == 1 ? query.goldIds : std::vector<std::string>{};
}

retrieval::KnnDatastore buildTrainingDatastore(
    const train::MethodLinker& model, std::span<const eval::EvalQuery> queries,
    const std::function<std::string(const eval::EvalQuery&, std::size_t)>& input, std::string encoderFingerprint,
    const ProgressSink* progress, TrainingDatastoreStatistics* statistics) {
    retrieval::KnnDatastore store(model.dimension(), std::move(encoderFingerprint));
    TrainingDatastoreStatistics counted;
    // Encoded in chunks: progress and cancellation between them, bounded memory.
    constexpr std::size_t kChunk = 1024;
    std::vector<std::string> inputs, texts;
    std::vector<std::vector<std::string>> idLists;
    const auto flush = [&] {
        if (inputs.empty()) return;
        const auto vectors = model.encodeMentions(inputs);
        const std::size_t dimension = model.dimension();
        for (std::size_t i = 0; i < inputs.size(); ++i)
            for (const auto& id : idLists[i]) {
                store.add(std::span<const float>(vectors).subspan(i * dimension, dimension), id,
                          retrieval::KeyOrigin::Training, texts[i]);
                ++counted.keys;
            }
        inputs.clear();
        texts.clear();
        idLists.clear();
    };
    for (std::size_t q = 0; q < queries.size(); ++q) {
        const auto& query = queries[q];
        ++counted.mentions;
        auto ids = keyIds(query);
        if (ids.empty()) {
            counted.compositesLeftOut += query.parts.size() > 1 ? 1 : 0;
            continue;
        }
        inputs.push_back(input(query, 0));
        texts.push_back(query.parts.front());
        idLists.push_back(std::move(ids));
        if (inputs.size() >= kChunk) {
            if (progress) progress->checkCancelled();
            flush();
            if (progress)
                (*progress)("Encoding training mentions",
                            static_cast<double>(q + 1) / static_cast<double>(queries.size()));
        }
    }
    flush();
    if (statistics) *statistics = counted;
    return store;
}

}  // namespace linkscope::curation
