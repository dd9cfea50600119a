// Linking with the datastore (curation/augmented_linker.h) and feeding decisions back
// (curation/feedback_loop.h), on a tiny KB and an untrained tiny BERT: kNN-BioEL's interpolation
// recomputed by hand from the encoder's vectors, the sieve's stages and threshold, the exact
// stage, a correction that changes the prediction of the same mention in another document, undo,
// the training datastore and the simulated curation walk; the review queue's linker with a run and
// its datastore (run_review_linker.h): its reach against adding the key, its signals, a walk.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "curation/augmented_linker.h"
#include "curation/feedback_loop.h"
#include "curation/review_walk.h"
#include "curation/run_review_linker.h"
#include "curation/simulated_curation.h"
#include "curation/training_datastore.h"
#include "eval/dictionary.h"
#include "eval/queries.h"
#include "kb/kb_builder.h"
#include "retrieval/knn_datastore.h"
#include "tiny_bert.h"
#include "train/method_linker.h"
#include "util/error.h"

#include <QtTest>

using namespace linkscope;
using namespace linkscope::curation;

namespace {

kb::KnowledgeBase tinyKb() {
    kb::KnowledgeBaseBuilder builder;
    const auto add = [&](const char* id, std::initializer_list<const char*> names) {
        const auto e = builder.entity(id);
        for (const char* name : names) builder.addName(e, name);
    };
    add("MESH:D000001", {"heart attack", "myocardial infarction"});
    add("MESH:D000002", {"breast cancer", "breast neoplasm", "tumor"});
    add("MESH:D000003", {"lung cancer", "lung neoplasm", "tumor"});
    add("MESH:D000004", {"type 2 diabetes", "diabetes mellitus"});
    add("MESH:D000005", {"acute renal failure", "kidney failure"});
    add("MESH:D000006", {"cardiac arrest", "heart arrest"});
    return builder.build();
}

// Mention texts the tests link: lay names the KB does not hold.
const std::vector<std::string> kMentions = {"heart trouble",  "chest pain attack", "sugar disease",
                                            "kidney trouble", "lump in breast",    "heart stop"};

// The KB's names and the mentions, so the vocabulary covers every text.
std::vector<std::string> vocabularyTexts(const kb::KnowledgeBase& kb) {
    std::vector<std::string> texts = kMentions;
    kb.forEachNamePair([&](kb::EntityIndex, kb::StringId name) { texts.emplace_back(kb.strings().view(name)); });
    return texts;
}

train::TrainingPreset tripletPreset() {
    train::TrainingPreset preset;
    preset.name = "triplet";
    preset.method = train::Method::Triplet;
    preset.similarity = train::Similarity::Cosine;
    preset.pooling = encoder::Pooling::Mean;
    preset.maxLength = 32;
    preset.entityMaxLength = 32;
    return preset;
}

double cosine(std::span<const float> a, std::span<const float> b) {
    double ab = 0.0, aa = 0.0, bb = 0.0;
    for (std::size_t d = 0; d < a.size(); ++d) {
        ab += double(a[d]) * b[d];
        aa += double(a[d]) * a[d];
        bb += double(b[d]) * b[d];
    }
    return ab / std::sqrt(aa * bb);
}

// Everything a test links with: the KB, its dictionary, the encoder, the method linker.
struct Fixture {
    kb::KnowledgeBase kb = tinyKb();
    retrieval::NameDictionary dictionary;
    encoder::TextEncoder encoder;
    train::MethodLinker model;

    Fixture()
        : dictionary(dictionaryOf(kb)),
          encoder(test::tinyBert(vocabularyTexts(kb), encoder::Pooling::Mean)),
          model(tripletPreset(), encoder, dictionary, &kb) {}

    static retrieval::NameDictionary dictionaryOf(const kb::KnowledgeBase& kb) {
        eval::EvalDictionaryBuilder builder;
        builder.addKnowledgeBase(kb);
        return builder.build().entries;
    }

    std::vector<float> vectorOf(const std::string& text) const {
        return model.encodeMentions(std::vector<std::string>{text});
    }
    retrieval::KnnDatastore emptyStore() const {
        return retrieval::KnnDatastore(model.dimension(), encoder.fingerprint());
    }

    /// The entity the model alone ranks first for a text, and one it does not.
    std::pair<std::string, std::string> topAndOther(const std::string& text) const {
        const auto ranked = model.rank(std::vector<std::string>{text}, 1);
        const std::string top = dictionary[ranked[0][0].entry].ids.front();
        for (const auto& entry : dictionary)
            for (const auto& id : entry.ids)
                if (id != top) return {top, id};
        return {top, top};
    }
};

eval::EvalQuery query(const std::string& document, std::size_t start, const std::string& text,
                      const std::string& gold) {
    eval::EvalQuery q;
    q.document = document;
    q.start = start;
    q.end = start + text.size();
    q.mention = text;
    q.parts = {text};
    q.goldIds = {gold};
    return q;
}

}  // namespace

