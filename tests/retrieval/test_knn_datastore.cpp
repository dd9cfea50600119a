// kNN-BioEL's datastore: cosine search checked against hand-computed values and a double
// precision brute force, the tie order, removal (undo) and id stability, per-entity concept
// vectors, saving and loading, refusal of another encoder's datastore, and damaged files; the
// reach of a key before it is added (datastore_reach.h) against adding it and searching; kept
// k-nearest lists with later keys merged in against a new search.
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

#include "fixtures.h"
#include "retrieval/datastore_reach.h"
#include "retrieval/knn_datastore.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

using Vec = std::vector<float>;

constexpr float kTolerance = 1e-6f;

bool throwsError(const std::function<void()>& action, std::string_view fragment) {
    try {
        action();
    } catch (const ParseError&) {
        return false;  // these are errors of the arguments, not of a file
    } catch (const Error& e) {
        return std::string_view(e.what()).find(fragment) != std::string_view::npos;
    }
    return false;
}

std::vector<std::uint64_t> keysOf(const std::vector<DatastoreNeighbor>& list) {
    std::vector<std::uint64_t> keys;
    for (const auto& neighbor : list) keys.push_back(neighbor.key);
    return keys;
}

std::vector<float> gaussian(std::uint32_t seed, std::size_t count) {
    std::mt19937 random(seed);
    std::normal_distribution<float> normal;
    std::vector<float> values(count);
    for (auto& value : values) value = normal(random);
    return values;
}

double cosine(std::span<const float> a, std::span<const float> b) {
    double ab = 0, aa = 0, bb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        ab += double(a[i]) * b[i];
        aa += double(a[i]) * a[i];
        bb += double(b[i]) * b[i];
    }
    return ab / std::sqrt(aa * bb);
}

std::uint64_t readU64(const std::string& bytes, std::size_t at) {
    std::uint64_t value = 0;
    std::memcpy(&value, bytes.data() + at, 8);  // little-endian machine, little-endian file
    return value;
}
void writeU64(std::string& bytes, std::size_t at, std::uint64_t value) { std::memcpy(bytes.data() + at, &value, 8); }
void writeU32(std::string& bytes, std::size_t at, std::uint32_t value) { std::memcpy(bytes.data() + at, &value, 4); }
void writeF32(std::string& bytes, std::size_t at, float value) { std::memcpy(bytes.data() + at, &value, 4); }

// Recomputes the trailing CRC-32, so that a deliberately inconsistent file passes the checksum
// and reaches the structural checks.
void reseal(std::string& bytes) {
    const std::size_t body = bytes.size() - 4;
    const auto crc =
        static_cast<std::uint32_t>(crc32_z(crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(bytes.data()), body));
    writeU32(bytes, body, crc);
}

// Offsets of the sections of a saved file (the layout in knn_datastore.cpp).
struct Layout {
    std::size_t fingerprintSize = 28, nextId = 0, entityCount = 0, entityBytes = 0, entityText = 0, entityEnds = 0,
                keyCount = 0, sourceBytes = 0, keyIds = 0, keyEntities = 0, origins = 0, sourceEnds = 0, sourceText = 0,
                vectors = 0;
};
Layout layoutOf(const std::string& bytes, std::size_t dimension) {
    Layout at;
    at.nextId = 36 + readU64(bytes, at.fingerprintSize);
    at.entityCount = at.nextId + 8;
    at.entityBytes = at.entityCount + 8;
    at.entityText = at.entityBytes + 8;
    at.entityEnds = at.entityText + readU64(bytes, at.entityBytes);
    at.keyCount = at.entityEnds + 4 * readU64(bytes, at.entityCount);
    at.sourceBytes = at.keyCount + 8;
    const std::uint64_t keys = readU64(bytes, at.keyCount);
    at.keyIds = at.sourceBytes + 8;
    at.keyEntities = at.keyIds + 8 * keys;
    at.origins = at.keyEntities + 4 * keys;
    at.sourceEnds = at.origins + keys;
    at.sourceText = at.sourceEnds + 8 * keys;
    at.vectors = at.sourceText + readU64(bytes, at.sourceBytes);
    if (at.vectors + keys * dimension * 4 + 4 != bytes.size())
        throw std::logic_error("the test's idea of the file layout is out of date");
    return at;
}

}  // namespace

class TestKnnDatastore : public QObject {
    Q_OBJECT

    test::FixtureDir dir_;

    // Three keys of three entities, small enough to check by hand.
    static KnnDatastore smallStore() {
        KnnDatastore store(3, "enc-A");
        store.add(Vec{1, 0, 0}, "MESH:D1", KeyOrigin::Training, "train:1:0-4");
        store.add(Vec{1, 1, 0}, "MESH:D2", KeyOrigin::Accepted, "decision-7");
        store.add(Vec{0, 0, 2}, "OMIM:3", KeyOrigin::Corrected);
        return store;
    }

    // Keys of several entities, all origins, UTF-8 and empty sources, and removals, so that
    // storage order differs from id order and the next id is past the largest live one.
    static KnnDatastore mixedStore(std::size_t dimension, std::size_t count, std::uint32_t seed) {
        KnnDatastore store(dimension, "bert-base:sha256:0123");
        const auto values = gaussian(seed, count * dimension);
        for (std::size_t i = 0; i < count; ++i) {
            const auto origin = static_cast<KeyOrigin>(i % 3);
            const std::string source =
                i % 4 == 0 ? std::string() : "train:PMID" + std::to_string(i) + ":é→" + std::to_string(i);
            store.add(std::span(values).subspan(i * dimension, dimension), "MESH:D" + std::to_string(i % 7), origin,
                      source);
        }
        store.add(gaussian(seed + 1, dimension), "UMLS:C0000001", KeyOrigin::Corrected, "only key");
        // (Checked by the callers' expectations of size() and nextKeyId().)
        for (std::uint64_t key = 2; key <= count; key += 5) store.remove(key);
        store.remove(count + 1);  // UMLS:C0000001 stays interned with no keys
        return store;
    }

