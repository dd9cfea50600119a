#include "train/method_linker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "corpus/corpus.h"
#include "encoder/text_encoder.h"
#include "kb/knowledge_base.h"
#include "retrieval/candidate_merge.h"
#include "retrieval/dense_index.h"
#include "retrieval/hybrid_ranker.h"
#include "retrieval/sparse_index.h"
#include "retrieval/tfidf_settings.h"
#include "train/method_inputs.h"
#include "util/error.h"

namespace linkscope::train {

namespace {

using retrieval::Candidate;

float dot(std::span<const float> a, std::span<const float> b) noexcept {
    float sum = 0.0f;
    for (std::size_t d = 0; d < a.size(); ++d) sum += a[d] * b[d];
    return sum;
}

float distance(std::span<const float> a, std::span<const float> b) noexcept {
    float sum = 0.0f;
    for (std::size_t d = 0; d < a.size(); ++d) {
        const float difference = a[d] - b[d];
        sum += difference * difference;
    }
    return std::sqrt(sum);
}

// L2-normalizes every row in place; a zero row stays zero (its cosine with anything is 0).
void normalizeRows(std::span<float> rows, std::size_t dimension) noexcept {
    for (std::size_t start = 0; start + dimension <= rows.size(); start += dimension) {
        const auto row = rows.subspan(start, dimension);
        const float norm = std::sqrt(dot(row, row));
        if (norm > 0.0f)
            for (float& x : row) x /= norm;
    }
}

// The score of a mention vector against a candidate vector: the inner product, the cosine, or
// the negated Euclidean distance, so that higher is better for all three.
float similarity(Similarity kind, std::span<const float> mention, std::span<const float> candidate) noexcept {
    switch (kind) {
        case Similarity::Dot:
            return dot(mention, candidate);
        case Similarity::Euclidean:
            return -distance(mention, candidate);
        case Similarity::Cosine:
            break;
    }
    const float norms = std::sqrt(dot(mention, mention)) * std::sqrt(dot(candidate, candidate));
    return norms > 0.0f ? std::clamp(dot(mention, candidate) / norms, -1.0f, 1.0f) : 0.0f;
}

bool better(const LinkedCandidate& a, const LinkedCandidate& b) noexcept {
    return a.score != b.score ? a.score > b.score : a.entry < b.entry;
}

std::string quotedText(std::string_view text) {
    // Long context inputs are cut in messages; the start names the input well enough.
    constexpr std::size_t kShown = 120;
    return "\"" + std::string(text.substr(0, kShown)) + (text.size() > kShown ? "...\"" : "\"");
}

// The similarity the dense index searches with: the first stage of prototype-srn compares
// names by cosine, as Le & Nguyen's SapBERT retrieval does; the other methods search with the
// similarity they are scored by.
Similarity searchSimilarity(const TrainingPreset& preset) noexcept {
    return preset.method == Method::PrototypeSrn ? Similarity::Cosine : preset.similarity;
}

// Whether the method ranks the dictionary's name vectors at all: prototype-srn with a sparse
// first stage compares mentions with entity inputs only.
bool searchesNameVectors(const TrainingPreset& preset) noexcept {
    return preset.method != Method::PrototypeSrn || preset.prototype.candidateSource != CandidateSource::Sparse;
}

}  // namespace

struct MethodLinker::State {
    TrainingPreset preset;
    const encoder::TextEncoder* encoder = nullptr;
    const retrieval::NameDictionary* dictionary = nullptr;
    const kb::KnowledgeBase* kb = nullptr;
    float sparseWeight = 0.0f;
    unsigned threads = 0;
    std::size_t dimension = 0;

    std::vector<float> entryVectors;  ///< as encoded or given (empty when the method has no use for them)
    /// What the dense index holds when it is not entryVectors itself: normalized rows for
    /// cosine; rows with -||e||^2 / 2 appended for Euclidean, so that the inner product with
    /// [m, 1] orders the names as -||m - e|| does (the scores are then recomputed exactly).
    std::vector<float> searchRows;
    std::optional<retrieval::DenseIndex> dense;
    std::optional<retrieval::SparseIndex> sparse;       ///< biosyn: char 1-2; prototype-srn: char 2-5
    std::optional<retrieval::SparseIndex> sparseWords;  ///< prototype-srn: words without stop words
    std::optional<retrieval::HybridRanker> hybrid;

