// MethodLinker: each method's ranking recomputed by hand from the encoder's vectors on a tiny KB
// (BioSyn's dense + lambda x sparse and its HybridRanker order, BELHD's marked inputs and names,
// cosine methods, Le & Nguyen's two stages with [CLS] entity vectors), and mentionInputs() on a
// document. (run.json: test_run_directory, which builds without LibTorch.)
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "encoder/text_encoder.h"
#include "error_of.h"
#include "eval/dictionary.h"
#include "eval/queries.h"
#include "fixtures.h"
#include "kb/kb_builder.h"
#include "retrieval/candidate_merge.h"
#include "retrieval/dense_index.h"
#include "retrieval/hybrid_ranker.h"
#include "retrieval/sparse_index.h"
#include "retrieval/tfidf_settings.h"
#include "tiny_bert.h"
#include "train/method_inputs.h"
#include "train/method_linker.h"
#include "util/error.h"
#include "util/progress.h"

using namespace linkscope;
using namespace linkscope::train;
using encoder::EncodeRequest;
using encoder::Pooling;
using encoder::TextEncoder;

namespace {

// Six diseases; "heart attack(s)" are two names of one entity, "tumor" is shared by two (one
// dictionary entry naming both), and every entity has a semantic type for Le & Nguyen's input.
kb::KnowledgeBase tinyKb() {
    kb::KnowledgeBaseBuilder builder;
    const auto add = [&](const char* id, std::initializer_list<const char*> names) {
        const auto e = builder.entity(id);
        for (const char* name : names) builder.addName(e, name);
        builder.addSemanticType(e, "T047", "Disease or Syndrome");
    };
    add("MESH:D000001", {"heart attack", "heart attacks", "myocardial infarction"});
    add("MESH:D000002", {"breast cancer", "breast neoplasm", "tumor"});
    add("MESH:D000003", {"lung cancer", "lung neoplasm", "tumor"});
    add("MESH:D000004", {"type 2 diabetes", "diabetes mellitus"});
    add("MESH:D000005", {"acute renal failure", "kidney failure"});
    add("MESH:D000006", {"cardiac arrest", "heart arrest"});
    return builder.build();
}

retrieval::NameDictionary dictionaryOf(const kb::KnowledgeBase& kb) {
    eval::EvalDictionaryBuilder builder;
    builder.addKnowledgeBase(kb);
    return builder.build().entries;
}

// The KB's names and the context words in the vocabulary (tiny_bert.h: markers added, no dropout,
// so the vectors are the same however often they are computed).
TextEncoder tinyEncoder(const kb::KnowledgeBase& kb, Pooling pooling) {
    std::vector<std::string> texts = {"patients with a were studied in the others disease or syndrome entity"};
    kb.forEachNamePair([&](kb::EntityIndex, kb::StringId name) { texts.emplace_back(kb.strings().view(name)); });
    return test::tinyBert(texts, pooling);
}

TrainingPreset presetFor(Method method) {
    TrainingPreset preset;
    preset.name = std::string(methodName(method));
    preset.method = method;
    preset.maxLength = 64;
    preset.entityMaxLength = 48;
    switch (method) {
        case Method::BioSyn:
            preset.similarity = Similarity::Dot;
            break;
        case Method::Belhd:
            preset.similarity = Similarity::Dot;
            preset.markers = ContextMarkers::Belhd;
            preset.pooling = Pooling::Markers;
            break;
        case Method::Triplet:
            preset.similarity = Similarity::Cosine;
            preset.pooling = Pooling::Mean;
            break;
        case Method::KnnBioel:
            preset.similarity = Similarity::Cosine;
            break;
        case Method::PrototypeSrn:
            preset.similarity = Similarity::Euclidean;
            preset.markers = ContextMarkers::LeNguyen;
            preset.pooling = Pooling::StartEnd;
            preset.prototype.candidates = 4;
            preset.prototype.candidateSource = CandidateSource::Sparse;
            break;
        case Method::SelfAlignment:
        case Method::ContextAlignment:
        case Method::MaskedLm:
            break;  // pretraining stages: they link nothing, never asked for here
    }
    return preset;
}

std::vector<float> encode(const TextEncoder& encoder, const std::vector<std::string>& texts, std::size_t maxLength,
                          std::optional<Pooling> pooling = std::nullopt) {
    return encoder.encode(texts, EncodeRequest{.maxLength = maxLength, .pooling = pooling, .normalize = false});
}

std::span<const float> row(const std::vector<float>& rows, std::size_t i, std::size_t dimension) {
    return std::span<const float>(rows).subspan(i * dimension, dimension);
}

double dot(std::span<const float> a, std::span<const float> b) {
    double sum = 0.0;
    for (std::size_t d = 0; d < a.size(); ++d) sum += double(a[d]) * double(b[d]);
    return sum;
}

double cosine(std::span<const float> a, std::span<const float> b) {
    return dot(a, b) / std::sqrt(dot(a, a) * dot(b, b));
}

double distance(std::span<const float> a, std::span<const float> b) {
    double sum = 0.0;
    for (std::size_t d = 0; d < a.size(); ++d) sum += (double(a[d]) - double(b[d])) * (double(a[d]) - double(b[d]));
    return std::sqrt(sum);
}

std::vector<std::string> namesOf(const retrieval::NameDictionary& dictionary, ContextMarkers markers) {
    std::vector<std::string> names;
    for (const auto& entry : dictionary) names.push_back(nameInput(entry.name, markers));
    return names;
}

using test::errorOf;

// A linker's list must be the k best by `expected` (scores within tolerance), best first.
void checkTopK(const std::vector<LinkedCandidate>& ranked, const std::vector<double>& expected, std::size_t k,
               double tolerance) {
    QCOMPARE(ranked.size(), std::min(k, expected.size()));
    std::vector<double> sorted = expected;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    for (std::size_t i = 0; i < ranked.size(); ++i) {
        QVERIFY2(std::abs(ranked[i].score - expected[ranked[i].entry]) < tolerance,
                 qPrintable(QString("entry %1: %2 vs %3")
                                .arg(ranked[i].entry)
                                .arg(ranked[i].score)
                                .arg(expected[ranked[i].entry])));
        // Rank i holds the (i+1)-th best score: nothing better was left out.
        QVERIFY(std::abs(ranked[i].score - sorted[i]) < tolerance);
        if (i > 0) QVERIFY(ranked[i - 1].score >= ranked[i].score);
    }
}

}  // namespace