    std::filesystem::path savedSmall(std::string_view name) {
        const auto file = dir_.path(name);
        smallStore().save(file);
        return file;
    }

    void expectLoadFails(const std::filesystem::path& file, std::string_view fragment) {
        LINKSCOPE_EXPECT_PARSE_ERROR(KnnDatastore::load(file), file, 0, fragment);
    }
    void expectBytesFail(const std::string& bytes, std::string_view name, std::string_view fragment) {
        const auto file = dir_.write(name, bytes);
        expectLoadFails(file, fragment);
    }

private Q_SLOTS:
    void originNames() {
        QCOMPARE(keyOriginName(KeyOrigin::Training), std::string_view("training"));
        QCOMPARE(keyOriginName(KeyOrigin::Accepted), std::string_view("accepted"));
        QCOMPARE(keyOriginName(KeyOrigin::Corrected), std::string_view("corrected"));
    }

    void searchesByCosineComputedByHand() {
        KnnDatastore store = smallStore();
        const std::uint64_t opposite = store.add(Vec{-3, 0, 0}, "MESH:D1", KeyOrigin::Training);
        QCOMPARE(opposite, std::uint64_t{4});
        // q = (2, 1, 0): cos with (1,0,0) = 2/sqrt5, with (1,1,0) = 3/sqrt10, with (0,0,2) = 0,
        // with (-3,0,0) = -2/sqrt5.
        const auto lists = store.search(Vec{2, 1, 0}, 4);
        QCOMPARE(lists.size(), std::size_t{1});
        const auto& list = lists[0];
        QCOMPARE(keysOf(list), (std::vector<std::uint64_t>{2, 1, 3, 4}));
        QVERIFY(std::abs(list[0].similarity - 3.0 / std::sqrt(10.0)) < kTolerance);
        QVERIFY(std::abs(list[1].similarity - 2.0 / std::sqrt(5.0)) < kTolerance);
        QVERIFY(std::abs(list[2].similarity) < kTolerance);
        QVERIFY(std::abs(list[3].similarity + 2.0 / std::sqrt(5.0)) < kTolerance);
        QCOMPARE(store.entities()[list[0].entity], std::string("MESH:D2"));
        QCOMPARE(list[1].entity, list[3].entity);  // both keys of MESH:D1
        QCOMPARE(store.entities()[list[2].entity], std::string("OMIM:3"));
        // k = 2: the two best; a raw query of another length gives the same cosines.
        const auto top2 = store.search(Vec{20, 10, 0}, 2)[0];
        QCOMPARE(keysOf(top2), (std::vector<std::uint64_t>{2, 1}));
        QCOMPARE(top2[0].similarity, list[0].similarity);
    }

    void normalizesOnAdd() {
        KnnDatastore store(3, "enc");
        const auto key = store.add(Vec{3, 4, 0}, "MESH:D5", KeyOrigin::Accepted, "d-1");
        QCOMPARE(key, std::uint64_t{1});
        const auto vectors = store.keyVectors();
        QCOMPARE(vectors.size(), std::size_t{3});
        QVERIFY(std::abs(vectors[0] - 0.6f) < kTolerance);
        QVERIFY(std::abs(vectors[1] - 0.8f) < kTolerance);
        QCOMPARE(vectors[2], 0.0f);
        const auto info = store.info(key);
        QVERIFY(info.has_value());
        QCOMPARE(info->key, key);
        QCOMPARE(store.entities()[info->entity], std::string("MESH:D5"));
        QVERIFY(info->origin == KeyOrigin::Accepted);
        QCOMPARE(info->source, std::string("d-1"));
        // Its own vector, scaled, is at cosine 1.
        QVERIFY(std::abs(store.search(Vec{30, 40, 0}, 1)[0][0].similarity - 1.0f) < kTolerance);
    }

    void tiesGoToTheLowerKeyId() {
        KnnDatastore store(3, "enc");
        // All three normalize to exactly (0, 1, 0): their cosines with any query are equal.
        const auto a = store.add(Vec{0, 3, 0}, "E1", KeyOrigin::Training);
        const auto b = store.add(Vec{0, 1, 0}, "E2", KeyOrigin::Training);
        const auto c = store.add(Vec{0, 5, 0}, "E3", KeyOrigin::Training);
        const auto d = store.add(Vec{0, 2, 0}, "E4", KeyOrigin::Training);
        QCOMPARE(keysOf(store.search(Vec{1, 1, 0}, 4)[0]), (std::vector<std::uint64_t>{a, b, c, d}));
        QCOMPARE(keysOf(store.search(Vec{1, 1, 0}, 2)[0]), (std::vector<std::uint64_t>{a, b}));
        // Removing `a` moves d into its row; the order is still by id, not by row.
        QVERIFY(store.remove(a));
        QCOMPARE(store.keys().front().key, d);
        QCOMPARE(keysOf(store.search(Vec{1, 1, 0}, 2)[0]), (std::vector<std::uint64_t>{b, c}));
        // Different vectors at exactly equal cosines: (1,0,0) and (0,1,0) against (1,1,0).
        KnnDatastore axes(3, "enc");
        const auto y = axes.add(Vec{0, 1, 0}, "Y", KeyOrigin::Training);
        const auto x = axes.add(Vec{1, 0, 0}, "X", KeyOrigin::Training);
        const auto list = axes.search(Vec{1, 1, 0}, 2)[0];
        QCOMPARE(list[0].similarity, list[1].similarity);
        QCOMPARE(keysOf(list), (std::vector<std::uint64_t>{y, x}));
    }