    // prototype-srn: the entities each entry names, and the entity inputs' vectors as computed.
    std::vector<std::vector<kb::EntityIndex>> entryEntities;
    mutable std::mutex entityMutex;
    mutable std::unordered_map<kb::EntityIndex, std::vector<float>> entityVectors;

    /// The name vectors live only in `dense` (an IVF-fp16 index): LinkerOptions::compactAbove.
    bool compact = false;

    std::span<const float> rowsSearched() const noexcept {
        return searchRows.empty() ? std::span<const float>(entryVectors) : std::span<const float>(searchRows);
    }
    std::size_t searchedDimension() const noexcept {
        return searchSimilarity(preset) == Similarity::Euclidean ? dimension + 1 : dimension;
    }

    /// Encoded name vectors as the dense index holds them: normalized rows for cosine; rows with
    /// -||e||^2 / 2 appended for Euclidean; as they are for dot. Empty: `vectors` itself is searched.
    std::vector<float> searchable(std::span<const float> vectors) const {
        std::vector<float> rows;
        const Similarity kind = searchSimilarity(preset);
        if (kind == Similarity::Cosine) {
            rows.assign(vectors.begin(), vectors.end());
            normalizeRows(rows, dimension);
        } else if (kind == Similarity::Euclidean) {
            rows.reserve(vectors.size() / dimension * (dimension + 1));
            for (std::size_t start = 0; start < vectors.size(); start += dimension) {
                const auto row = vectors.subspan(start, dimension);
                rows.insert(rows.end(), row.begin(), row.end());
                rows.push_back(-0.5f * dot(row, row));
            }
        }
        return rows;
    }

    /// A name's row as the index searches it: in `searchRows`/`entryVectors`, or decoded from the
    /// compact index into `scratch`.
    std::span<const float> searchedRow(std::uint32_t entry, std::vector<float>& scratch) const {
        const std::size_t width = searchedDimension();
        if (!compact) return rowsSearched().subspan(std::size_t{entry} * width, width);
        scratch.resize(width);
        dense->row(entry, scratch);
        return scratch;
    }
    /// A name's vector as the similarity compares it: the encoded row, or (compact) the row as
    /// searched without the Euclidean extra value. A compact cosine row is the normalized one,
    /// which the cosine does not tell from the encoded one.
    std::span<const float> entryRow(std::uint32_t entry, std::vector<float>& scratch) const {
        if (!compact) return std::span<const float>(entryVectors).subspan(std::size_t{entry} * dimension, dimension);
        return searchedRow(entry, scratch).first(dimension);
    }

    void buildDenseIndex(const LinkerOptions& options) {
        searchRows = searchable(entryVectors);
        retrieval::DenseIndexOptions indexOptions;
        indexOptions.threads = options.threads;
        dense = retrieval::DenseIndex::build(rowsSearched(), searchedDimension(), "method linker", indexOptions);
    }

    /// LinkerOptions::compactAbove: the names encoded chunk by chunk straight into an IVF-fp16
    /// index, its training sample first (those names are encoded twice: 64 per list, about 2 %
    /// of 8 M names). Progress "Encoding names" over both passes.
    void buildCompactIndex(std::span<const std::string> names, const LinkerOptions& options,
                           const ProgressSink* progress) {
        constexpr std::size_t kChunk = 65536;
        retrieval::DenseIndexOptions indexOptions;
        indexOptions.kind = retrieval::DenseIndexKind::IvfFp16;
        indexOptions.threads = options.threads;
        indexOptions.ivfProbes = options.compactProbes;
        retrieval::DenseIndexBuilder builder(searchedDimension(), names.size(), "method linker", indexOptions);
        const auto& sampleRows = builder.trainingRows();
        const double total = static_cast<double>(sampleRows.size() + names.size());
        double done = 0.0;
        // Encodes texts with progress as a part of the whole, and returns them as searched.
        const auto encodeSearchable = [&](std::span<const std::string> texts) {
            ProgressSink part;
            if (progress) {
                part.report = [progress, done, count = double(texts.size()), total](std::string_view, double fraction) {
                    (*progress)("Encoding names", (done + fraction * count) / total);
                };
                part.cancelled = progress->cancelled;
                progress->checkCancelled();
            }
            std::vector<float> vectors = encodeNames(texts, progress ? &part : nullptr);
            done += static_cast<double>(texts.size());
            std::vector<float> rows = searchable(vectors);
            return rows.empty() ? vectors : rows;
        };
        if (!sampleRows.empty()) {
            std::vector<std::string> sample;
            sample.reserve(sampleRows.size());
            for (const std::size_t row : sampleRows) sample.push_back(names[row]);
            builder.train(encodeSearchable(sample));
        }
        for (std::size_t first = 0; first < names.size(); first += kChunk)
            builder.add(encodeSearchable(names.subspan(first, std::min(kChunk, names.size() - first))));
        dense = builder.finish();
        compact = true;
    }