class TestMethodLinker : public QObject {
    Q_OBJECT
    const kb::KnowledgeBase kb_ = tinyKb();
    const retrieval::NameDictionary dictionary_ = dictionaryOf(kb_);

    std::size_t entryOf(std::string_view name) const {
        for (std::size_t i = 0; i < dictionary_.size(); ++i)
            if (dictionary_[i].name == name) return i;
        qFatal("no entry %s", std::string(name).c_str());
    }

private Q_SLOTS:
    void dictionaryHasTheSharedName() {
        // The fixture the prototype test relies on: "tumor" is one entry of two entities.
        QCOMPARE(dictionary_[entryOf("tumor")].ids.size(), std::size_t{2});
        QCOMPARE(dictionary_.size(), std::size_t{14});  // 15 (entity, name) pairs
    }

    void bioSynIsDensePlusLambdaSparseInHybridRankerOrder() {
        const TextEncoder encoder = tinyEncoder(kb_, Pooling::Cls);
        const TrainingPreset preset = presetFor(Method::BioSyn);
        const float lambda = 2.5f;
        LinkerOptions options;
        options.sparseWeight = lambda;
        const MethodLinker linker(preset, encoder, dictionary_, nullptr, options);
        const std::vector<std::string> inputs = {"heart attack", "breast tumour", "renal failure", "xyz"};
        const std::size_t k = 6;
        const auto ranked = linker.rank(inputs, k);
        QCOMPARE(ranked.size(), inputs.size());

        // By hand: the names' and mentions' vectors from the encoder, BioSyn's char 1-2 TF-IDF.
        const std::size_t dim = encoder.dimension();
        QCOMPARE(linker.dimension(), dim);
        const auto names = encode(encoder, namesOf(dictionary_, ContextMarkers::None), preset.entityMaxLength);
        const auto mentions = encode(encoder, inputs, preset.maxLength);
        QCOMPARE(std::vector<float>(linker.entryVectors().begin(), linker.entryVectors().end()), names);
        const auto sparse = retrieval::SparseIndex::build(dictionary_, retrieval::TfidfSettings::bioSyn());
        for (std::size_t q = 0; q < inputs.size(); ++q) {
            std::vector<double> sparseScores(dictionary_.size(), 0.0), expected(dictionary_.size());
            for (const auto& c : sparse.search(inputs[q], dictionary_.size())) sparseScores[c.entry] = c.score;
            for (std::size_t e = 0; e < dictionary_.size(); ++e)
                expected[e] = dot(row(mentions, q, dim), row(names, e, dim)) + lambda * sparseScores[e];
            checkTopK(ranked[q], expected, k, 1e-4);
            for (const auto& c : ranked[q]) {
                QVERIFY(std::abs(c.dense - dot(row(mentions, q, dim), row(names, c.entry, dim))) < 1e-4);
                QVERIFY(std::abs(c.sparse - sparseScores[c.entry]) < 1e-6);
                QVERIFY(std::abs(c.score - (c.dense + lambda * c.sparse)) < 1e-5);
            }
        }
        // The sparse part is real: "heart attack" is a dictionary name, its TF-IDF cosine is high.
        QVERIFY(std::any_of(ranked[0].begin(), ranked[0].end(), [](const auto& c) { return c.sparse > 0.5f; }));

        // The same ranking, entry for entry and bit for bit, as BioSyn's HybridRanker gives.
        const retrieval::HybridRanker ranker(
            dictionary_, sparse, names, dim,
            [&](std::span<const float> queries, std::size_t depth) {
                return retrieval::bruteForceSearch(names, dim, queries, depth);
            },
            lambda);
        const auto reference = ranker.rank(inputs, mentions, k, 1);
        for (std::size_t q = 0; q < inputs.size(); ++q) {
            QCOMPARE(ranked[q].size(), reference[q].size());
            for (std::size_t i = 0; i < ranked[q].size(); ++i) {
                QCOMPARE(ranked[q][i].entry, reference[q][i].entry);
                QCOMPARE(ranked[q][i].score, reference[q][i].score);
            }
        }

        // rankFunction() is rank() without the breakdown, and outlives a move of the linker.
        MethodLinker moved(preset, encoder, dictionary_, nullptr, options);
        const eval::RankFn rank = moved.rankFunction();
        const MethodLinker keeper(std::move(moved));
        const auto plain = rank(inputs, k);
        QCOMPARE(plain.size(), ranked.size());
        for (std::size_t q = 0; q < inputs.size(); ++q)
            for (std::size_t i = 0; i < ranked[q].size(); ++i) {
                QCOMPARE(plain[q][i].entry, ranked[q][i].entry);
                QCOMPARE(plain[q][i].score, ranked[q][i].score);
            }
        QCOMPARE(linker.rank({}, k).size(), std::size_t{0});
        const auto none = linker.rank(inputs, 0);
        QCOMPARE(none.size(), inputs.size());
        QVERIFY(std::all_of(none.begin(), none.end(), [](const auto& list) { return list.empty(); }));
    }