    void kLargerThanSizeZeroAndEmpty() {
        const KnnDatastore store = smallStore();
        QCOMPARE(store.search(Vec{1, 0, 0}, 100)[0].size(), std::size_t{3});
        QVERIFY(store.search(Vec{1, 0, 0}, 0)[0].empty());
        QVERIFY(store.search({}, 5).empty());  // no queries, no lists
        const KnnDatastore empty(3, "enc");
        QCOMPARE(empty.size(), std::size_t{0});
        const auto lists = empty.search(Vec{1, 0, 0, 0, 1, 0}, 5);
        QCOMPARE(lists.size(), std::size_t{2});
        QVERIFY(lists[0].empty() && lists[1].empty());
        QVERIFY(empty.conceptVectors().entities.empty());
        QVERIFY(empty.keyVectors().empty());
        QVERIFY(empty.keys().empty());
    }

    void batchOfQueriesEqualsOneByOne() {
        const KnnDatastore store = mixedStore(19, 300, 5);
        const auto queries = gaussian(77, 19 * 6);
        const auto batch = store.search(queries, 7);
        QCOMPARE(batch.size(), std::size_t{6});
        for (std::size_t q = 0; q < 6; ++q) {
            const auto single = store.search(std::span(queries).subspan(q * 19, 19), 7)[0];
            QCOMPARE(keysOf(batch[q]), keysOf(single));
            for (std::size_t i = 0; i < single.size(); ++i) QCOMPARE(batch[q][i].similarity, single[i].similarity);
        }
    }

    void productBatchEqualsOneByOne() {
        // From 8 queries on, search() scores by matrix products and re-scores only the rows that
        // can still enter a top k by the dot product one query uses, so each query's list is the
        // one it gets alone: the same keys in the same order (ties by key id included) and the
        // same similarities (compared within kTolerance, though the design makes them equal).
        // 300 queries and 5,000 keys span two blocks of each (256 queries, 4,096 keys); a
        // dimension of 37 is not a multiple of the kernel's lanes.
        const std::size_t dimension = 37;
        KnnDatastore store(dimension, "enc");
        const auto distinct = gaussian(31, 1000 * dimension);
        for (std::size_t i = 0; i < 5000; ++i) {
            // Every vector five times over (as one training mention's text is, many times): exact
            // ties, which must come out by key id however the product rounded them.
            const std::size_t row = i % 1000;
            store.add(std::span(distinct).subspan(row * dimension, dimension), "E" + std::to_string(row % 90),
                      KeyOrigin::Training);
        }
        auto queries = gaussian(32, 300 * dimension);
        // Some queries are keys themselves (similarity 1, five ties at the top).
        for (std::size_t q = 0; q < 300; q += 7)
            std::copy_n(distinct.begin() + static_cast<std::ptrdiff_t>(q * dimension), dimension,
                        queries.begin() + static_cast<std::ptrdiff_t>(q * dimension));
        for (const std::size_t k : {std::size_t{1}, std::size_t{12}, std::size_t{5001}}) {
            const auto batch = store.search(queries, k);
            QCOMPARE(batch.size(), std::size_t{300});
            for (std::size_t q = 0; q < 300; q += (k > 100 ? 37 : 1)) {
                const auto single = store.search(std::span(queries).subspan(q * dimension, dimension), k)[0];
                QCOMPARE(single.size(), std::min<std::size_t>(k, 5000));
                QCOMPARE(keysOf(batch[q]), keysOf(single));
                for (std::size_t i = 0; i < single.size(); ++i)
                    QVERIFY(std::abs(batch[q][i].similarity - single[i].similarity) <= kTolerance);
            }
            if (k == 12)
                for (std::size_t q = 0; q < 300; q += 7) {
                    // Its own five copies first, by key id, at cosine 1.
                    const std::vector<std::uint64_t> copies{q + 1, q + 1001, q + 2001, q + 3001, q + 4001};
                    const auto keys = keysOf(batch[q]);
                    QCOMPARE(std::vector<std::uint64_t>(keys.begin(), keys.begin() + 5), copies);
                    QVERIFY(std::abs(batch[q][4].similarity - 1.0f) < 1e-5f);
                }
        }
    }