    /// The k best entries by the search similarity for raw query vectors (as encoded).
    std::vector<std::vector<LinkedCandidate>> denseSearch(std::vector<float> queries, std::size_t k) const {
        const Similarity kind = searchSimilarity(preset);
        const std::size_t count = queries.size() / dimension;
        std::vector<float> searched;
        if (kind == Similarity::Cosine) {
            normalizeRows(queries, dimension);
        } else if (kind == Similarity::Euclidean) {
            searched.reserve(count * (dimension + 1));
            for (std::size_t q = 0; q < count; ++q) {
                const auto row = std::span<const float>(queries).subspan(q * dimension, dimension);
                searched.insert(searched.end(), row.begin(), row.end());
                searched.push_back(1.0f);
            }
        }
        const auto found = dense->search(searched.empty() ? std::span<const float>(queries) : searched, k);
        std::vector<std::vector<LinkedCandidate>> ranked(count);
        for (std::size_t q = 0; q < count; ++q) {
            const auto query = std::span<const float>(queries).subspan(q * dimension, dimension);
            std::vector<float> scratch;
            for (const Candidate& candidate : found[q]) {
                float score = candidate.score;
                if (kind == Similarity::Euclidean)
                    score = -distance(query, entryRow(candidate.entry, scratch));
                else if (kind == Similarity::Cosine)
                    score = std::clamp(score, -1.0f, 1.0f);
                ranked[q].push_back({candidate.entry, score, score, 0.0f});
            }
            // The distances recomputed exactly may reorder near-ties of the shifted inner product.
            if (kind == Similarity::Euclidean) std::sort(ranked[q].begin(), ranked[q].end(), better);
        }
        return ranked;
    }

    /// Mention inputs as the method encodes them: the model's pooling, preset.maxLength
    /// tokens, raw vectors (the similarity normalizes what it compares, whatever the encoder's
    /// own options say).
    std::vector<float> encodeMentions(std::span<const std::string> texts) const {
        return encoder->encode(
            texts, encoder::EncodeRequest{.maxLength = preset.maxLength, .pooling = {}, .normalize = false});
    }
    /// nameInput() of a dictionary name, shortened when the markers would not fit: a name of
    /// more than entityMaxLength tokens would lose its closing marker to the encoder's
    /// truncation, and marker pooling cannot pool without it. Words are dropped from its end
    /// (its head words, which come first in most disease names, stay) until it fits; a single
    /// word too long to fit is left for the encoder to report.
    std::string fittedNameInput(std::string_view name) const {
        return train::fittedNameInput(name, preset.nameMarkers(), preset.entityMaxLength,
                                      tokenCounterOf(encoder->tokenizer()));
    }

    /// KB names (nameInput) as the method encodes them: entityMaxLength tokens.
    std::vector<float> encodeNames(std::span<const std::string> texts, const ProgressSink* progress = nullptr) const {
        return encoder->encode(
            texts,
            encoder::EncodeRequest{
                .maxLength = preset.entityMaxLength, .pooling = preset.namePooling(), .normalize = false},
            progress);
    }
    /// Le & Nguyen's entity representation is the [CLS] output of "type [SEP] syn1 [SEP] ..."
    /// (section 3.2.1), while the mention's is the pooling of the model (the average of the
    /// [START] and [END] outputs).
    std::vector<float> encodeEntities(std::span<const std::string> texts) const {
        return encoder->encode(
            texts, encoder::EncodeRequest{
                       .maxLength = preset.entityMaxLength, .pooling = encoder::Pooling::Cls, .normalize = false});
    }