    void lambdaZeroIsTheDenseRanking() {
        const TextEncoder encoder = tinyEncoder(kb_, Pooling::Cls);
        LinkerOptions options;
        options.sparseWeight = 0.0;
        const MethodLinker linker(presetFor(Method::BioSyn), encoder, dictionary_, nullptr, options);
        const auto ranked = linker.rank(std::vector<std::string>{"heart attack"}, 5);
        const auto mention = encode(encoder, {"heart attack"}, 64);
        const auto names = encode(encoder, namesOf(dictionary_, ContextMarkers::None), 48);
        std::vector<double> expected;
        for (std::size_t e = 0; e < dictionary_.size(); ++e)
            expected.push_back(dot(row(mention, 0, encoder.dimension()), row(names, e, encoder.dimension())));
        checkTopK(ranked[0], expected, 5, 1e-4);
        // A negative lambda would break the hybrid ranker's bound: refused.
        options.sparseWeight = -1.0;
        QVERIFY(
            !errorOf([&] { MethodLinker(presetFor(Method::BioSyn), encoder, dictionary_, nullptr, options); }).empty());
    }

    void belhdNeedsItsMarkersAndEncodesMarkedNames() {
        const TextEncoder encoder = tinyEncoder(kb_, Pooling::Markers);
        const TrainingPreset preset = presetFor(Method::Belhd);
        const MethodLinker linker(preset, encoder, dictionary_, nullptr);

        // Name vectors are those of "[S] name [E]", pooled over the markers.
        const std::size_t dim = encoder.dimension();
        const auto names = encode(encoder, namesOf(dictionary_, ContextMarkers::Belhd), preset.entityMaxLength);
        QCOMPARE(nameInput("tumor", ContextMarkers::Belhd), std::string("[S] tumor [E]"));
        QCOMPARE(linker.entryVectors().size(), dictionary_.size() * dim);
        QCOMPARE(std::vector<float>(linker.entryVectors().begin(), linker.entryVectors().end()), names);

        const std::vector<std::string> inputs = {"patients with a [S] heart attack [E] were studied",
                                                 "[S] lung cancer [E]"};
        const auto ranked = linker.rank(inputs, 4);
        const auto mentions = encode(encoder, inputs, preset.maxLength);
        for (std::size_t q = 0; q < inputs.size(); ++q) {
            std::vector<double> expected;
            for (std::size_t e = 0; e < dictionary_.size(); ++e)
                expected.push_back(dot(row(mentions, q, dim), row(names, e, dim)));
            checkTopK(ranked[q], expected, 4, 1e-4);
            for (const auto& c : ranked[q]) {
                QCOMPARE(c.dense, c.score);
                QCOMPARE(c.sparse, 0.0f);
            }
        }

        // An input without its markers is refused, naming it; so is one with [START]/[END].
        const std::string missing = errorOf([&] {
            linker.rank(std::vector<std::string>{"[S] heart attack [E]", "heart attack"}, 4);
        });
        QVERIFY2(missing.find("\"heart attack\"") != std::string::npos &&
                     missing.find("input 1") != std::string::npos && missing.find("[S]") != std::string::npos,
                 missing.c_str());
        const std::string other =
            errorOf([&] { linker.rank(std::vector<std::string>{"[START] heart attack [END]"}, 4); });
        QVERIFY2(other.find("[START] heart attack [END]") != std::string::npos, other.c_str());
        const std::string unclosed = errorOf([&] { linker.rank(std::vector<std::string>{"[S] heart attack"}, 4); });
        QVERIFY2(unclosed.find("lacks the markers") != std::string::npos, unclosed.c_str());
    }

    // BELHD as its authors' code encodes names (models/belhd.json, entity_pooling "cls"): the plain
    // name with [CLS], while mentions stay pooled at their [S]/[E] markers.
    void belhdWithClsNamesEncodesPlainNames() {
        const TextEncoder encoder = tinyEncoder(kb_, Pooling::Markers);
        TrainingPreset preset = presetFor(Method::Belhd);
        preset.entityPooling = Pooling::Cls;
        QCOMPARE(preset.nameMarkers(), ContextMarkers::None);
        const MethodLinker linker(preset, encoder, dictionary_, nullptr);
        const auto names =
            encode(encoder, namesOf(dictionary_, ContextMarkers::None), preset.entityMaxLength, Pooling::Cls);
        QCOMPARE(std::vector<float>(linker.entryVectors().begin(), linker.entryVectors().end()), names);
        // The mention is still read between its markers (and refused without them).
        const std::vector<std::string> inputs = {"patients with a [S] heart attack [E] were studied"};
        const auto mentions = encode(encoder, inputs, preset.maxLength);
        std::vector<double> expected;
        const std::size_t dim = encoder.dimension();
        for (std::size_t e = 0; e < dictionary_.size(); ++e)
            expected.push_back(dot(row(mentions, 0, dim), row(names, e, dim)));
        checkTopK(linker.rank(inputs, 4)[0], expected, 4, 1e-4);
        QVERIFY(!errorOf([&] { linker.rank(std::vector<std::string>{"heart attack"}, 4); }).empty());
    }