class TestAugmentedLinker : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // p = lambda p_kNN + (1 - lambda) p_model, every number recomputed from the vectors.
    void knnInterpolationByHand() {
        const Fixture f;
        auto store = f.emptyStore();
        // Three keys: two of one entity (max aggregation keeps the nearer), one of another.
        store.add(f.vectorOf("heart stop"), "MESH:D000006", retrieval::KeyOrigin::Training, "heart stop");
        store.add(f.vectorOf("chest pain attack"), "MESH:D000006", retrieval::KeyOrigin::Training, "chest pain attack");
        store.add(f.vectorOf("kidney trouble"), "MESH:D000005", retrieval::KeyOrigin::Training, "kidney trouble");

        AugmentedOptions options;
        options.mode = LinkMode::Knn;
        options.knn = {.k = 3, .lambda = 0.4, .beta1 = 0.05, .beta2 = 0.5};
        const AugmentedLinker linker(f.model, f.dictionary, &store, options);
        const std::string input = "heart trouble";
        const auto ranked = linker.link(std::vector<std::string>{input}, 64);
        QCOMPARE(ranked.size(), std::size_t{1});

        // By hand: each entity's best name cosine, its softmax, the neighbours' max-softmax.
        const auto mention = f.vectorOf(input);
        const auto names = f.model.entryVectors();
        const std::size_t dimension = f.model.dimension();
        std::map<std::string, double> best;
        for (std::size_t e = 0; e < f.dictionary.size(); ++e)
            for (const auto& id : f.dictionary[e].ids) {
                const double c = cosine(mention, names.subspan(e * dimension, dimension));
                if (!best.contains(id) || c > best[id]) best[id] = c;
            }
        double modelSum = 0.0;
        for (const auto& [id, score] : best) modelSum += std::exp(score / 0.05);
        std::map<std::string, double> knnMax;
        for (const auto& [text, id] :
             std::vector<std::pair<std::string, std::string>>{{"heart stop", "MESH:D000006"},
                                                              {"chest pain attack", "MESH:D000006"},
                                                              {"kidney trouble", "MESH:D000005"}}) {
            const double weight = std::exp(cosine(mention, f.vectorOf(text)) / 0.5);
            knnMax[id] = std::max(knnMax[id], weight);
        }
        double knnSum = 0.0;
        for (const auto& [id, weight] : knnMax) knnSum += weight;

        QCOMPARE(ranked[0].size(), best.size());
        double total = 0.0;
        for (std::size_t i = 0; i < ranked[0].size(); ++i) {
            const auto& r = ranked[0][i];
            const std::string& id = linker.entityId(r.entity);
            const double pModel = std::exp(best[id] / 0.05) / modelSum;
            const double pKnn = knnMax.contains(id) ? knnMax[id] / knnSum : 0.0;
            QVERIFY2(std::abs(r.modelProbability - pModel) < 1e-5, id.c_str());
            QVERIFY2(std::abs(r.knnProbability - pKnn) < 1e-5, id.c_str());
            QVERIFY2(std::abs(r.score - (0.4 * pKnn + 0.6 * pModel)) < 1e-5, id.c_str());
            QVERIFY(std::abs(r.modelScore - best[id]) < 1e-5);
            QCOMPARE(r.neighbors, std::size_t(id == "MESH:D000006" ? 2 : id == "MESH:D000005" ? 1 : 0));
            if (i > 0) QVERIFY(ranked[0][i - 1].score >= r.score);
            total += r.score;
        }
        QVERIFY(std::abs(total - 1.0) < 1e-6);

        // combine() hands back the neighbours the interpolation read: the datastore's own k
        // nearest, in its order (ModelCandidates takes the k-th cosine from them instead of
        // searching again). In model mode it hands back none.
        const std::vector<std::string> inputs{input, "kidney"};
        const auto vectors = linker.encode(inputs);
        const auto models = linker.modelLists(inputs, vectors);
        std::vector<std::vector<retrieval::DatastoreNeighbor>> neighbors{{{}}};  // cleared by the call
        const auto combined = linker.combine(inputs, vectors, models, 64, &neighbors);
        const auto direct = store.search(vectors, 3);
        QCOMPARE(neighbors.size(), std::size_t{2});
        for (std::size_t q = 0; q < 2; ++q) {
            QCOMPARE(neighbors[q].size(), std::size_t{3});
            for (std::size_t i = 0; i < 3; ++i) {
                QCOMPARE(neighbors[q][i].key, direct[q][i].key);
                QVERIFY(std::abs(neighbors[q][i].similarity - direct[q][i].similarity) < 1e-6f);
            }
        }
        QCOMPARE(linker.entityId(combined[0][0].entity), linker.entityId(ranked[0][0].entity));
        AugmentedOptions modelOnly = options;
        modelOnly.mode = LinkMode::Model;
        const AugmentedLinker plain(f.model, f.dictionary, &store, modelOnly);
        (void)plain.combine(inputs, vectors, models, 4, &neighbors);
        QVERIFY(neighbors.empty());
    }

    // An entity that only the neighbours name (below the model's list) is scored exactly.
    void neighbourBelowTheModelList() {
        const Fixture f;
        const std::string input = "heart trouble";
        const auto full = f.model.rank(std::vector<std::string>{input}, 64);
        const std::uint32_t lastEntry = full[0].back().entry;
        const std::string lastId = f.dictionary[lastEntry].ids.front();
        auto store = f.emptyStore();
        store.add(f.vectorOf(input), lastId, retrieval::KeyOrigin::Corrected, input);

        AugmentedOptions options;
        options.mode = LinkMode::Knn;
        options.modelDepth = 1;
        options.knn = {.k = 1, .lambda = 0.5, .beta1 = 0.01, .beta2 = 1.0};
        const AugmentedLinker linker(f.model, f.dictionary, &store, options);
        const auto ranked = linker.link(std::vector<std::string>{input}, 8);
        QCOMPARE(ranked[0].size(), std::size_t{2});  // the model's top entity and the neighbour's
        const auto it = std::find_if(ranked[0].begin(), ranked[0].end(),
                                     [&](const RankedEntity& r) { return linker.entityId(r.entity) == lastId; });
        QVERIFY(it != ranked[0].end());
        // Its model score is its best name's, as the full ranking gives it.
        float expected = -2.0f;
        for (const auto& c : full[0])
            if (std::find(f.dictionary[c.entry].ids.begin(), f.dictionary[c.entry].ids.end(), lastId) !=
                f.dictionary[c.entry].ids.end())
                expected = std::max(expected, c.score);
        QVERIFY(std::abs(it->modelScore - expected) < 1e-5);
        QCOMPARE(it->knnProbability, 1.0);
    }

    // D-T decides when its best cosine reaches the threshold, else OD-T; O-T is a cosine over names.
    void sieveStagesAndThreshold() {
        const Fixture f;
        auto store = f.emptyStore();
        const auto [top, other] = f.topAndOther("sugar disease");
        store.add(f.vectorOf("sugar disease"), other, retrieval::KeyOrigin::Training, "sugar disease");

        AugmentedOptions options;
        options.mode = LinkMode::Sieve;
        options.sieve = retrieval::parseSieve("D-T+OD-T");
        const AugmentedLinker linker(f.model, f.dictionary, &store, options);
        // The identical text: cosine 1 with the key, D-T decides.
        auto ranked = linker.link(std::vector<std::string>{"sugar disease"}, 4);
        QCOMPARE(linker.entityId(ranked[0][0].entity), other);
        QCOMPARE(ranked[0][0].sieveStage, 0);
        QVERIFY(ranked[0][0].score > 0.999);

        // Another text: its cosine with the key decides which stage answers.
        const std::string text = "kidney trouble";
        const double similarity = cosine(f.vectorOf(text), f.vectorOf("sugar disease"));
        ranked = linker.link(std::vector<std::string>{text}, 4);
        QCOMPARE(ranked[0][0].sieveStage, similarity >= 0.95 ? 0 : 1);

        // A threshold just above / at the key's similarity moves the decision.
        AugmentedOptions at = options;
        at.sieve.threshold = similarity - 1e-6;
        const AugmentedLinker low(f.model, f.dictionary, &store, at);
        QCOMPARE(low.link(std::vector<std::string>{text}, 4)[0][0].sieveStage, 0);
        AugmentedOptions above = options;
        above.sieve.threshold = similarity + 1e-4;
        const AugmentedLinker high(f.model, f.dictionary, &store, above);
        const auto second = high.link(std::vector<std::string>{text}, 4)[0];
        QCOMPARE(second[0].sieveStage, 1);

        // OD-T's ranking: the best cosine over names and keys, by hand.
        const auto mention = f.vectorOf(text);
        const std::size_t dimension = f.model.dimension();
        std::map<std::string, double> best;
        for (std::size_t e = 0; e < f.dictionary.size(); ++e)
            for (const auto& id : f.dictionary[e].ids)
                best[id] = std::max(best.contains(id) ? best[id] : -2.0,
                                    cosine(mention, f.model.entryVectors().subspan(e * dimension, dimension)));
        best[other] = std::max(best[other], similarity);
        std::vector<std::pair<double, std::string>> order;
        for (const auto& [id, score] : best) order.push_back({score, id});
        std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        for (std::size_t i = 0; i < second.size(); ++i) {
            QCOMPARE(high.entityId(second[i].entity), order[i].second);
            QVERIFY(std::abs(second[i].score - order[i].first) < 1e-5);
        }
    }

    // Keys of one text that disagree: the curator's decision first, then the majority.
    void votesOnOneText() {
        const Fixture f;
        auto store = f.emptyStore();
        const auto vector = f.vectorOf("sugar disease");
        store.add(vector, "MESH:D000005", retrieval::KeyOrigin::Training, "sugar disease");
        store.add(vector, "MESH:D000004", retrieval::KeyOrigin::Training, "sugar disease");
        store.add(vector, "MESH:D000004", retrieval::KeyOrigin::Training, "sugar disease");
        for (const char* spec : {"D-T", "exact+D-T"}) {
            AugmentedOptions options;
            options.mode = LinkMode::Sieve;
            options.sieve = retrieval::parseSieve(spec);
            const AugmentedLinker linker(f.model, f.dictionary, &store, options);
            const auto majority = linker.link(std::vector<std::string>{"sugar disease"}, 4)[0];
            QCOMPARE(linker.entityId(majority[0].entity), std::string("MESH:D000004"));
            QCOMPARE(linker.entityId(majority[1].entity), std::string("MESH:D000005"));
            const auto key = store.add(vector, "MESH:D000005", retrieval::KeyOrigin::Corrected, "sugar disease");
            const auto curated = linker.link(std::vector<std::string>{"sugar disease"}, 4)[0];
            QCOMPARE(linker.entityId(curated[0].entity), std::string("MESH:D000005"));
            QVERIFY(store.remove(key));
        }
    }

    // O-C: the mean of a concept's unit name vectors, by hand.
    void conceptVectors() {
        const Fixture f;
        AugmentedOptions options;
        options.mode = LinkMode::Sieve;
        options.sieve = retrieval::parseSieve("O-C");
        const AugmentedLinker linker(f.model, f.dictionary, nullptr, options);
        const std::string text = "heart trouble";
        const auto mention = f.vectorOf(text);
        const std::size_t dimension = f.model.dimension();
        std::map<std::string, std::vector<double>> sums;
        for (std::size_t e = 0; e < f.dictionary.size(); ++e) {
            const auto row = f.model.entryVectors().subspan(e * dimension, dimension);
            double norm = 0.0;
            for (const float x : row) norm += double(x) * x;
            for (const auto& id : f.dictionary[e].ids) {
                auto& sum = sums[id];
                sum.resize(dimension, 0.0);
                for (std::size_t d = 0; d < dimension; ++d) sum[d] += row[d] / std::sqrt(norm);
            }
        }
        std::vector<std::pair<double, std::string>> order;
        for (const auto& [id, sum] : sums) {
            std::vector<float> mean(sum.begin(), sum.end());
            order.push_back({cosine(mention, mean), id});
        }
        std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        const auto ranked = linker.link(std::vector<std::string>{text}, 8)[0];
        QCOMPARE(ranked.size(), order.size());
        for (std::size_t i = 0; i < ranked.size(); ++i) {
            QCOMPARE(linker.entityId(ranked[i].entity), order[i].second);
            QVERIFY(std::abs(ranked[i].score - order[i].first) < 1e-5);
        }
    }

    // Sieve mode keeps each mention's nearest ontology names as its "model list" (the ontology does
    // not change while curators decide): the O-T and OD-T stages ranked from those lists give what
    // searching every name gives, also where a list is too short for k distinct entities and the
    // linker has to search after all; a mode without O-T keeps no list.
    void sieveReadsKeptOntologyLists() {
        const Fixture f;
        auto store = f.emptyStore();
        const auto [top, other] = f.topAndOther("sugar disease");
        store.add(f.vectorOf("sugar disease"), other, retrieval::KeyOrigin::Training, "sugar disease");
        const std::vector<std::string> texts = kMentions;
        const std::size_t dimension = f.model.dimension();
        const auto vectors = f.model.encodeMentions(texts);
        for (const char* spec : {"O-T", "OD-T", "D-T+OD-T"})
            for (const std::size_t depth : {std::size_t{2}, std::size_t{64}}) {
                AugmentedOptions options;
                options.mode = LinkMode::Sieve;
                options.sieve = retrieval::parseSieve(spec);
                options.modelDepth = depth;
                const AugmentedLinker linker(f.model, f.dictionary, &store, options);
                const auto lists = linker.modelLists(texts, vectors);
                QCOMPARE(lists.size(), texts.size());
                for (std::size_t q = 0; q < texts.size(); ++q) {
                    // The list: the nearest names by cosine, best first, `depth` of them.
                    QCOMPARE(lists[q].size(), std::min(depth, f.dictionary.size()));
                    const auto mention = std::span<const float>(vectors).subspan(q * dimension, dimension);
                    for (std::size_t i = 0; i < lists[q].size(); ++i) {
                        const auto& row = lists[q][i];
                        const double byHand = cosine(
                            mention, f.model.entryVectors().subspan(std::size_t{row.entry} * dimension, dimension));
                        QVERIFY2(std::abs(row.score - byHand) < 1e-5, spec);
                        if (i > 0) QVERIFY(lists[q][i - 1].score >= row.score);
                    }
                }
                const std::vector<ModelList> none(texts.size());
                for (const std::size_t k : {std::size_t{1}, std::size_t{4}, std::size_t{6}}) {
                    const auto kept = linker.combine(texts, vectors, lists, k);
                    const auto searched = linker.combine(texts, vectors, none, k);
                    for (std::size_t q = 0; q < texts.size(); ++q) {
                        QCOMPARE(kept[q].size(), searched[q].size());
                        // Six entities: a list too short for k of them was searched for the rest
                        // (in D-T+OD-T a mention near the key is answered by D-T alone).
                        if (std::string_view(spec) == "O-T") QCOMPARE(kept[q].size(), k);
                        for (std::size_t i = 0; i < kept[q].size(); ++i) {
                            // Tolerance 1e-5: FAISS computes a batch's scores with BLAS, and the
                            // lists came from another batch. Equal entities unless tied that close.
                            QVERIFY2(std::abs(kept[q][i].score - searched[q][i].score) < 1e-5, spec);
                            if (kept[q][i].entity != searched[q][i].entity) {
                                const auto same =
                                    std::find_if(searched[q].begin(), searched[q].end(),
                                                 [&](const auto& r) { return r.entity == kept[q][i].entity; });
                                QVERIFY2(same != searched[q].end() && std::abs(same->score - kept[q][i].score) < 1e-5,
                                         "only entities tied within 1e-5 may swap places");
                            }
                            QCOMPARE(kept[q][i].sieveStage, searched[q][i].sieveStage);
                        }
                    }
                }
            }
        AugmentedOptions keysOnly;
        keysOnly.mode = LinkMode::Sieve;
        keysOnly.sieve = retrieval::parseSieve("D-T");
        const AugmentedLinker linker(f.model, f.dictionary, &store, keysOnly);
        for (const auto& list : linker.modelLists(texts, vectors)) QVERIFY(list.empty());
    }

    // Sieve mode hands out each mention's nearest key when a stage searched the keys (what
    // ModelCandidates keeps for a decision's reach, so that it does not search them again): the
    // key and the similarity a search of the same vectors gives; nothing when no stage did.
    void sieveGivesTheNearestKeyItSearched() {
        const Fixture f;
        auto store = f.emptyStore();
        for (const char* text : {"sugar disease", "heart stop", "lump in breast"})
            store.add(f.vectorOf(text), f.topAndOther(text).second, retrieval::KeyOrigin::Training, text);
        const std::vector<std::string> texts = kMentions;
        const auto vectors = f.model.encodeMentions(texts);
        const auto direct = store.search(vectors, 1);
        const auto lists = [&](const AugmentedLinker& linker) { return linker.modelLists(texts, vectors); };
        for (const char* spec : {"D-T", "OD-T", "O-T+OD-T", "exact+D-T+O-T"}) {
            AugmentedOptions options;
            options.mode = LinkMode::Sieve;
            options.sieve = retrieval::parseSieve(spec);
            options.sieve.threshold = 2.0;  // no search stage but the last decides: each one runs
            const AugmentedLinker linker(f.model, f.dictionary, &store, options);
            std::vector<std::vector<retrieval::DatastoreNeighbor>> nearest{{}};  // cleared by combine
            (void)linker.combine(texts, vectors, lists(linker), 4, &nearest);
            QCOMPARE(nearest.size(), texts.size());
            for (std::size_t q = 0; q < texts.size(); ++q) {
                QCOMPARE(nearest[q].size(), std::size_t{1});
                // 1e-6: the same vectors and the same dot products (the keys are distinct texts,
                // so no tie can name another key).
                QCOMPARE(nearest[q][0].key, direct[q][0].key);
                QVERIFY2(std::abs(nearest[q][0].similarity - direct[q][0].similarity) < 1e-6f, spec);
            }
        }
        // No stage searched the keys: O-T decides every mention before D-T (threshold -1), or
        // no stage reads them at all.
        for (const auto& [spec, threshold] : {std::pair{"O-T+D-T", -1.0}, std::pair{"O-T", 0.95}}) {
            AugmentedOptions options;
            options.mode = LinkMode::Sieve;
            options.sieve = retrieval::parseSieve(spec);
            options.sieve.threshold = threshold;
            const AugmentedLinker linker(f.model, f.dictionary, &store, options);
            std::vector<std::vector<retrieval::DatastoreNeighbor>> nearest{{}};
            const auto ranked = linker.combine(texts, vectors, lists(linker), 4, &nearest);
            QVERIFY2(nearest.empty(), spec);
            for (const auto& row : ranked) QCOMPARE(row.front().sieveStage, 0);
        }
        // Every mention of the batch is a key's text: the exact stage decides them all.
        {
            AugmentedOptions options;
            options.mode = LinkMode::Sieve;
            options.sieve = retrieval::parseSieve("exact+D-T");
            const AugmentedLinker linker(f.model, f.dictionary, &store, options);
            const std::vector<std::string> keyTexts{"sugar disease", "heart stop"};
            const auto keyVectors = f.model.encodeMentions(keyTexts);
            std::vector<std::vector<retrieval::DatastoreNeighbor>> nearest{{}};
            const auto ranked =
                linker.combine(keyTexts, keyVectors, linker.modelLists(keyTexts, keyVectors), 4, &nearest);
            QVERIFY(nearest.empty());
            for (const auto& row : ranked) QCOMPARE(row.front().sieveStage, 0);
        }
        // An empty datastore: searched, nothing found.
        const auto empty = f.emptyStore();
        AugmentedOptions options;
        options.mode = LinkMode::Sieve;
        options.sieve = retrieval::parseSieve("OD-T");
        const AugmentedLinker linker(f.model, f.dictionary, &empty, options);
        std::vector<std::vector<retrieval::DatastoreNeighbor>> nearest;
        (void)linker.combine(texts, vectors, lists(linker), 4, &nearest);
        QCOMPARE(nearest.size(), texts.size());
        for (const auto& list : nearest) QVERIFY(list.empty());
    }

    // The exact stage answers a text that is a KB name, before any vector is compared.
    void exactStage() {
        const Fixture f;
        AugmentedOptions options;
        options.mode = LinkMode::Sieve;
        options.sieve = retrieval::parseSieve("exact+O-T");
        const AugmentedLinker linker(f.model, f.dictionary, nullptr, options);
        const auto ranked = linker.link(std::vector<std::string>{"kidney failure", "tumor", "heart trouble"}, 4);
        QCOMPARE(linker.entityId(ranked[0][0].entity), std::string("MESH:D000005"));
        QCOMPARE(ranked[0][0].sieveStage, 0);
        QCOMPARE(ranked[0].size(), std::size_t{1});
        // A name of two entities: both, by first appearance.
        QCOMPARE(ranked[1].size(), std::size_t{2});
        QCOMPARE(linker.entityId(ranked[1][0].entity), std::string("MESH:D000002"));
        QCOMPARE(linker.entityId(ranked[1][1].entity), std::string("MESH:D000003"));
        // No name spells it: O-T answers.
        QCOMPARE(ranked[2][0].sieveStage, 1);
    }

    // The test: a correction changes the prediction of the identical mention in another
    // document at once, and undo changes it back.
    // The same with the loop's vectors in half precision (a large project's, target_vectors.h).
    void correctionChangesTheSameMentionElsewhere() {
        for (const std::size_t budget : {TargetVectors::kDefaultFloatBudget, std::size_t{0}})
            for (const LinkMode mode : {LinkMode::Sieve, LinkMode::Knn}) {
                const Fixture f;
                auto store = f.emptyStore();
                AugmentedOptions options;
                options.mode = mode;
                options.sieve = retrieval::parseSieve("D-T+OD-T");
                // kNN-BioEL's lambda = 0.1 lets one key outvote a confident model only when the
                // model hesitates; a curator's correction should win, hence lambda 0.9 here.
                options.knn = {.k = 4, .lambda = 0.9, .beta1 = 0.01, .beta2 = 1.0};
                const AugmentedLinker linker(f.model, f.dictionary, &store, options);
                const std::vector<LinkTarget> targets = {{"1", 0, 13, "heart trouble", "heart trouble"},
                                                         {"2", 40, 53, "heart trouble", "heart trouble"},
                                                         {"2", 60, 73, "sugar disease", "sugar disease"}};
                FeedbackLoop loop(linker, store, targets, budget);
                const std::vector<std::size_t> all = {0, 1, 2};
                const auto before = loop.predict(all, 1);
                QCOMPARE(loop.halfPrecision(), budget == 0);
                QVERIFY(loop.memoryBytes() > 0);
                const std::string predicted = linker.entityId(before[1][0].entity);
                const std::string corrected = predicted == "MESH:D000004" ? "MESH:D000005" : "MESH:D000004";

                const auto effect = loop.record(0, corrected, DecisionKind::Correct);
                QVERIFY(effect.key.has_value());
                QCOMPARE(store.size(), std::size_t{1});
                QCOMPARE(effect.sameSurface.size(), std::size_t{1});
                QCOMPARE(effect.sameSurface[0].target, std::size_t{1});
                QCOMPARE(effect.sameSurface[0].before, predicted);
                QCOMPARE(effect.sameSurface[0].after, corrected);
                QVERIFY(effect.sameSurface[0].changed());
                const auto after = loop.predict(all, 1);
                QCOMPARE(linker.entityId(after[1][0].entity), corrected);

                QVERIFY(loop.undo(*effect.key));
                QVERIFY(!loop.undo(*effect.key));
                QCOMPARE(linker.entityId(loop.predict(all, 1)[1][0].entity), predicted);

                // A rejection adds no key; an unknown entity is refused.
                QVERIFY(!loop.record(0, corrected, DecisionKind::Reject).key);
                QCOMPARE(store.size(), std::size_t{0});
                QVERIFY_THROWS_EXCEPTION(Error, loop.record(0, "MESH:D999999", DecisionKind::Correct));
                QVERIFY_THROWS_EXCEPTION(Error, loop.record(9, corrected, DecisionKind::Correct));
            }
    }

    void trainingDatastore() {
        const Fixture f;
        std::vector<eval::EvalQuery> queries = {query("1", 0, "heart trouble", "MESH:D000001"),
                                                query("1", 20, "sugar disease", "MESH:D000004")};
        // A composite of two parts is left out; one part with two ids: a key per id.
        eval::EvalQuery composite = query("2", 0, "breast and lung lumps", "MESH:D000002");
        composite.parts = {"breast lump", "lung lump"};
        composite.goldIds = {"MESH:D000002", "MESH:D000003"};
        queries.push_back(composite);
        eval::EvalQuery unsplit = query("2", 30, "heart stop", "MESH:D000006");
        unsplit.goldIds = {"MESH:D000006", "MESH:D000001"};
        queries.push_back(unsplit);
        QCOMPARE(keyIds(composite), std::vector<std::string>{});
        QCOMPARE(keyIds(unsplit).size(), std::size_t{2});

        TrainingDatastoreStatistics statistics;
        const auto store = buildTrainingDatastore(
            f.model, queries, [](const eval::EvalQuery& q, std::size_t part) { return q.parts[part]; },
            f.encoder.fingerprint(), nullptr, &statistics);
        QCOMPARE(statistics.mentions, std::size_t{4});
        QCOMPARE(statistics.compositesLeftOut, std::size_t{1});
        QCOMPARE(statistics.keys, std::size_t{4});  // one each, two for the mention of two ids
        QCOMPARE(store.size(), std::size_t{4});
        QCOMPARE(store.encoderFingerprint(), f.encoder.fingerprint());
        // Each key is its mention's vector, with its text as source.
        const auto keys = store.keys();
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const auto vector = f.vectorOf(keys[i].source);
            QVERIFY(cosine(vector, store.keyVectors().subspan(i * store.dimension(), store.dimension())) > 0.99999);
        }
        QVERIFY(std::none_of(keys.begin(), keys.end(), [](const auto& k) { return k.source == "lung lump"; }));
        std::vector<std::string> stopIds;
        for (const auto& k : keys)
            if (k.source == "heart stop") stopIds.push_back(store.entities()[k.entity]);
        QCOMPARE(stopIds, (std::vector<std::string>{"MESH:D000006", "MESH:D000001"}));
    }

    // The walk: a mention the model gets wrong, repeated in later documents, is right there once
    // corrected; without feedback it stays wrong. The walk's keys are gone afterwards.
    void simulatedCuration() {
        const Fixture f;
        auto store = f.emptyStore();
        store.add(f.vectorOf("chest pain attack"), "MESH:D000001", retrieval::KeyOrigin::Training, "chest pain attack");
        AugmentedOptions options;
        options.mode = LinkMode::Sieve;
        options.sieve = retrieval::parseSieve("D-T+OD-T");
        const AugmentedLinker linker(f.model, f.dictionary, &store, options);
        // Gold is what the linker does not predict: wrong in every document without feedback.
        const std::string predicted =
            linker.entityId(linker.link(std::vector<std::string>{"sugar disease"}, 1)[0][0].entity);
        const std::string gold = predicted == "MESH:D000004" ? "MESH:D000005" : "MESH:D000004";
        std::vector<eval::EvalQuery> queries;
        for (const char* document : {"10", "11", "12", "13"})
            queries.push_back(query(document, 0, "sugar disease", gold));
        CurationSimulationOptions simulationOptions;
        const auto simulation = simulateCuration(
            linker, store, queries, [](const eval::EvalQuery& q, std::size_t part) { return q.parts[part]; },
            simulationOptions);
        QCOMPARE(simulation.documents, std::size_t{4});
        QCOMPARE(simulation.steps.size(), std::size_t{5});
        QCOMPARE(simulation.corrections, std::size_t{1});  // the first document's; the rest are right
        QCOMPARE(simulation.accuracyWithout, 0.0);
        QCOMPARE(simulation.accuracyWithFeedback, 0.75);
        QCOMPARE(*simulation.steps[0].remainingWithFeedback, 0.0);
        QCOMPARE(*simulation.steps[1].remainingWithFeedback, 1.0);
        QCOMPARE(*simulation.steps[1].remainingWithout, 0.0);
        QVERIFY(!simulation.steps[4].remainingWithFeedback);
        QCOMPARE(simulation.steps[4].onlineWithFeedback, 0.75);
        QCOMPARE(store.size(), std::size_t{1});
        const std::string csv = curationCsv(simulation);
        QVERIFY(csv.starts_with("documents_done,"));
        QCOMPARE(std::count(csv.begin(), csv.end(), '\n'), 6L);
    }

    // The review queue's linker with the run and its datastore: the reach of a mention's key is
    // what adding that key and searching shows, a decision moves the identical mention, the other
    // linkers' proposals reach the signals, and reset() takes the walk's keys back.
    void runReviewLinker() {
        const Fixture f;
        auto store = f.emptyStore();
        // Training keys, so the datastore has its k = 2 nearest for every mention.
        for (const char* text : {"chest pain attack", "lump in breast", "heart stop"})
            store.add(f.vectorOf(text), "MESH:D000006", retrieval::KeyOrigin::Training, text);
        AugmentedOptions options;
        options.mode = LinkMode::Knn;
        options.knn = {.k = 2, .lambda = 0.9, .beta1 = 0.01, .beta2 = 0.05};  // a sharp p_kNN: the exact key wins
        const AugmentedLinker linker(f.model, f.dictionary, &store, options);
        const std::string predicted =
            linker.entityId(linker.link(std::vector<std::string>{"heart trouble"}, 1)[0][0].entity);
        const std::string gold = predicted == "MESH:D000001" ? "MESH:D000005" : "MESH:D000001";
        std::vector<eval::EvalQuery> queries = {
            query("1", 0, "heart trouble", gold), query("1", 20, "sugar disease", "MESH:D000004"),
            query("2", 0, "Heart  Trouble", gold), query("2", 30, "kidney trouble", "MESH:D000005")};
        const auto input = [](const eval::EvalQuery& q, std::size_t part) { return q.parts[part]; };
        queries[2].parts = {"heart trouble"};  // the query text the normalizer makes
        const std::vector<std::vector<std::string>> others = {{"A", "B", "C", "D"}};
        RunReviewLinker review(linker, store, queries, input, others);
        QCOMPARE(review.size(), std::size_t{4});
        const auto before = review.signals(2);
        QCOMPARE(before.proposal, predicted);
        QCOMPARE(before.others, std::vector<std::string>{"C"});
        QVERIFY(before.confidence >= 0.0 && before.confidence <= 1.0);

        // Reach against the truth: add mention q's key, search every other mention's 2 nearest.
        const std::vector<std::uint8_t> none(4, 0);
        for (std::size_t q = 0; q < 4; ++q) {
            const auto key = f.vectorOf(queries[q].parts[0]);
            const std::uint64_t id = store.add(key, "MESH:D000002", retrieval::KeyOrigin::Corrected);
            std::size_t entered = 0, identical = 0;
            for (std::size_t other = 0; other < 4; ++other) {
                if (other == q) continue;
                const auto nearest = store.search(f.vectorOf(queries[other].parts[0]), 2)[0];
                const bool in = std::any_of(nearest.begin(), nearest.end(), [&](const auto& n) { return n.key == id; });
                entered += in ? 1 : 0;
                identical += in && queries[other].parts[0] == queries[q].parts[0] ? 1 : 0;
            }
            store.remove(id);
            QCOMPARE(review.reach(q, none, false), entered);
            QCOMPARE(review.reach(q, none, true), entered - identical);
        }
        QVERIFY(review.reach(0, none, false) >= 1);  // the identical mention at least (cosine 1)
        std::vector<std::uint8_t> decided(4, 0);
        decided[2] = 1;
        QCOMPARE(review.reach(0, decided, false), review.reach(0, none, false) - 1);

        // The decision on mention 0 moves mention 2 (same text) to the gold.
        const std::vector<std::string> ids{gold};
        const auto changed = review.decide(0, ids, false);
        QVERIFY(std::find(changed.begin(), changed.end(), 2) != changed.end());
        QCOMPARE(review.signals(2).proposal, gold);
        QCOMPARE(review.keysAdded(), std::size_t{1});
        QCOMPARE(store.size(), std::size_t{4});
        review.reset();
        QCOMPARE(store.size(), std::size_t{3});
        QCOMPARE(review.keysAdded(), std::size_t{0});
        QCOMPARE(review.signals(2).proposal, predicted);

        // A walk by the queue: every mention decided, the split right at the end; a second walk
        // starts where the first did (the linker is reset), so both orders start alike.
        const auto mentions = [&] {
            std::vector<ReviewMention> list;
            for (const auto& q : queries) list.push_back({q.document, q.parts[0], q.goldIds});
            return list;
        }();
        ReviewWalkOptions walkOptions;
        const auto queue = simulateReview(review, mentions, walkOptions);
        walkOptions.order = ReviewOrderKind::Document;
        const auto document = simulateReview(review, mentions, walkOptions);
        QCOMPARE(queue.steps.front().accuracy, document.steps.front().accuracy);
        QCOMPARE(queue.steps.back().accuracy, 1.0);
        QCOMPARE(document.steps.back().accuracy, 1.0);
        QVERIFY(queue.steps.back().decisions <= 4);

        QVERIFY_THROWS_EXCEPTION(Error, RunReviewLinker(linker, store, queries, input, {{"A"}}));
    }

    void refusals() {
        const Fixture f;
        retrieval::KnnDatastore wrong(f.model.dimension() + 1, "other");
        AugmentedOptions options;
        options.mode = LinkMode::Knn;
        QVERIFY_THROWS_EXCEPTION(Error, AugmentedLinker(f.model, f.dictionary, &wrong, options));
        options.knn.lambda = 1.5;
        QVERIFY_THROWS_EXCEPTION(Error, AugmentedLinker(f.model, f.dictionary, nullptr, options));
        options.mode = LinkMode::Sieve;
        options.sieve.stages.clear();
        QVERIFY_THROWS_EXCEPTION(Error, AugmentedLinker(f.model, f.dictionary, nullptr, options));
        // Without a datastore, kNN is the model alone.
        options.mode = LinkMode::Knn;
        options.knn = {};
        const AugmentedLinker alone(f.model, f.dictionary, nullptr, options);
        const auto ranked = alone.link(std::vector<std::string>{"heart trouble"}, 3)[0];
        const auto model = f.model.rank(std::vector<std::string>{"heart trouble"}, 1)[0];
        QCOMPARE(ranked[0].entry, model[0].entry);
        QCOMPARE(ranked[0].knnProbability, 0.0);
    }
};

QTEST_APPLESS_MAIN(TestAugmentedLinker)
#include "test_augmented_linker.moc"