    void mergedKeysEqualANewSearch() {
        // A query's k nearest kept from one search, with each key added since merged in
        // (asNeighbors + mergeNeighbor): after every add, the list a new search gives, keys in
        // the same order (ties by key id) and similarities within kTolerance. The added keys
        // repeat vectors of the store and of each other: exact ties at every depth. Lists start
        // empty (an empty store), then short (k above the size), then full.
        const std::size_t dimension = 37, k = 6;
        KnnDatastore store(dimension, "enc");
        const auto distinct = gaussian(41, 40 * dimension);
        auto queries = gaussian(42, 20 * dimension);
        std::copy_n(distinct.begin(), 3 * dimension, queries.begin());  // three queries are keys to come
        std::vector<std::vector<DatastoreNeighbor>> lists(20, std::vector<DatastoreNeighbor>(k));
        std::vector<std::size_t> counts(20, 0);
        std::size_t entered = 0, passed = 0;
        for (std::size_t i = 0; i < 120; ++i) {
            const std::size_t row = (i * 7) % 40;  // every vector three times, in another order each time
            const std::uint64_t key = store.add(std::span(distinct).subspan(row * dimension, dimension),
                                                "E" + std::to_string(row % 9), KeyOrigin::Training);
            const auto entries = store.asNeighbors(queries, key);
            QCOMPARE(entries.size(), std::size_t{20});
            const auto searched = store.search(queries, k);
            for (std::size_t q = 0; q < 20; ++q) {
                QCOMPARE(entries[q].key, key);
                QCOMPARE(entries[q].entity, *store.findEntity("E" + std::to_string(row % 9)));
                const auto place = mergeNeighbor(lists[q], counts[q], entries[q]);
                (place ? entered : passed) += 1;
                if (place) QCOMPARE(lists[q][*place].key, key);
                const std::vector<DatastoreNeighbor> merged(lists[q].begin(),
                                                            lists[q].begin() + static_cast<std::ptrdiff_t>(counts[q]));
                QCOMPARE(keysOf(merged), keysOf(searched[q]));
                for (std::size_t j = 0; j < merged.size(); ++j)
                    QVERIFY(std::abs(merged[j].similarity - searched[q][j].similarity) <= kTolerance);
            }
        }
        QVERIFY2(entered > 120 && passed > 120, "keys both entered lists and passed them by");
        // A candidate that ranks last of a full list does not enter; an empty list takes any.
        std::vector<DatastoreNeighbor> full{{1, 0, 0.9f}, {2, 0, 0.5f}};
        std::size_t count = 2;
        QVERIFY(!mergeNeighbor(full, count, {3, 0, 0.5f}));  // equal cosine, newer key: after key 2
        QCOMPARE(mergeNeighbor(full, count, {0, 0, 0.5f}), std::optional<std::size_t>(1));  // older key: before it
        QCOMPARE(keysOf(full), (std::vector<std::uint64_t>{1, 0}));
        QCOMPARE(mergeNeighbor(full, count, {7, 0, 0.95f}), std::optional<std::size_t>(0));
        QCOMPARE(keysOf(full), (std::vector<std::uint64_t>{7, 1}));
        std::vector<DatastoreNeighbor> none;
        count = 0;
        QVERIFY(!mergeNeighbor(none, count, {1, 0, 1.0f}));  // k = 0 holds nothing
        // reserve() makes room without changing what is stored.
        const auto before = store.search(queries, k);
        store.reserve(store.size() + 1000);
        store.reserve(1);  // never shrinks
        QCOMPARE(store.search(queries, k).size(), before.size());
        QCOMPARE(keysOf(store.search(queries, k)[0]), keysOf(before[0]));
        QVERIFY(throwsError([&] { (void)store.asNeighbors(queries, 9999); }, "no key 9999"));
        QVERIFY(throwsError([&] { (void)store.asNeighbors(std::span(queries).first(5), 1); }, "whole rows"));
    }

    void agreesWithDoublePrecisionBruteForce() {
        // A dimension that is not a multiple of the kernel's lanes, so its tail is exercised;
        // several blocks of rows (the search scores rows in blocks).
        const std::size_t dimension = 37;
        const std::size_t count = 4000;
        KnnDatastore store(dimension, "enc");
        const auto keys = gaussian(11, count * dimension);
        for (std::size_t i = 0; i < count; ++i)
            store.add(std::span(keys).subspan(i * dimension, dimension), "E" + std::to_string(i % 50),
                      KeyOrigin::Training);
        const auto queries = gaussian(12, 15 * dimension);
        const std::size_t k = 10;
        const auto lists = store.search(queries, k);
        for (std::size_t q = 0; q < 15; ++q) {
            const auto query = std::span(queries).subspan(q * dimension, dimension);
            std::vector<double> exact(count);
            for (std::size_t i = 0; i < count; ++i)
                exact[i] = cosine(query, std::span(keys).subspan(i * dimension, dimension));
            std::vector<double> sorted = exact;
            std::sort(sorted.begin(), sorted.end(), std::greater<>());
            const auto& list = lists[q];
            QCOMPARE(list.size(), k);
            std::set<std::uint64_t> seen;
            for (std::size_t i = 0; i < k; ++i) {
                const double truth = exact[list[i].key - 1];  // ids 1..count in add order
                QVERIFY2(std::abs(list[i].similarity - truth) < 1e-5, "similarity differs from the exact cosine");
                QVERIFY2(truth >= sorted[k - 1] - 1e-5, "a key outside the exact top k was returned");
                QVERIFY(seen.insert(list[i].key).second);
                if (i > 0) QVERIFY(list[i - 1].similarity >= list[i].similarity);
                QCOMPARE(list[i].entity, *store.findEntity("E" + std::to_string((list[i].key - 1) % 50)));
            }
        }
    }