    void longNamesKeepTheirMarkers() {
        // 16 tokens leave "[CLS] [S] ... [E] [SEP]" 12 letters of name with a character
        // vocabulary (one token per letter): longer names lose words from their end, never the
        // closing marker.
        TrainingPreset preset = presetFor(Method::Belhd);
        preset.entityMaxLength = 16;
        const TextEncoder encoder = tinyEncoder(kb_, Pooling::Markers);
        const MethodLinker linker(preset, encoder, dictionary_, nullptr);
        std::vector<std::string> fitted;
        for (const auto& entry : dictionary_) {
            std::string name = entry.name;
            while (encoder.tokenizer().tokenize(nameInput(name, ContextMarkers::Belhd)).size() + 2 > 16)
                name = name.substr(0, name.find_last_of(' '));
            fitted.push_back(nameInput(name, ContextMarkers::Belhd));
        }
        QCOMPARE(fitted[entryOf("acute renal failure")], std::string("[S] acute renal [E]"));
        QCOMPARE(fitted[entryOf("myocardial infarction")], std::string("[S] myocardial [E]"));
        QCOMPARE(fitted[entryOf("tumor")], std::string("[S] tumor [E]"));
        QCOMPARE(std::vector<float>(linker.entryVectors().begin(), linker.entryVectors().end()),
                 encode(encoder, fitted, 16));
        // Without the shortening the encoder refuses the long names: the case is real.
        QVERIFY(!errorOf([&] { encode(encoder, namesOf(dictionary_, ContextMarkers::Belhd), 16); }).empty());
    }

    void cosineMethodsScoreTheNormalizedDot() {
        for (const Method method : {Method::Triplet, Method::KnnBioel}) {
            const TrainingPreset preset = presetFor(method);
            const TextEncoder encoder = tinyEncoder(kb_, preset.pooling);
            const MethodLinker linker(preset, encoder, dictionary_, nullptr);
            const std::vector<std::string> inputs = {"heart attack", "kidney failure", "diabetes"};
            const auto ranked = linker.rank(inputs, static_cast<std::size_t>(dictionary_.size()));
            const std::size_t dim = encoder.dimension();
            const auto names = encode(encoder, namesOf(dictionary_, ContextMarkers::None), preset.entityMaxLength);
            const auto mentions = encode(encoder, inputs, preset.maxLength);
            for (std::size_t q = 0; q < inputs.size(); ++q) {
                std::vector<double> expected;
                for (std::size_t e = 0; e < dictionary_.size(); ++e)
                    expected.push_back(cosine(row(mentions, q, dim), row(names, e, dim)));
                checkTopK(ranked[q], expected, dictionary_.size(), 1e-5);
                for (const auto& c : ranked[q]) {
                    QVERIFY(c.score >= -1.0f && c.score <= 1.0f);
                    QCOMPARE(c.dense, c.score);
                }
            }
            // The raw vectors are dot products far outside [-1, 1]: the linker did normalize.
            QVERIFY(std::abs(dot(row(mentions, 0, dim), row(names, 0, dim))) > 1.5);
        }
    }