    /// Makes sure the vectors of these entities are cached (computed once per entity).
    void cacheEntityVectors(const std::vector<kb::EntityIndex>& needed) const {
        std::vector<kb::EntityIndex> missing;
        for (const auto entity : needed)
            if (!entityVectors.contains(entity)) missing.push_back(entity);
        std::sort(missing.begin(), missing.end());
        missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
        if (missing.empty()) return;
        std::vector<std::string> texts;
        texts.reserve(missing.size());
        for (const auto entity : missing) texts.push_back(entityInput(*kb, entity, preset.prototype.maxSynonyms));
        const auto vectors = encodeEntities(texts);
        for (std::size_t i = 0; i < missing.size(); ++i) {
            const auto row = std::span<const float>(vectors).subspan(i * dimension, dimension);
            entityVectors.emplace(missing[i], std::vector<float>(row.begin(), row.end()));
        }
    }

    std::vector<std::vector<Candidate>> firstStage(std::span<const std::string> insides, std::size_t depth) const {
        const CandidateSource source = preset.prototype.candidateSource;
        std::vector<std::vector<Candidate>> sparseLists(insides.size()), denseLists(insides.size());
        if (source != CandidateSource::Dense) {
            const auto byChars = sparse->search(insides, depth, threads);
            const auto byWords = sparseWords->search(insides, depth, threads);
            for (std::size_t i = 0; i < insides.size(); ++i) {
                const std::vector<Candidate> lists[] = {byChars[i], byWords[i]};
                sparseLists[i] = retrieval::mergeCandidates(lists, depth);
            }
            if (source == CandidateSource::Sparse) return sparseLists;
        }
        // Dense first stage: the mention alone between its markers, compared with the names as
        // the names are encoded ("[START] name [END]"), by cosine.
        std::vector<std::string> texts;
        texts.reserve(insides.size());
        for (const auto& inside : insides) texts.push_back(fittedNameInput(inside));
        const auto found = denseSearch(encodeNames(texts), depth);
        for (std::size_t i = 0; i < insides.size(); ++i)
            for (const auto& candidate : found[i]) denseLists[i].push_back({candidate.entry, candidate.score});
        if (source == CandidateSource::Dense) return denseLists;
        std::vector<std::vector<Candidate>> merged(insides.size());
        for (std::size_t i = 0; i < insides.size(); ++i) {
            const std::vector<Candidate> lists[] = {sparseLists[i], denseLists[i]};
            merged[i] = retrieval::mergeCandidates(lists, depth);
        }
        return merged;
    }

    std::vector<std::vector<LinkedCandidate>> rankPrototype(std::span<const std::string> insides,
                                                            std::vector<float> mentions, std::size_t k) const {
        const std::size_t count = insides.size();
        // k entities from the first stage (the paper's 64), read from k * 8 ranked entries.
        const std::size_t wanted = std::max<std::size_t>(preset.prototype.candidates, 1);
        const auto stage = firstStage(insides, wanted * kFirstStageEntriesPerEntity);
        const bool sparseScores = preset.prototype.candidateSource == CandidateSource::Sparse;

        // One representative per entity: the entry of the first stage that named it first.
        struct Representative {
            kb::EntityIndex entity;
            Candidate entry;
        };
        std::vector<std::vector<Representative>> representatives(count);
        std::vector<kb::EntityIndex> needed;
        for (std::size_t q = 0; q < count; ++q) {
            std::unordered_set<kb::EntityIndex> seen;
            for (const Candidate& candidate : stage[q])
                for (const auto entity : entryEntities[candidate.entry])
                    if (representatives[q].size() < wanted && seen.insert(entity).second) {
                        representatives[q].push_back({entity, candidate});
                        needed.push_back(entity);
                    }
        }

        const std::lock_guard lock(entityMutex);
        cacheEntityVectors(needed);
        // The paper ranks by the re-ranker alone (firstStageWeight 0); a weight keeps what the
        // first stage knew, e.g. for a re-ranker trained briefly from a names-only start.
        const auto firstStageWeight = static_cast<float>(preset.prototype.firstStageWeight);
        std::vector<std::vector<LinkedCandidate>> ranked(count);
        for (std::size_t q = 0; q < count; ++q) {
            const auto mention = std::span<const float>(mentions).subspan(q * dimension, dimension);
            std::vector<LinkedCandidate> scored;
            for (const auto& [entity, candidate] : representatives[q]) {
                const float score = similarity(preset.similarity, mention, entityVectors.at(entity));
                scored.push_back({candidate.entry, score + firstStageWeight * candidate.score, score,
                                  sparseScores ? candidate.score : 0.0f});
            }
            std::sort(scored.begin(), scored.end(), better);
            // An entry naming several entities stands at the rank of the best of them.
            std::unordered_set<std::uint32_t> listed;
            for (const auto& candidate : scored) {
                if (ranked[q].size() == k) break;
                if (listed.insert(candidate.entry).second) ranked[q].push_back(candidate);
            }
        }
        return ranked;
    }