    void reachAgreesWithAddingTheKey() {
        // What a key would reach, asked before it is added, is what adding it and searching
        // shows: the targets whose k nearest keys then include it. Cosines closer than 1e-5 to
        // a target's k-th are left out of the check (float rounding may count them either way).
        const std::size_t dimension = 19, k = 4, targetCount = 60;
        KnnDatastore store(dimension, "enc");
        const auto keys = gaussian(21, 3 * dimension);  // fewer keys than k at first
        for (std::size_t i = 0; i < 3; ++i)
            store.add(std::span(keys).subspan(i * dimension, dimension), "E" + std::to_string(i), KeyOrigin::Training);
        const auto targets = gaussian(22, targetCount * dimension);
        DatastoreReach reach(store, targets, k);
        QCOMPARE(reach.size(), targetCount);
        QVERIFY(std::abs(reach.targetSimilarity(3, 7) - cosine(std::span(targets).subspan(3 * dimension, dimension),
                                                               std::span(targets).subspan(7 * dimension, dimension))) <
                1e-5);
        QVERIFY(std::abs(reach.targetSimilarity(3, 7) -
                         reach.similarity(3, std::span(targets).subspan(7 * dimension, dimension))) < 1e-6);
        // With fewer than k keys every target takes any new key.
        QCOMPARE(reach.reachedBy(gaussian(23, dimension)).size(), targetCount);
        QVERIFY(std::isinf(reach.threshold(0)));

        const auto newKeys = gaussian(24, 40 * dimension);
        std::size_t checked = 0, reachedSome = 0, partial = 0;
        for (std::size_t i = 0; i < 40; ++i) {
            const auto key = std::span(newKeys).subspan(i * dimension, dimension);
            const auto predicted = reach.reachedBy(key);
            std::vector<float> thresholds(targetCount);
            for (std::size_t t = 0; t < targetCount; ++t) thresholds[t] = reach.threshold(t);
            const std::uint64_t id = store.add(key, "N" + std::to_string(i), KeyOrigin::Corrected);
            const auto lists = store.search(targets, k);
            std::vector<std::size_t> truth;
            for (std::size_t t = 0; t < targetCount; ++t) {
                const double c = cosine(key, std::span(targets).subspan(t * dimension, dimension));
                if (!std::isinf(thresholds[t]) && std::abs(c - thresholds[t]) < 1e-5) continue;  // too close to call
                const bool entered =
                    std::any_of(lists[t].begin(), lists[t].end(), [&](const auto& n) { return n.key == id; });
                const bool said = std::find(predicted.begin(), predicted.end(), t) != predicted.end();
                QCOMPARE(said, entered);
                ++checked;
            }
            reachedSome += predicted.empty() ? 0 : 1;
            partial += predicted.size() < targetCount ? 1 : 0;
            QCOMPARE(reach.keyAdded(key), predicted);
            // The incremental thresholds equal a fresh search's.
            for (std::size_t t = 0; t < targetCount; ++t) {
                const float expected =
                    lists[t].size() < k ? -std::numeric_limits<float>::infinity() : lists[t][k - 1].similarity;
                if (std::isinf(expected))
                    QVERIFY(std::isinf(reach.threshold(t)));
                else
                    QVERIFY(std::abs(reach.threshold(t) - expected) < kTolerance * 10);
            }
        }
        QVERIFY(checked > 1000);
        QVERIFY(reachedSome > 0);
        QVERIFY(partial > 10);  // once the store is full, a key reaches some targets and not others

        // After a removal (undo), refresh() takes the thresholds back down.
        store.remove(store.nextKeyId() - 1);
        std::vector<std::size_t> all(targetCount);
        for (std::size_t t = 0; t < targetCount; ++t) all[t] = t;
        reach.refresh(all);
        const auto lists = store.search(targets, k);
        for (std::size_t t = 0; t < targetCount; ++t) QCOMPARE(reach.threshold(t), lists[t][k - 1].similarity);

        QVERIFY(throwsError([&] { DatastoreReach(store, targets, 0); }, "k must be positive"));
        QVERIFY(throwsError([&] { DatastoreReach(store, std::span(targets).first(dimension + 1), k); }, "rows of"));
        QVERIFY(throwsError([&] { (void)reach.reachedBy(std::vector<float>(dimension + 1, 1.0f)); }, "values"));
        QVERIFY(throwsError([&] { DatastoreReach(store, std::vector<float>(dimension, 0.0f), k); }, "zero vector"));
    }