    void prototypeReRanksTheFirstStageByEntityDistance() {
        const TrainingPreset preset = presetFor(Method::PrototypeSrn);
        const TextEncoder encoder = tinyEncoder(kb_, Pooling::StartEnd);
        QVERIFY(errorOf([&] { MethodLinker(preset, encoder, dictionary_, nullptr); }).find("knowledge base") !=
                std::string::npos);
        const MethodLinker linker(preset, encoder, dictionary_, &kb_);
        // With a sparse first stage the names are never encoded.
        QVERIFY(linker.entryVectors().empty());

        const std::vector<std::string> inputs = {"patients with a [START] heart attack [END] were studied",
                                                 "[START] tumor [END]", "[START] lung cancer [END] in the others"};
        const std::vector<std::string> insides = {"heart attack", "tumor", "lung cancer"};
        const std::size_t k = 3;
        const auto ranked = linker.rank(inputs, k);

        // The first stage by hand: Le & Nguyen's two TF-IDF settings, merged.
        const auto chars = retrieval::SparseIndex::build(dictionary_, retrieval::TfidfSettings::leNguyenChars());
        const auto words = retrieval::SparseIndex::build(dictionary_, retrieval::TfidfSettings::leNguyenWords());
        const std::size_t dim = encoder.dimension();
        const auto mentions = encode(encoder, inputs, preset.maxLength);
        // Entity vectors: the [CLS] row of the token outputs of "type [SEP] syn1 [SEP] ...".
        std::map<kb::EntityIndex, std::vector<float>> entityVectors;
        encoder::EncodeOptions tokenization;
        tokenization.maxLength = preset.entityMaxLength;
        for (kb::EntityIndex e = 0; e < kb_.entityCount(); ++e) {
            const auto outputs = encoder.tokenOutputs(encoder.tokenizer().encode(entityInput(kb_, e, 0), tokenization));
            entityVectors[e].assign(outputs.begin(), outputs.begin() + long(encoder.config().hiddenSize));
        }
        QCOMPARE(entityInput(kb_, 0, 0),
                 std::string("Disease or Syndrome [SEP] heart attack [SEP] heart attacks [SEP] myocardial infarction"));

        std::vector<std::vector<retrieval::Candidate>> stages;
        // The first stage reads 8 entries per wanted entity and keeps the first k entities.
        const std::size_t depth = preset.prototype.candidates * kFirstStageEntriesPerEntity;
        for (std::size_t q = 0; q < inputs.size(); ++q) {
            const std::vector<retrieval::Candidate> lists[] = {chars.search(insides[q], depth),
                                                               words.search(insides[q], depth)};
            const auto stage = retrieval::mergeCandidates(lists, depth);
            stages.push_back(stage);
            // The representative of each of the first k entities: its first entry in the first stage.
            std::map<kb::EntityIndex, std::uint32_t> representative;
            std::map<std::uint32_t, float> stageScore;
            for (const auto& c : stage) {
                stageScore.emplace(c.entry, c.score);
                for (const auto& id : dictionary_[c.entry].ids)
                    if (representative.size() < preset.prototype.candidates ||
                        representative.contains(*kb_.findEntity(id)))
                        representative.emplace(*kb_.findEntity(id), c.entry);
            }
            std::map<std::uint32_t, double> expected;  // entry -> the best of its entities' -distances
            for (const auto& [entity, entry] : representative) {
                const double score = -distance(row(mentions, q, dim), entityVectors[entity]);
                const auto it = expected.find(entry);
                if (it == expected.end() || score > it->second) expected[entry] = score;
            }
            QCOMPARE(ranked[q].size(), std::min(k, expected.size()));
            std::vector<double> best;
            for (const auto& [entry, score] : expected) best.push_back(score);
            std::sort(best.begin(), best.end(), std::greater<>());
            std::set<std::uint32_t> listed;
            for (std::size_t i = 0; i < ranked[q].size(); ++i) {
                const auto& c = ranked[q][i];
                QVERIFY2(expected.contains(c.entry), "a returned entry is no entity's first-stage representative");
                QVERIFY(listed.insert(c.entry).second);
                QVERIFY(std::abs(c.score - expected[c.entry]) < 1e-4);
                QVERIFY(std::abs(c.score - best[i]) < 1e-4);
                QCOMPARE(c.sparse, stageScore[c.entry]);
                QVERIFY(c.score <= 0.0f);
            }
        }
        // "heart attacks" is in the first stage of "heart attack" but its entity is already
        // represented by "heart attack": one entry per entity.
        QVERIFY(std::any_of(stages[0].begin(), stages[0].end(),
                            [&](const auto& c) { return c.entry == entryOf("heart attacks"); }));
        const auto heart = std::find_if(ranked[0].begin(), ranked[0].end(),
                                        [&](const auto& c) { return c.entry == entryOf("heart attack"); });
        QVERIFY(heart != ranked[0].end());
        QVERIFY(std::none_of(ranked[0].begin(), ranked[0].end(),
                             [&](const auto& c) { return c.entry == entryOf("heart attacks"); }));
        // "tumor" names two entities; it is listed once.
        QCOMPARE(std::count_if(ranked[1].begin(), ranked[1].end(),
                               [&](const auto& c) { return c.entry == entryOf("tumor"); }),
                 1L);

        // A second ranking reuses the cached entity vectors and gives the same result.
        const auto again = linker.rank(inputs, k);
        for (std::size_t q = 0; q < inputs.size(); ++q)
            for (std::size_t i = 0; i < ranked[q].size(); ++i) QCOMPARE(again[q][i].score, ranked[q][i].score);
    }

    // prototype.first_stage_weight: the score is the re-ranker's plus the weight times the first
    // stage's, the re-ranker's own score stays in `dense`; a weight far above the distances'
    // spread ranks as the first stage does.
    void prototypeFirstStageWeightAddsTheFirstStageScore() {
        TrainingPreset preset = presetFor(Method::PrototypeSrn);
        const TextEncoder encoder = tinyEncoder(kb_, Pooling::StartEnd);
        const std::vector<std::string> inputs = {"patients with a [START] heart attack [END] were studied",
                                                 "[START] tumor [END]", "[START] lung cancer [END] in the others"};
        const std::size_t k = 3;
        const auto plain = MethodLinker(preset, encoder, dictionary_, &kb_).rank(inputs, k);
        for (const float weight : {2.5f, 1000.0f}) {
            preset.prototype.firstStageWeight = weight;
            const auto ranked = MethodLinker(preset, encoder, dictionary_, &kb_).rank(inputs, k);
            QCOMPARE(ranked.size(), inputs.size());
            for (std::size_t q = 0; q < inputs.size(); ++q) {
                QVERIFY(!ranked[q].empty());
                float bestStage = 0.0f;
                for (std::size_t i = 0; i < ranked[q].size(); ++i) {
                    const auto& c = ranked[q][i];
                    QVERIFY(std::abs(c.score - (c.dense + weight * c.sparse)) < 1e-3f * std::max(1.0f, weight));
                    QVERIFY(c.dense <= 0.0f);  // -distance, as without the weight
                    if (i > 0) QVERIFY(ranked[q][i - 1].score >= c.score);
                    bestStage = std::max(bestStage, c.sparse);
                    // The re-ranker's score of an entry does not change with the weight.
                    for (const auto& p : plain[q])
                        if (p.entry == c.entry) QVERIFY(std::abs(p.dense - c.dense) < 1e-5f);
                }
                if (weight > 100.0f) QCOMPARE(ranked[q].front().sparse, bestStage);
            }
        }
        // The first stage's exact name wins once its score counts enough.
        const auto byStage = MethodLinker(preset, encoder, dictionary_, &kb_).rank(inputs, k);
        QCOMPARE(std::size_t{byStage[1].front().entry}, entryOf("tumor"));
    }