    /// The text between the markers of each input: what BioSyn's sparse score and Le & Nguyen's
    /// first stage read. A context input without its markers is refused here, naming it, before
    /// the encoder would refuse it by position only.
    std::vector<std::string> insidesOf(std::span<const std::string> inputs) const {
        std::vector<std::string> insides;
        insides.reserve(inputs.size());
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const auto inside = mentionInsideMarkers(inputs[i], preset.markers);
            if (!inside) {
                const auto [open, close] = markerTokens(preset.markers);
                throw Error("method linker (" + std::string(methodName(preset.method)) + "): mention input " +
                            std::to_string(i) + " " + quotedText(inputs[i]) + " lacks the markers " +
                            std::string(open) + " ... " + std::string(close));
            }
            insides.emplace_back(*inside);
        }
        return insides;
    }

    void checkVectors(std::span<const std::string> inputs, std::span<const float> vectors) const {
        if (vectors.size() != inputs.size() * dimension)
            throw Error("method linker (" + std::string(methodName(preset.method)) +
                        "): " + std::to_string(vectors.size()) + " mention vector values given for " +
                        std::to_string(inputs.size()) + " inputs of " + std::to_string(dimension) + " dimensions");
    }

    /// vectors: the inputs' encodings (encodeMentions) when the caller has them, else empty.
    std::vector<std::vector<LinkedCandidate>> rank(std::span<const std::string> inputs, std::vector<float> vectors,
                                                   std::size_t k) const {
        if (inputs.empty()) return {};
        if (k == 0) return std::vector<std::vector<LinkedCandidate>>(inputs.size());
        const std::vector<std::string> insides = insidesOf(inputs);
        if (vectors.empty())
            vectors = encodeMentions(inputs);
        else
            checkVectors(inputs, vectors);

        switch (preset.method) {
            case Method::BioSyn: {
                if (preset.similarity == Similarity::Cosine) normalizeRows(vectors, dimension);
                const auto ranked = hybrid->rank(insides, vectors, k, threads);
                std::vector<std::vector<LinkedCandidate>> out(ranked.size());
                for (std::size_t q = 0; q < ranked.size(); ++q)
                    for (const auto& c : ranked[q]) out[q].push_back({c.entry, c.score, c.dense, c.sparse});
                return out;
            }
            case Method::PrototypeSrn:
                return rankPrototype(insides, std::move(vectors), k);
            case Method::Belhd:
            case Method::Triplet:
            case Method::KnnBioel:
            case Method::SelfAlignment:
            case Method::ContextAlignment:
            case Method::MaskedLm:
                break;
        }
        return denseSearch(std::move(vectors), k);
    }