    void removesAnyKeyAndNeverReusesIds() {
        KnnDatastore store(2, "enc");
        std::vector<std::uint64_t> ids;
        for (int i = 0; i < 6; ++i)
            ids.push_back(store.add(Vec{std::cos(0.3f * i), std::sin(0.3f * i)}, "E" + std::to_string(i % 2),
                                    KeyOrigin::Training, "s" + std::to_string(i)));
        QCOMPARE(ids, (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6}));
        const auto e0 = *store.findEntity("E0");
        QCOMPARE(store.keyCount(e0), std::size_t{3});
        QVERIFY(!store.remove(99));  // unknown
        QVERIFY(!store.remove(0));   // never an id
        QVERIFY(store.remove(1));    // first
        QVERIFY(!store.remove(1));   // twice
        QVERIFY(store.remove(4));    // middle
        QVERIFY(store.remove(6));    // last added
        QCOMPARE(store.size(), std::size_t{3});
        QCOMPARE(store.keyCount(e0), std::size_t{2});  // 3 and 5 remain
        QCOMPARE(store.keyCount(*store.findEntity("E1")), std::size_t{1});
        for (const std::uint64_t gone : {1, 4, 6}) {
            QVERIFY(!store.contains(gone));
            QVERIFY(!store.info(gone).has_value());
        }
        // Every remaining row still pairs its vector with its own info.
        const auto keys = store.keys();
        const auto vectors = store.keyVectors();
        QCOMPARE(keys.size(), std::size_t{3});
        for (std::size_t row = 0; row < keys.size(); ++row) {
            const auto i = static_cast<float>(keys[row].key - 1);
            QVERIFY(std::abs(vectors[row * 2] - std::cos(0.3f * i)) < kTolerance);
            QVERIFY(std::abs(vectors[row * 2 + 1] - std::sin(0.3f * i)) < kTolerance);
            QCOMPARE(keys[row].source, "s" + std::to_string(keys[row].key - 1));
            QVERIFY(store.info(keys[row].key) == keys[row]);
        }
        // A query at key 6's vector finds its neighbours, never key 6 itself.
        for (std::size_t k = 1; k <= 5; ++k) {
            const auto lists = store.search(Vec{std::cos(1.5f), std::sin(1.5f)}, k);
            QCOMPARE(lists[0].size(), std::min<std::size_t>(k, 3));
            for (const auto& neighbor : lists[0]) QVERIFY(neighbor.key != 1 && neighbor.key != 4 && neighbor.key != 6);
        }
        QCOMPARE(keysOf(store.search(Vec{std::cos(1.5f), std::sin(1.5f)}, 5)[0]),
                 (std::vector<std::uint64_t>{5, 3, 2}));
        // The id after the largest ever given, although 6 was removed.
        QCOMPARE(store.add(Vec{1, 0}, "E9", KeyOrigin::Accepted), std::uint64_t{7});
        QCOMPARE(store.nextKeyId(), std::uint64_t{8});
        // Removing everything leaves an empty store that still searches.
        for (const std::uint64_t key : {2, 3, 5, 7}) QVERIFY(store.remove(key));
        QCOMPARE(store.size(), std::size_t{0});
        QVERIFY(store.search(Vec{1, 0}, 3)[0].empty());
        QCOMPARE(store.entities().size(), std::size_t{3});  // E0, E1, E9 stay interned
        QCOMPARE(store.keyCount(e0), std::size_t{0});
        QCOMPARE(store.keyCount(1000), std::size_t{0});
    }

    void conceptVectorsByHand() {
        KnnDatastore store(3, "enc");
        const auto x1 = store.add(Vec{2, 0, 0}, "X", KeyOrigin::Training);
        const auto x2 = store.add(Vec{0, 7, 0}, "X", KeyOrigin::Training);
        const auto y1 = store.add(Vec{0, 0, 5}, "Y", KeyOrigin::Training);
        store.add(Vec{3, 4, 0}, "Z", KeyOrigin::Accepted);
        store.add(Vec{0, 4, 3}, "Z", KeyOrigin::Corrected);
        const auto check = [&](const KnnDatastore::ConceptVectors& concepts, std::string_view entity, Vec expected) {
            const auto index = store.findEntity(entity);
            QVERIFY(index.has_value());
            const auto at = std::find(concepts.entities.begin(), concepts.entities.end(), *index);
            QVERIFY(at != concepts.entities.end());
            const auto row = static_cast<std::size_t>(at - concepts.entities.begin());
            for (std::size_t i = 0; i < 3; ++i)
                QVERIFY2(std::abs(concepts.vectors[row * 3 + i] - expected[i]) < kTolerance, entity.data());
        };
        auto concepts = store.conceptVectors();
        QCOMPARE(concepts.entities, (std::vector<std::uint32_t>{0, 1, 2}));
        QCOMPARE(concepts.vectors.size(), std::size_t{9});
        const float half = static_cast<float>(1.0 / std::sqrt(2.0));
        check(concepts, "X", {half, half, 0});  // mean (1/2, 1/2, 0), renormalized
        check(concepts, "Y", {0, 0, 1});
        // Z: (0.6, 0.8, 0) and (0, 0.8, 0.6): mean (0.3, 0.8, 0.3), norm sqrt(0.82)
        const double norm = std::sqrt(0.82);
        check(concepts, "Z", {float(0.3 / norm), float(0.8 / norm), float(0.3 / norm)});
        // After removals: X has only (1,0,0) left, Y no key at all.
        QVERIFY(store.remove(x2));
        QVERIFY(store.remove(y1));
        concepts = store.conceptVectors();
        QCOMPARE(concepts.entities, (std::vector<std::uint32_t>{0, 2}));
        check(concepts, "X", {1, 0, 0});
        check(concepts, "Z", {float(0.3 / norm), float(0.8 / norm), float(0.3 / norm)});
        QCOMPARE(store.keyCount(*store.findEntity("X")), std::size_t{1});
        QCOMPARE(store.keyCount(*store.findEntity("Y")), std::size_t{0});
        QVERIFY(store.findEntity("Y") == std::optional<std::uint32_t>(1));
        QVERIFY(!store.findEntity("W").has_value());
        // Keys that cancel out exactly leave the zero vector rather than a made-up direction.
        store.add(Vec{-1, 0, 0}, "X", KeyOrigin::Corrected);
        concepts = store.conceptVectors();
        check(concepts, "X", {0, 0, 0});
        QVERIFY(store.remove(x1));
    }

    void conceptVectorsDoNotDependOnRemovalHistory() {
        const std::size_t dimension = 24;
        const auto values = gaussian(3, 12 * dimension);
        const auto row = [&](std::size_t i) { return std::span(values).subspan(i * dimension, dimension); };
        KnnDatastore moved(dimension, "enc");
        KnnDatastore fresh(dimension, "enc");
        for (std::size_t i = 0; i < 12; ++i) moved.add(row(i), "E" + std::to_string(i % 3), KeyOrigin::Training);
        for (const std::uint64_t key : {1, 5, 6}) QVERIFY(moved.remove(key));  // rows move around
        for (std::size_t i = 0; i < 12; ++i)
            if (i != 0 && i != 4 && i != 5) fresh.add(row(i), "E" + std::to_string(i % 3), KeyOrigin::Training);
        // By entity id: the two stores interned the entities in different orders.
        const auto byName = [dimension](const KnnDatastore& store) {
            std::map<std::string, std::vector<float>> vectors;
            const auto concepts = store.conceptVectors();
            for (std::size_t r = 0; r < concepts.entities.size(); ++r)
                vectors[store.entities()[concepts.entities[r]]].assign(
                    concepts.vectors.begin() + static_cast<std::ptrdiff_t>(r * dimension),
                    concepts.vectors.begin() + static_cast<std::ptrdiff_t>((r + 1) * dimension));
            return vectors;
        };
        const auto a = byName(moved);
        QCOMPARE(a.size(), std::size_t{3});
        QVERIFY(a == byName(fresh));  // bit for bit: the same terms summed in the same order
    }

    void constSearchesRunConcurrently() {
        const KnnDatastore store = mixedStore(32, 2000, 8);
        const auto queries = gaussian(9, 32 * 4);
        const auto expected = store.search(queries, 16);
        std::vector<std::vector<std::vector<DatastoreNeighbor>>> results(4);
        {
            std::vector<std::jthread> threads;
            for (std::size_t t = 0; t < 4; ++t)
                threads.emplace_back([&, t] {
                    results[t] = store.search(queries, 16);
                    (void)store.conceptVectors();
                });
        }
        for (const auto& result : results)
            for (std::size_t q = 0; q < expected.size(); ++q) QCOMPARE(keysOf(result[q]), keysOf(expected[q]));
    }

    void saveLoadRoundTrip() {
        const KnnDatastore store = mixedStore(5, 60, 21);
        const auto file = dir_.path("store.lsknn");
        store.save(file);
        const KnnDatastore loaded = KnnDatastore::load(file, "bert-base:sha256:0123");
        QCOMPARE(loaded.dimension(), std::size_t{5});
        QCOMPARE(loaded.encoderFingerprint(), store.encoderFingerprint());
        QCOMPARE(store.size(), std::size_t{61 - 12 - 1});  // 12 of the 60 (ids 2, 7, ..., 57) and id 61 removed
        QCOMPARE(loaded.size(), store.size());
        QCOMPARE(loaded.nextKeyId(), std::uint64_t{62});
        QVERIFY(std::equal(loaded.entities().begin(), loaded.entities().end(), store.entities().begin(),
                           store.entities().end()));
        for (std::uint32_t e = 0; e < store.entities().size(); ++e) QCOMPARE(loaded.keyCount(e), store.keyCount(e));
        QCOMPARE(loaded.keyCount(*loaded.findEntity("UMLS:C0000001")), std::size_t{0});
        QVERIFY(loaded.keys() == store.keys());
        QCOMPARE(loaded.keyVectors().size(), store.keyVectors().size());
        QVERIFY(std::memcmp(loaded.keyVectors().data(), store.keyVectors().data(), store.keyVectors().size_bytes()) ==
                0);
        const auto query = gaussian(4, 10);
        const auto before = store.search(query, 8);
        const auto after = loaded.search(query, 8);
        for (std::size_t q = 0; q < 2; ++q) QCOMPARE(keysOf(after[q]), keysOf(before[q]));
        // A second save of what was loaded writes the same bytes.
        const auto again = dir_.path("again.lsknn");
        loaded.save(again);
        QCOMPARE(test::readFile(again), test::readFile(file));
        // Ids continue after the largest ever given, not after the largest saved.
        KnnDatastore continued = KnnDatastore::load(file);
        QCOMPARE(continued.add(gaussian(5, 5), "MESH:D1", KeyOrigin::Accepted), std::uint64_t{62});
        // An empty store round-trips too.
        const auto emptyFile = dir_.path("empty.lsknn");
        KnnDatastore(768, "").save(emptyFile);
        const auto empty = KnnDatastore::load(emptyFile);
        QCOMPARE(empty.dimension(), std::size_t{768});
        QCOMPARE(empty.size(), std::size_t{0});
        QCOMPARE(empty.nextKeyId(), std::uint64_t{1});
    }

    void refusesAnotherEncodersDatastore() {
        const auto file = savedSmall("a.lsknn");
        QCOMPARE(KnnDatastore::load(file, "enc-A").size(), std::size_t{3});
        try {
            KnnDatastore::load(file, "enc-B");
            QFAIL("a datastore of another encoder was loaded");
        } catch (const ParseError& e) {
            QFAIL(e.what());  // the file is fine: not a parse error
        } catch (const Error& e) {
            const std::string message = e.what();
            QVERIFY2(message.find(file.string()) != std::string::npos, e.what());
            QVERIFY2(message.find("\"enc-A\"") != std::string::npos, e.what());
            QVERIFY2(message.find("\"enc-B\"") != std::string::npos, e.what());
            QVERIFY2(message.find("rebuild") != std::string::npos, e.what());
        }
    }

    void refusesMissingEmptyAndForeignFiles() {
        expectLoadFails(dir_.path("missing.lsknn"), "cannot open");
        expectLoadFails(dir_.root(), "folder");
        expectBytesFail("", "empty.lsknn", "empty file");
        expectBytesFail("LSSPARSE and then something long enough to be a header....", "sparse.lsknn",
                        "not a Linkscope kNN datastore");
        expectBytesFail("\x89PNG", "png.lsknn", "not a Linkscope kNN datastore");
        std::string bytes = test::readFile(savedSmall("v.lsknn"));
        writeU32(bytes, 8, 2);
        reseal(bytes);
        expectBytesFail(bytes, "v2.lsknn", "version 2 is not supported");
        bytes = test::readFile(savedSmall("x.lsknn"));
        expectBytesFail(bytes + "x", "extra.lsknn", "1 unexpected bytes");
    }

    void refusesEveryTruncation() {
        const std::string bytes = test::readFile(savedSmall("whole.lsknn"));
        QVERIFY(bytes.size() > 100);
        for (std::size_t length = 0; length < bytes.size(); ++length) {
            const auto file = dir_.write("cut.lsknn", bytes.substr(0, length));
            const std::string_view fragment = length == 0 ? "empty file" : "truncated";
            LINKSCOPE_EXPECT_PARSE_ERROR(KnnDatastore::load(file), file, 0, fragment);
        }
    }

    void refusesEveryFlippedByte() {
        const std::string bytes = test::readFile(savedSmall("whole.lsknn"));
        for (std::size_t at = 0; at < bytes.size(); ++at) {
            std::string damaged = bytes;
            damaged[at] = static_cast<char>(damaged[at] ^ 0x20);
            const auto file = dir_.write("flipped.lsknn", damaged);
            // Magic, version and size have their own messages; every other byte the checksum.
            const std::string_view fragment = at < 8    ? "not a Linkscope kNN datastore"
                                              : at < 12 ? "is not supported"
                                              : at < 20 ? "announces"
                                                        : "checksum";
            LINKSCOPE_EXPECT_PARSE_ERROR(KnnDatastore::load(file), file, 0, fragment);
        }
    }

    void refusesHugeDeclaredCounts() {
        // Counts that a valid checksum vouches for (resealed) but that cannot fit in the file:
        // refused before anything is allocated for them.
        const std::string bytes = test::readFile(savedSmall("whole.lsknn"));
        const Layout at = layoutOf(bytes, 3);
        const std::uint64_t huge = std::uint64_t{1} << 62;
        const std::pair<std::size_t, std::uint64_t> damages[] = {
            {at.fingerprintSize, huge},
            {at.entityCount, 0xFFFFFFFFull},
            {at.entityCount, huge},
            {at.entityBytes, huge},
            {at.keyCount, huge},
            {at.keyCount, 1ull << 40},
            {at.sourceBytes, huge},
            {at.keyCount, 4},
            {at.entityBytes, 1000},
            {20, 1ull << 40} /* dimension */,
            {20, 1ull << 19} /* keys x dimension overrun the file */,
        };
        for (const auto& [offset, value] : damages) {
            std::string damaged = bytes;
            writeU64(damaged, offset, value);
            reseal(damaged);
            const auto file = dir_.write("huge.lsknn", damaged);
            LINKSCOPE_EXPECT_PARSE_ERROR(KnnDatastore::load(file), file, 0, "corrupt kNN datastore");
        }
    }

    void refusesInconsistentContent() {
        const std::string bytes = test::readFile(savedSmall("whole.lsknn"));
        const Layout at = layoutOf(bytes, 3);
        const auto expect = [&](const std::function<void(std::string&)>& damage, std::string_view fragment) {
            std::string damaged = bytes;
            damage(damaged);
            reseal(damaged);
            const auto file = dir_.write("bad.lsknn", damaged);
            LINKSCOPE_EXPECT_PARSE_ERROR(KnnDatastore::load(file), file, 0, fragment);
        };
        expect([&](std::string& b) { writeU64(b, 20, 0); }, "dimension 0");
        expect([&](std::string& b) { writeU64(b, at.keyIds + 8, 1); }, "listed twice");
        expect([&](std::string& b) { writeU64(b, at.keyIds, 4); }, "not below the next key id 4");
        expect([&](std::string& b) { writeU64(b, at.keyIds, 0); }, "not below the next key id");
        expect([&](std::string& b) { writeU32(b, at.keyEntities + 4, 3); }, "names entity 3 of 3");
        expect([&](std::string& b) { b[at.origins + 2] = 7; }, "unknown origin 7");
        expect([&](std::string& b) { writeU64(b, at.sourceEnds, 1000); }, "source offsets out of order");
        expect([&](std::string& b) { writeU32(b, at.entityEnds, 1000); }, "entity offsets out of order");
        expect([&](std::string& b) { writeU32(b, at.entityEnds, 0); }, "empty id");
        expect([&](std::string& b) { std::memcpy(b.data() + at.entityText + 7, "MESH:D1", 7); }, "listed twice");
        expect([&](std::string& b) { writeF32(b, at.vectors + 4, std::numeric_limits<float>::quiet_NaN()); },
               "not finite");
        expect([&](std::string& b) { writeF32(b, at.vectors, 0.5f); }, "not of unit length");
    }

    void rejectsBadArguments() {
        QVERIFY(throwsError([] { KnnDatastore(0, "enc"); }, "dimension must be positive"));
        KnnDatastore store = smallStore();
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        QVERIFY(throwsError([&] { store.add(Vec{1, 0}, "E", KeyOrigin::Training); }, "dimension is 3"));
        QVERIFY(throwsError([&] { store.add(Vec{1, nan, 0}, "E", KeyOrigin::Training); }, "not a finite number"));
        QVERIFY(throwsError([&] { store.add(Vec{inf, 0, 0}, "E", KeyOrigin::Training); }, "not a finite number"));
        QVERIFY(throwsError([&] { store.add(Vec{0, 0, 0}, "E", KeyOrigin::Training); }, "zero vector"));
        QVERIFY(throwsError([&] { store.add(Vec{1, 0, 0}, "", KeyOrigin::Training); }, "empty entity id"));
        const std::vector<std::string> two{"A", "B"};
        QVERIFY(throwsError([&] { store.addBatch(Vec{1, 0, 0, 1, 0}, two, KeyOrigin::Training); }, "not 2 rows"));
        QVERIFY(throwsError([&] { store.addBatch(Vec{1, 0, 0}, two, KeyOrigin::Training); }, "not 2 rows"));
        QVERIFY(throwsError(
            [&] {
                store.addBatch(Vec{1, 0, 0, 0, 1, 0}, two, KeyOrigin::Training, std::vector<std::string>{"s"});
            },
            "1 sources for 2 keys"));
        // A batch with one bad row adds nothing, not even its entities.
        QVERIFY(throwsError(
            [&] {
                store.addBatch(Vec{1, 0, 0, 0, 0, 0}, two, KeyOrigin::Training);
            },
            "key 1 is the zero vector"));
        QCOMPARE(store.size(), std::size_t{3});
        QCOMPARE(store.nextKeyId(), std::uint64_t{4});
        QVERIFY(!store.findEntity("A").has_value());
        QVERIFY(throwsError([&] { (void)store.search(Vec{1, 0, 0, 1}, 2); }, "not whole rows of dimension 3"));
        QVERIFY(throwsError([&] { (void)store.search(Vec{1, 0, 0, nan, 0, 0}, 2); }, "query 1 holds a value"));
        QVERIFY(throwsError([&] { (void)store.search(Vec{0, 0, 0}, 2); }, "query 0 is the zero vector"));
        // A good batch: ids in order, sources kept.
        const auto ids =
            store.addBatch(Vec{1, 0, 0, 0, 1, 0}, two, KeyOrigin::Corrected, std::vector<std::string>{"s1", "s2"});
        QCOMPARE(ids, (std::vector<std::uint64_t>{4, 5}));
        QCOMPARE(store.info(5)->source, std::string("s2"));
        QVERIFY(store.info(5)->origin == KeyOrigin::Corrected);
    }
};

QTEST_APPLESS_MAIN(TestKnnDatastore)
#include "test_knn_datastore.moc"