    void prototypeDenseFirstStageComparesMarkedNamesByCosine() {
        TrainingPreset preset = presetFor(Method::PrototypeSrn);
        preset.prototype.candidateSource = CandidateSource::Dense;
        preset.prototype.candidates = dictionary_.size();  // every entry: the re-ranking alone decides
        const TextEncoder encoder = tinyEncoder(kb_, Pooling::StartEnd);
        const MethodLinker linker(preset, encoder, dictionary_, &kb_);
        const auto names = encode(encoder, namesOf(dictionary_, ContextMarkers::LeNguyen), preset.entityMaxLength);
        QCOMPARE(std::vector<float>(linker.entryVectors().begin(), linker.entryVectors().end()), names);
        const auto ranked = linker.rank(std::vector<std::string>{"[START] heart attack [END]"}, dictionary_.size());
        // Every entity once: six entities, and the shared "tumor" entry cannot stand for both
        // of its entities at once, so 5 or 6 entries.
        std::set<kb::EntityIndex> entities;
        for (const auto& c : ranked[0])
            for (const auto& id : dictionary_[c.entry].ids) entities.insert(*kb_.findEntity(id));
        QCOMPARE(entities.size(), kb_.entityCount());
        QVERIFY(ranked[0].size() >= 5 && ranked[0].size() <= 6);
        for (const auto& c : ranked[0]) QCOMPARE(c.sparse, 0.0f);
    }

    void euclideanSearchRanksByDistance() {
        // A one-stage method scored by -distance (the dense index searches a shifted inner
        // product; the scores are the exact distances).
        TrainingPreset preset = presetFor(Method::Triplet);
        preset.similarity = Similarity::Euclidean;
        const TextEncoder encoder = tinyEncoder(kb_, preset.pooling);
        const MethodLinker linker(preset, encoder, dictionary_, nullptr);
        const std::vector<std::string> inputs = {"heart attack", "lung tumor"};
        const auto ranked = linker.rank(inputs, 5);
        const std::size_t dim = encoder.dimension();
        const auto names = encode(encoder, namesOf(dictionary_, ContextMarkers::None), preset.entityMaxLength);
        const auto mentions = encode(encoder, inputs, preset.maxLength);
        for (std::size_t q = 0; q < inputs.size(); ++q) {
            std::vector<double> expected;
            for (std::size_t e = 0; e < dictionary_.size(); ++e)
                expected.push_back(-distance(row(mentions, q, dim), row(names, e, dim)));
            checkTopK(ranked[q], expected, 5, 1e-4);
        }
        // "heart attack" is a dictionary name: its own vector is at distance 0, the best.
        QCOMPARE(std::size_t{ranked[0][0].entry}, entryOf("heart attack"));
        QVERIFY(std::abs(ranked[0][0].score) < 1e-4);
    }