    /// The exact score of chosen entries for one input, as rank() would give it.
    std::vector<LinkedCandidate> score(const std::string& input, std::span<const float> vector,
                                       std::span<const std::uint32_t> entries) const {
        const std::string inside = insidesOf(std::span<const std::string>(&input, 1)).front();
        std::vector<LinkedCandidate> scored;
        scored.reserve(entries.size());
        for (const std::uint32_t entry : entries)
            if (entry >= dictionary->size())
                throw Error("method linker: entry " + std::to_string(entry) + " is outside the dictionary of " +
                            std::to_string(dictionary->size()));
        switch (preset.method) {
            case Method::BioSyn: {
                std::vector<float> query(vector.begin(), vector.end());
                if (preset.similarity == Similarity::Cosine) normalizeRows(query, dimension);
                const auto sparseQuery = sparse->vectorizer().transform(inside);
                for (const std::uint32_t entry : entries) {
                    const auto c = hybrid->score(sparseQuery, query, entry);
                    scored.push_back({entry, c.score, c.dense, c.sparse});
                }
                return scored;
            }
            case Method::PrototypeSrn: {
                // The re-ranker's score: the entry's best entity, as rankPrototype keeps it.
                std::vector<kb::EntityIndex> needed;
                for (const std::uint32_t entry : entries)
                    needed.insert(needed.end(), entryEntities[entry].begin(), entryEntities[entry].end());
                const std::lock_guard lock(entityMutex);
                cacheEntityVectors(needed);
                for (const std::uint32_t entry : entries) {
                    float best = -std::numeric_limits<float>::infinity();
                    for (const auto entity : entryEntities[entry])
                        best = std::max(best, similarity(preset.similarity, vector, entityVectors.at(entity)));
                    scored.push_back({entry, best, best, 0.0f});
                }
                return scored;
            }
            case Method::Belhd:
            case Method::Triplet:
            case Method::KnnBioel:
            case Method::SelfAlignment:
            case Method::ContextAlignment:
            case Method::MaskedLm:
                break;
        }
        std::vector<float> scratch;
        for (const std::uint32_t entry : entries) {
            const float s = similarity(preset.similarity, vector, entryRow(entry, scratch));
            scored.push_back({entry, s, s, 0.0f});
        }
        return scored;
    }
};

MethodLinker::MethodLinker(const TrainingPreset& preset, const encoder::TextEncoder& encoder,
                           const retrieval::NameDictionary& dictionary, const kb::KnowledgeBase* kb,
                           LinkerOptions options, const ProgressSink* progress)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.preset = preset;
    s.encoder = &encoder;
    s.dictionary = &dictionary;
    s.kb = kb;
    s.sparseWeight = static_cast<float>(options.sparseWeight);
    s.threads = static_cast<unsigned>(options.threads);
    s.dimension = encoder.dimension();
    const std::string method(methodName(preset.method));

    if (dictionary.empty()) throw Error("method linker (" + method + "): the dictionary is empty");
    if (preset.method == Method::BioSyn && preset.similarity == Similarity::Euclidean)
        throw Error(
            "method linker (biosyn): BioSyn's score adds lambda x sparse to an inner product; similarity "
            "\"euclidean\" has no such sum (use dot or cosine)");
    if (preset.method == Method::PrototypeSrn) {
        if (!kb) throw Error("method linker (prototype-srn): the entity inputs need the knowledge base");
        s.entryEntities.resize(dictionary.size());
        for (std::size_t e = 0; e < dictionary.size(); ++e) {
            for (const auto& id : dictionary[e].ids)
                if (const auto entity = kb->findEntity(id)) s.entryEntities[e].push_back(*entity);
            // An entry without an entity could never be re-ranked: say so rather than drop it.
            if (s.entryEntities[e].empty())
                throw Error("method linker (prototype-srn): dictionary entry " + std::to_string(e) + " " +
                            quotedText(dictionary[e].name) + " names no entity of the knowledge base");
        }
    }

    if (searchesNameVectors(preset)) {
        if (!options.entryVectors.empty()) {
            if (options.entryVectors.size() != dictionary.size() * s.dimension)
                throw Error("method linker (" + method + "): " + std::to_string(options.entryVectors.size()) +
                            " entry vector values given for " + std::to_string(dictionary.size()) + " entries of " +
                            std::to_string(s.dimension) + " dimensions");
            s.entryVectors = std::move(options.entryVectors);
            s.buildDenseIndex(options);
        } else {
            std::vector<std::string> names;
            names.reserve(dictionary.size());
            for (const auto& entry : dictionary) names.push_back(s.fittedNameInput(entry.name));
            if (dictionary.size() > options.compactAbove) {
                s.buildCompactIndex(names, options, progress);
            } else {
                ProgressSink encoding;
                if (progress) {
                    encoding.report = [progress](std::string_view, double fraction) {
                        (*progress)("Encoding names", fraction);
                    };
                    encoding.cancelled = progress->cancelled;
                }
                s.entryVectors = s.encodeNames(names, progress ? &encoding : nullptr);
                s.buildDenseIndex(options);
            }
        }
    }

    if (preset.method == Method::BioSyn) {
        s.sparse = retrieval::SparseIndex::build(dictionary, retrieval::TfidfSettings::bioSyn());
        const retrieval::DenseIndex* index = &*s.dense;
        const State* state = &s;  // owned by state_, which moves with the linker
        s.hybrid.emplace(
            dictionary, *s.sparse,
            [state](std::uint32_t entry, std::vector<float>& scratch) { return state->searchedRow(entry, scratch); },
            s.dimension, [index](std::span<const float> queries, std::size_t k) { return index->search(queries, k); },
            s.sparseWeight);
    } else if (preset.method == Method::PrototypeSrn && preset.prototype.candidateSource != CandidateSource::Dense) {
        s.sparse = retrieval::SparseIndex::build(dictionary, retrieval::TfidfSettings::leNguyenChars());
        s.sparseWords = retrieval::SparseIndex::build(dictionary, retrieval::TfidfSettings::leNguyenWords());
    }
}