    void compactNameVectorsRankAsExactSearch() {
        // Above LinkerOptions::compactAbove the names go, chunk by chunk, into an IVF-fp16 index
        // and nowhere else. On 14 names it has one list, so search is exhaustive: the rankings
        // are the exact ones but for fp16 rounding (relative 1e-3 of a value: 2e-3 of a score's
        // magnitude is the tolerance), for each way a method scores.
        TrainingPreset euclidean = presetFor(Method::Triplet);
        euclidean.similarity = Similarity::Euclidean;
        for (const TrainingPreset& preset : {presetFor(Method::BioSyn), presetFor(Method::Triplet), euclidean}) {
            const TextEncoder encoder = tinyEncoder(kb_, preset.pooling);
            LinkerOptions small;
            small.sparseWeight = 2.0;
            small.compactAbove = 0;
            std::vector<std::pair<std::string, double>> reports;
            ProgressSink progress;
            progress.report = [&](std::string_view stage, double fraction) { reports.emplace_back(stage, fraction); };
            const MethodLinker compact(preset, encoder, dictionary_, nullptr, small, &progress);
            LinkerOptions full;
            full.sparseWeight = 2.0;
            const MethodLinker exact(preset, encoder, dictionary_, nullptr, full);
            QVERIFY(compact.compactNameVectors());
            QVERIFY(compact.entryVectors().empty());
            QVERIFY(!exact.compactNameVectors());
            QCOMPARE(exact.entryVectors().size(), dictionary_.size() * encoder.dimension());
            QVERIFY(!reports.empty());
            for (const auto& [stage, fraction] : reports) QCOMPARE(stage, std::string("Encoding names"));
            QVERIFY(std::is_sorted(reports.begin(), reports.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; }));
            QVERIFY(std::abs(reports.back().second - 1.0) < 1e-9);

            const std::vector<std::string> inputs = {"heart attack", "breast tumour", "renal failure", "diabetes"};
            const std::size_t k = dictionary_.size();
            const auto a = compact.rank(inputs, k), b = exact.rank(inputs, k);
            const auto tolerance = [](double score) { return 2e-3 * std::max(1.0, std::abs(score)); };
            for (std::size_t q = 0; q < inputs.size(); ++q) {
                QCOMPARE(a[q].size(), b[q].size());
                for (std::size_t i = 0; i < a[q].size(); ++i)
                    QVERIFY2(std::abs(a[q][i].score - b[q][i].score) <= tolerance(b[q][i].score),
                             qPrintable(QString("%1 input %2 rank %3: %4 vs %5")
                                            .arg(preset.name.c_str())
                                            .arg(q)
                                            .arg(i)
                                            .arg(a[q][i].score)
                                            .arg(b[q][i].score)));
                // The best entry is the same unless the exact top two are within the rounding.
                if (b[q].size() > 1 && b[q][0].score - b[q][1].score > 2 * tolerance(b[q][0].score))
                    QCOMPARE(a[q][0].entry, b[q][0].entry);
                // score() reads the index's row of each entry: the same parts as the exact linker's.
                const auto vector = exact.encodeMentions(std::vector<std::string>{inputs[q]});
                const std::vector<std::uint32_t> entries = {0, 5, static_cast<std::uint32_t>(k - 1)};
                const auto x = compact.score(inputs[q], vector, entries), y = exact.score(inputs[q], vector, entries);
                for (std::size_t i = 0; i < entries.size(); ++i) {
                    QCOMPARE(x[i].entry, y[i].entry);
                    QVERIFY(std::abs(x[i].score - y[i].score) <= tolerance(y[i].score));
                    QVERIFY(std::abs(x[i].sparse - y[i].sparse) < 1e-6);
                }
            }
        }
    }

    void prototypeBothStagesMergeSparseAndDense() {
        TrainingPreset preset = presetFor(Method::PrototypeSrn);
        preset.prototype.candidateSource = CandidateSource::Both;
        preset.prototype.candidates = 2;
        const TextEncoder encoder = tinyEncoder(kb_, Pooling::StartEnd);
        const MethodLinker linker(preset, encoder, dictionary_, &kb_);
        const auto ranked = linker.rank(std::vector<std::string>{"[START] kidney failure [END]"}, 10);
        // The first stage: the best sparse entry (chars 2-5, then words, interleaved) and the
        // best dense one (cosine of "[START] kidney failure [END]" with the marked names).
        const auto chars = retrieval::SparseIndex::build(dictionary_, retrieval::TfidfSettings::leNguyenChars());
        const auto words = retrieval::SparseIndex::build(dictionary_, retrieval::TfidfSettings::leNguyenWords());
        // Two entities are wanted: 8 entries per entity are read from each stage.
        const std::size_t depth = 2 * kFirstStageEntriesPerEntity;
        const std::vector<retrieval::Candidate> sparseLists[] = {chars.search("kidney failure", depth),
                                                                 words.search("kidney failure", depth)};
        const auto sparse = retrieval::mergeCandidates(sparseLists, depth);
        const std::size_t dim = encoder.dimension();
        const auto names = encode(encoder, namesOf(dictionary_, ContextMarkers::LeNguyen), preset.entityMaxLength);
        const auto query = encode(encoder, {"[START] kidney failure [END]"}, preset.entityMaxLength);
        std::vector<retrieval::Candidate> dense;
        for (std::uint32_t e = 0; e < dictionary_.size(); ++e)
            dense.push_back({e, static_cast<float>(cosine(row(query, 0, dim), row(names, e, dim)))});
        std::sort(dense.begin(), dense.end(), [](const auto& a, const auto& b) {
            return a.score != b.score ? a.score > b.score : a.entry < b.entry;
        });
        dense.resize(std::min(dense.size(), depth));
        // The merged stage interleaves the two lists; the re-ranker reads its first two entities.
        // The untrained model's dense cosines tie to 1e-6 (0.999998 for several names), where
        // FAISS and this loop may order them differently: a dense entry within 1e-5 of the k-th
        // dense score may stand for it.
        std::set<std::uint32_t> stage;
        for (const auto& c : sparse) stage.insert(c.entry);
        const float denseCut = dense[std::min<std::size_t>(1, dense.size() - 1)].score - 1e-5f;
        for (const auto& c : dense)
            if (c.score >= denseCut) stage.insert(c.entry);
        QVERIFY(!ranked[0].empty() && ranked[0].size() <= 2);
        for (const auto& c : ranked[0]) QVERIFY2(stage.contains(c.entry), "an entry from outside the first stage");
        // The two ranked entries name two entities: one per entity.
        std::set<kb::EntityIndex> entities;
        for (const auto& c : ranked[0])
            for (const auto& id : dictionary_[c.entry].ids) entities.insert(*kb_.findEntity(id));
        QCOMPARE(entities.size(), ranked[0].size());
        // The exact name is the sparse stage's best: it is among the re-ranked entries.
        QVERIFY(std::any_of(ranked[0].begin(), ranked[0].end(),
                            [&](const auto& c) { return c.entry == entryOf("kidney failure"); }));
    }

    void givenEntryVectorsAreUsed() {
        const TextEncoder encoder = tinyEncoder(kb_, Pooling::Markers);
        const TrainingPreset preset = presetFor(Method::Belhd);
        const std::size_t dim = encoder.dimension();
        const std::string input = "[S] heart attack [E]";
        // Every name is given the mention's own vector, "kidney failure" twice that: it wins by
        // dot product whatever the model would say of the names.
        const auto mention = encode(encoder, {input}, preset.maxLength);
        LinkerOptions options;
        for (std::size_t e = 0; e < dictionary_.size(); ++e)
            for (std::size_t d = 0; d < dim; ++d)
                options.entryVectors.push_back(mention[d] * (e == entryOf("kidney failure") ? 2.0f : 1.0f));
        const MethodLinker linker(preset, encoder, dictionary_, nullptr, options);
        const auto ranked = linker.rank(std::vector<std::string>{input}, 3);
        QCOMPARE(std::size_t{ranked[0][0].entry}, entryOf("kidney failure"));
        QCOMPARE(ranked[0][1].entry, std::uint32_t{0});  // the others tie: lowest entry first
        QCOMPARE(ranked[0][2].entry, std::uint32_t{1});

        LinkerOptions ragged;
        ragged.entryVectors.assign(dictionary_.size() * dim - 1, 0.0f);
        const std::string error = errorOf([&] { MethodLinker(preset, encoder, dictionary_, nullptr, ragged); });
        QVERIFY2(error.find("14 entries") != std::string::npos, error.c_str());
    }

    void refusesWhatCannotBeRanked() {
        const TextEncoder encoder = tinyEncoder(kb_, Pooling::Cls);
        const retrieval::NameDictionary empty;
        QVERIFY(errorOf([&] { MethodLinker(presetFor(Method::KnnBioel), encoder, empty, nullptr); }).find("empty") !=
                std::string::npos);
        TrainingPreset euclideanBioSyn = presetFor(Method::BioSyn);
        euclideanBioSyn.similarity = Similarity::Euclidean;
        QVERIFY(errorOf([&] { MethodLinker(euclideanBioSyn, encoder, dictionary_, nullptr); }).find("euclidean") !=
                std::string::npos);
        // An entry whose ids the KB does not know cannot be re-ranked by entity.
        retrieval::NameDictionary unknown = dictionary_;
        unknown.push_back({"mystery disease", {"MESH:D999999"}});
        const TextEncoder startEnd = tinyEncoder(kb_, Pooling::StartEnd);
        const std::string error =
            errorOf([&] { MethodLinker(presetFor(Method::PrototypeSrn), startEnd, unknown, &kb_); });
        QVERIFY2(error.find("\"mystery disease\"") != std::string::npos, error.c_str());
    }

    void mentionInputsMarkTheSentence() {
        Corpus corpus;
        Document document("42");
        document.title = "Heart attack in adults.";
        document.abstract = "We studied many people. Patients with a heart attack were studied. Others were not.";
        corpus.add(document);
        const std::string text = document.text();
        eval::EvalQuery query;
        query.document = "42";
        query.mention = "heart attack";
        query.start = text.find("heart attack");  // ASCII: characters are bytes
        query.end = query.start + 12;
        query.parts = {"heart attack"};

        QCOMPARE(mentionInputs(presetFor(Method::Belhd), corpus)(query, 0),
                 std::string("Patients with a [S] heart attack [E] were studied."));
        QCOMPARE(mentionInputs(presetFor(Method::PrototypeSrn), corpus)(query, 0),
                 std::string("Patients with a [START] heart attack [END] were studied."));
        // Without markers, the normalized part itself (a split composite: each of its parts).
        query.parts = {"heart attack", "cardiac arrest"};
        QCOMPARE(mentionInputs(presetFor(Method::BioSyn), corpus)(query, 1), std::string("cardiac arrest"));
        // The marked part is the normalized one, inside the document's own words.
        QCOMPARE(mentionInputs(presetFor(Method::Belhd), corpus)(query, 1),
                 std::string("Patients with a [S] cardiac arrest [E] were studied."));
        // A short maximum length leaves fewer context words (contextWordsFor).
        TrainingPreset shortPreset = presetFor(Method::Belhd);
        shortPreset.maxLength = 20;  // (20 - 12) / 4 = 2 words each side
        QCOMPARE(mentionInputs(shortPreset, corpus)(query, 0),
                 std::string("with a [S] heart attack [E] were studied."));
        // With a token counter (here: three tokens per word, plus [CLS] and [SEP]) the context
        // is cut until the input fits: 2 words each side make 2 + 8 x 3 = 26 tokens, over 20;
        // 1 word each side make 2 + 6 x 3 = 20.
        const auto threePerWord = [](std::string_view input) {
            std::size_t count = 2;
            for (std::size_t at = 0; at < input.size(); ++at)
                if (input[at] != ' ' && (at == 0 || input[at - 1] == ' ')) count += 3;
            return count;
        };
        QCOMPARE(mentionInputs(shortPreset, corpus, threePerWord)(query, 0),
                 std::string("a [S] heart attack [E] were"));
        // A mention too long for the window even alone loses words from its end, never a marker:
        // 2 + 3 x (2 markers + 4 words) = 20 tokens.
        eval::EvalQuery longMention = query;
        longMention.parts = {"heart attack with cardiac arrest and shock"};
        QCOMPARE(mentionInputs(shortPreset, corpus, threePerWord)(longMention, 0),
                 std::string("[S] heart attack with cardiac [E]"));
        // The inputs go through the linker: its markers are found.
        QVERIFY(mentionInsideMarkers(mentionInputs(presetFor(Method::Belhd), corpus)(query, 0),
                                     ContextMarkers::Belhd) == std::optional<std::string_view>("heart attack"));

        eval::EvalQuery elsewhere = query;
        elsewhere.document = "77";
        elsewhere.sourceFile = "corpus.txt";
        elsewhere.sourceLine = 9;
        const std::string error = errorOf([&] { mentionInputs(presetFor(Method::Belhd), corpus)(elsewhere, 0); });
        QVERIFY2(error.find("77") != std::string::npos && error.find("\"heart attack\"") != std::string::npos &&
                     error.find("corpus.txt:9") != std::string::npos,
                 error.c_str());
        QVERIFY(!errorOf([&] { mentionInputs(presetFor(Method::BioSyn), corpus)(query, 2); }).empty());
    }
};

QTEST_APPLESS_MAIN(TestMethodLinker)
#include "test_method_linker.moc"