MethodLinker::MethodLinker(MethodLinker&&) noexcept = default;
MethodLinker& MethodLinker::operator=(MethodLinker&&) noexcept = default;
MethodLinker::~MethodLinker() = default;

std::vector<std::vector<LinkedCandidate>> MethodLinker::rank(std::span<const std::string> inputs, std::size_t k) const {
    return state_->rank(inputs, {}, k);
}

std::vector<std::vector<LinkedCandidate>> MethodLinker::rank(std::span<const std::string> inputs,
                                                             std::span<const float> vectors, std::size_t k) const {
    state_->checkVectors(inputs, vectors);
    return state_->rank(inputs, std::vector<float>(vectors.begin(), vectors.end()), k);
}

std::vector<float> MethodLinker::encodeMentions(std::span<const std::string> inputs) const {
    if (inputs.empty()) return {};
    state_->insidesOf(inputs);  // refuses an input without its markers, naming it
    return state_->encodeMentions(inputs);
}

std::vector<LinkedCandidate> MethodLinker::score(const std::string& input, std::span<const float> vector,
                                                 std::span<const std::uint32_t> entries) const {
    if (vector.size() != state_->dimension)
        throw Error("method linker: a mention vector of " + std::to_string(vector.size()) + " values for a " +
                    std::to_string(state_->dimension) + "-dimensional encoder");
    return state_->score(input, vector, entries);
}

const TrainingPreset& MethodLinker::preset() const noexcept { return state_->preset; }

eval::RankFn MethodLinker::rankFunction() const {
    // The state, not `this`: the function stays valid when the linker is moved.
    const State* state = state_.get();
    return [state](std::span<const std::string> queries, std::size_t k) {
        const auto ranked = state->rank(queries, {}, k);
        std::vector<std::vector<Candidate>> out(ranked.size());
        for (std::size_t q = 0; q < ranked.size(); ++q)
            for (const auto& c : ranked[q]) out[q].push_back({c.entry, c.score});
        return out;
    };
}

std::span<const float> MethodLinker::entryVectors() const noexcept { return state_->entryVectors; }
bool MethodLinker::compactNameVectors() const noexcept { return state_->compact; }
std::size_t MethodLinker::dimension() const noexcept { return state_->dimension; }

std::function<std::string(const eval::EvalQuery&, std::size_t part)> mentionInputs(const TrainingPreset& preset,
                                                                                   const Corpus& corpus,
                                                                                   TokenCounter count) {
    const ContextMarkers markers = preset.markers;
    const std::size_t maxLength = preset.maxLength;
    return [markers, maxLength, &corpus, count = std::move(count)](const eval::EvalQuery& query,
                                                                   std::size_t part) -> std::string {
        if (part >= query.parts.size())
            throw Error("mention inputs: part " + std::to_string(part) + " of the mention " +
                        quotedText(query.mention) + " in document " + query.document + ", which has " +
                        std::to_string(query.parts.size()));
        if (markers == ContextMarkers::None) return query.parts[part];
        const Document* document = corpus.find(query.document);
        if (!document)
            throw Error("mention inputs: the mention " + quotedText(query.mention) +
                        (query.sourceFile.empty()
                             ? std::string()
                             : " (" + query.sourceFile + ":" + std::to_string(query.sourceLine) + ")") +
                        " is in document " + query.document + ", which the corpus does not hold");
        return fittedMentionInput(*document, query.start, query.end, query.parts[part], markers, maxLength, count);
    };
}

}  // namespace linkscope::train
