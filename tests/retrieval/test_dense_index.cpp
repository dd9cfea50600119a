// DenseIndex (FAISS) against brute force: exact search and its tie order, the recall of the
// approximate kinds on clustered vectors, saving and loading, and damaged files.
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#include <faiss/invlists/InvertedLists.h>
#include <zlib.h>
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "retrieval/dense_index.h"
#include "test_data.h"
#include "util/error.h"
#include "util/progress.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

using Lists = std::vector<std::vector<Candidate>>;

std::vector<float> gaussianVectors(std::uint32_t seed, std::size_t rows, std::size_t dimension) {
    std::mt19937 random(seed);
    std::normal_distribution<float> normal;
    std::vector<float> values(rows * dimension);
    for (auto& value : values) value = normal(random);
    return values;
}

void normalizeRows(std::vector<float>& values, std::size_t dimension) {
    for (std::size_t first = 0; first < values.size(); first += dimension) {
        double norm = 0;
        for (std::size_t i = 0; i < dimension; ++i) norm += double(values[first + i]) * values[first + i];
        const auto scale = static_cast<float>(1.0 / std::sqrt(norm));
        for (std::size_t i = 0; i < dimension; ++i) values[first + i] *= scale;
    }
}

/// Unit vectors around `centres` random unit centres: the structure that names of the same
/// concept give an encoder, and that an approximate index must cope with.
std::vector<float> clusteredVectors(std::uint32_t seed, std::size_t rows, std::size_t dimension, std::size_t centres,
                                    float spread) {
    auto centre = gaussianVectors(seed, centres, dimension);
    normalizeRows(centre, dimension);
    std::mt19937 random(seed + 1);
    std::uniform_int_distribution<std::size_t> pick(0, centres - 1);
    std::normal_distribution<float> normal(0.0f, spread / std::sqrt(static_cast<float>(dimension)));
    std::vector<float> values(rows * dimension);
    for (std::size_t row = 0; row < rows; ++row) {
        const std::size_t c = pick(random);
        for (std::size_t i = 0; i < dimension; ++i)
            values[row * dimension + i] = centre[c * dimension + i] + normal(random);
    }
    normalizeRows(values, dimension);
    return values;
}

/// Queries near indexed rows (every `stride`-th row, slightly moved).
std::vector<float> perturbedQueries(const std::vector<float>& vectors, std::size_t dimension, std::size_t count,
                                    std::size_t stride, std::uint32_t seed) {
    std::mt19937 random(seed);
    std::normal_distribution<float> normal(0.0f, 0.05f / std::sqrt(static_cast<float>(dimension)));
    std::vector<float> queries(count * dimension);
    for (std::size_t q = 0; q < count; ++q)
        for (std::size_t i = 0; i < dimension; ++i)
            queries[q * dimension + i] = vectors[(q * stride) * dimension + i] + normal(random);
    normalizeRows(queries, dimension);
    return queries;
}

double exactScore(const std::vector<float>& vectors, const std::vector<float>& queries, std::size_t dimension,
                  std::size_t query, std::size_t row) {
    double score = 0;
    for (std::size_t i = 0; i < dimension; ++i)
        score += double(vectors[row * dimension + i]) * queries[query * dimension + i];
    return score;
}

/// The share of the exact top-k rows that the approximate lists found.
double recallAt(const Lists& approximate, const Lists& exact, std::size_t k) {
    std::size_t found = 0, total = 0;
    for (std::size_t q = 0; q < exact.size(); ++q) {
        std::set<std::uint32_t> rows;
        for (std::size_t i = 0; i < std::min(k, approximate[q].size()); ++i) rows.insert(approximate[q][i].entry);
        for (std::size_t i = 0; i < std::min(k, exact[q].size()); ++i) {
            found += rows.count(exact[q][i].entry);
            ++total;
        }
    }
    return total == 0 ? 0.0 : double(found) / double(total);
}

void checkSortedByScoreThenRow(const Lists& lists) {
    for (const auto& list : lists)
        for (std::size_t i = 1; i < list.size(); ++i) {
            QVERIFY(list[i - 1].score >= list[i].score);
            if (list[i - 1].score == list[i].score) QVERIFY(list[i - 1].entry < list[i].entry);
        }
}

void checkIdentical(const Lists& a, const Lists& b) {
    QCOMPARE(a.size(), b.size());
    for (std::size_t q = 0; q < a.size(); ++q) {
        QCOMPARE(a[q].size(), b[q].size());
        for (std::size_t i = 0; i < a[q].size(); ++i) {
            QCOMPARE(a[q][i].entry, b[q][i].entry);
            QCOMPARE(a[q][i].score, b[q][i].score);
        }
    }
}

/// Small integers: every sum of their products is exact in float, whatever the summation
/// order or BLAS kernel, so equal vectors give truly equal scores.
std::vector<float> integerVectors(std::size_t rows, std::size_t dimension, std::size_t patterns) {
    std::vector<float> values(rows * dimension);
    for (std::size_t row = 0; row < rows; ++row)
        for (std::size_t i = 0; i < dimension; ++i)
            values[row * dimension + i] = static_cast<float>(((row % patterns) * 7 + i * 3) % 5) - 2.0f;
    return values;
}

void expectParseError(const std::filesystem::path& file, const char* fragment) {
    try {
        DenseIndex::load(file);
        QFAIL(("loaded a damaged index: " + file.string()).c_str());
    } catch (const ParseError& e) {
        const std::string what = e.what();
        QVERIFY2(e.file() == file.string(), what.c_str());
        QVERIFY2(what.find(file.string()) != std::string::npos, what.c_str());
        QVERIFY2(what.find(fragment) != std::string::npos, what.c_str());
    }
}

std::string fileBytes(const std::filesystem::path& file) { return test::readFile(file); }

template <typename T>
void appendLittle(std::string& out, T value) {
    char raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));  // the test machine is little-endian, as the format
    out.append(raw, sizeof(T));
}

/// A dense index file with a correct header, size and checksum around `payload`.
std::string wrapPayload(std::uint8_t kind, std::uint64_t dimension, std::uint64_t count, const std::string& payload) {
    std::string file = "LSDENSE1";
    appendLittle<std::uint32_t>(file, 1);
    appendLittle<std::uint8_t>(file, kind);
    appendLittle<std::uint64_t>(file, dimension);
    appendLittle<std::uint64_t>(file, count);
    appendLittle<std::uint64_t>(file, 2);
    file += "fp";
    file += payload;
    appendLittle<std::uint64_t>(file, payload.size());
    appendLittle<std::uint32_t>(
        file, static_cast<std::uint32_t>(
                  crc32_z(crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(file.data()), file.size())));
    return file;
}

std::filesystem::path folderOf(const QTemporaryDir& dir) { return dir.path().toStdString(); }

constexpr std::size_t kFixedHeader = 8 + 4 + 1 + 8 + 8 + 8;

}  // namespace

class TestDenseIndex : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void flatMatchesBruteForce();
    void flatSingleQueriesMatchBatch();
    void exactTiesOrderedByRow();
    void bruteForceTiesAndLimits();
    void kLargerThanSize();
    void emptyInputs();
    void badShapesAreErrors();
    void hnswRecallOnClusters();
    void ivfPqRecallOnClusters();
    void ivfPqRefusesTooFewVectors();
    void ivfFp16RecallScoresAndRows();
    void builderInChunksMatchesBuild();
    void builderRefusesMisuse();
    void progressAndCancel();
    void threadsGiveSameResults();
    void saveLoadRoundTrip_data();
    void saveLoadRoundTrip();
    void fingerprintMismatch();
    void malformedFiles();
    void craftedPayloadsAreRefusedBeforeSearch();
};

void TestDenseIndex::flatMatchesBruteForce() {
    const std::size_t dim = 64, rows = 2000, k = 10;
    const auto vectors = gaussianVectors(1, rows, dim);
    const auto queries = gaussianVectors(2, 50, dim);  // 50 >= 20: FAISS takes its BLAS path
    const auto index = DenseIndex::build(vectors, dim, "model|dict");
    QCOMPARE(index.size(), rows);
    QCOMPARE(index.dimension(), dim);
    QCOMPARE(index.kind(), DenseIndexKind::Flat);
    QCOMPARE(index.fingerprint(), std::string("model|dict"));
    QCOMPARE(index.memoryBytes(), rows * dim * sizeof(float));
    const Lists flat = index.search(queries, k);
    const Lists brute = bruteForceSearch(vectors, dim, queries, k);
    QCOMPARE(flat.size(), std::size_t{50});
    checkSortedByScoreThenRow(flat);
    checkSortedByScoreThenRow(brute);
    for (std::size_t q = 0; q < flat.size(); ++q) {
        QCOMPARE(flat[q].size(), k);
        QCOMPARE(brute[q].size(), k);
        for (std::size_t i = 0; i < k; ++i) {
            // Position by position the scores agree to float rounding; each row's score is
            // its true inner product.
            QVERIFY(std::abs(flat[q][i].score - brute[q][i].score) <= 1e-5f);
            QVERIFY(std::abs(flat[q][i].score - exactScore(vectors, queries, dim, q, flat[q][i].entry)) <= 1e-5);
        }
        // The same rows, except that a row tied (within rounding) with the k-th may be swapped
        // for another such row.
        const double boundary = brute[q][k - 1].score;
        std::set<std::uint32_t> flatRows, bruteRows;
        for (std::size_t i = 0; i < k; ++i) {
            // 1e-5 as above: an optimized BLAS (OpenBLAS) sums in another order than brute force.
            if (std::abs(flat[q][i].score - boundary) > 1e-5) flatRows.insert(flat[q][i].entry);
            if (std::abs(brute[q][i].score - boundary) > 1e-5) bruteRows.insert(brute[q][i].entry);
        }
        QCOMPARE(flatRows, bruteRows);
    }
}

void TestDenseIndex::flatSingleQueriesMatchBatch() {
    // One query at a time FAISS takes its SIMD path instead of BLAS: the rows must not change.
    const std::size_t dim = 48, rows = 700, k = 7;
    const auto vectors = gaussianVectors(3, rows, dim);
    const auto queries = gaussianVectors(4, 30, dim);
    const auto index = DenseIndex::build(vectors, dim, "fp");
    const Lists batch = index.search(queries, k);
    for (std::size_t q = 0; q < 30; ++q) {
        const Lists single = index.search(std::span<const float>(queries).subspan(q * dim, dim), k);
        QCOMPARE(single.size(), std::size_t{1});
        QCOMPARE(single[0].size(), k);
        for (std::size_t i = 0; i < k; ++i) {
            QCOMPARE(single[0][i].entry, batch[q][i].entry);
            QVERIFY(std::abs(single[0][i].score - batch[q][i].score) <= 1e-5f);
        }
    }
}

void TestDenseIndex::exactTiesOrderedByRow() {
    // 7 distinct vectors repeated over 300 rows: ~43 rows share each score, more than k plus
    // the margin FAISS is asked for, so the tie at the k-th score must be widened.
    const std::size_t dim = 8, rows = 300;
    const auto vectors = integerVectors(rows, dim, 7);
    std::vector<float> queries = integerVectors(25, dim, 11);  // 25 >= 20: the BLAS path
    const auto index = DenseIndex::build(vectors, dim, "fp");
    for (const std::size_t k : {std::size_t{1}, std::size_t{10}, std::size_t{45}, std::size_t{100}}) {
        const Lists brute = bruteForceSearch(vectors, dim, queries, k);
        checkIdentical(index.search(queries, k), brute);
        // one query at a time (the non-BLAS path) gives the same lists
        for (std::size_t q = 0; q < 25; ++q) {
            const Lists single = index.search(std::span<const float>(queries).subspan(q * dim, dim), k);
            checkIdentical(single, Lists{brute[q]});
        }
        // the lowest rows of each tie, in ascending order
        for (const auto& list : brute) {
            QCOMPARE(list.size(), k);
            QCOMPARE(list.front().entry % 7, list.front().entry);  // the first of its pattern
        }
    }
}

void TestDenseIndex::bruteForceTiesAndLimits() {
    const std::vector<float> vectors = {1, 0, 2, 0, 1, 0, 0, 1, 2, 0};  // rows 1 and 4 tie at 2
    const std::vector<float> query = {1, 0};
    const Lists top = bruteForceSearch(vectors, 2, query, 3);
    QCOMPARE(top.size(), std::size_t{1});
    QCOMPARE(top[0].size(), std::size_t{3});
    QCOMPARE(top[0][0].entry, 1u);
    QCOMPARE(top[0][1].entry, 4u);
    QCOMPARE(top[0][2].entry, 0u);
    QCOMPARE(top[0][2].score, 1.0f);
    QCOMPARE(bruteForceSearch(vectors, 2, query, 99)[0].size(), std::size_t{5});
    QVERIFY(bruteForceSearch(vectors, 2, query, 0)[0].empty());
    QVERIFY(bruteForceSearch(vectors, 2, {}, 3).empty());
    QVERIFY_THROWS_EXCEPTION(Error, bruteForceSearch(vectors, 3, query, 1));
    QVERIFY_THROWS_EXCEPTION(Error, bruteForceSearch(vectors, 0, query, 1));
}

void TestDenseIndex::kLargerThanSize() {
    const std::size_t dim = 4;
    const auto vectors = gaussianVectors(5, 6, dim);
    const auto queries = gaussianVectors(6, 3, dim);
    DenseIndexOptions hnsw;
    hnsw.kind = DenseIndexKind::Hnsw;
    for (const auto& options : {DenseIndexOptions{}, hnsw}) {
        const auto index = DenseIndex::build(vectors, dim, "fp", options);
        const Lists lists = index.search(queries, 50);
        QCOMPARE(lists.size(), std::size_t{3});
        const Lists brute = bruteForceSearch(vectors, dim, queries, 50);
        for (std::size_t q = 0; q < 3; ++q) {
            QCOMPARE(lists[q].size(), std::size_t{6});  // every row, none invented
            for (std::size_t i = 0; i < 6; ++i) QCOMPARE(lists[q][i].entry, brute[q][i].entry);
        }
    }
}

void TestDenseIndex::emptyInputs() {
    const std::size_t dim = 16;
    const auto vectors = gaussianVectors(7, 100, dim);
    const auto index = DenseIndex::build(vectors, dim, "fp");
    QVERIFY(index.search({}, 10).empty());
    const auto queries = gaussianVectors(8, 4, dim);
    const Lists none = index.search(queries, 0);
    QCOMPARE(none.size(), std::size_t{4});
    for (const auto& list : none) QVERIFY(list.empty());

    const auto empty = DenseIndex::build({}, dim, "fp");
    QCOMPARE(empty.size(), std::size_t{0});
    const Lists fromEmpty = empty.search(queries, 5);
    QCOMPARE(fromEmpty.size(), std::size_t{4});
    for (const auto& list : fromEmpty) QVERIFY(list.empty());

    const DenseIndex unbuilt;
    QCOMPARE(unbuilt.size(), std::size_t{0});
    QVERIFY(unbuilt.fingerprint().empty());
    QVERIFY_THROWS_EXCEPTION(Error, unbuilt.search(queries, 5));
    QVERIFY_THROWS_EXCEPTION(Error, unbuilt.save("unused.idx"));
}

void TestDenseIndex::badShapesAreErrors() {
    const std::size_t dim = 64;
    const auto vectors = gaussianVectors(9, 50, dim);
    const auto index = DenseIndex::build(vectors, dim, "fp");
    std::vector<float> ragged(dim + 1, 0.5f);
    QVERIFY_THROWS_EXCEPTION(Error, index.search(ragged, 3));
    QVERIFY_THROWS_EXCEPTION(Error, DenseIndex::build(ragged, dim, "fp"));
    QVERIFY_THROWS_EXCEPTION(Error, DenseIndex::build(vectors, 0, "fp"));
    std::vector<float> withNan(vectors);
    withNan[3 * dim + 5] = std::nanf("");
    try {
        DenseIndex::build(withNan, dim, "fp");
        QFAIL("built an index over a NaN");
    } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find("row 3") != std::string::npos, e.what());
    }
    std::vector<float> infiniteQuery(dim, 0.0f);
    infiniteQuery[0] = std::numeric_limits<float>::infinity();
    QVERIFY_THROWS_EXCEPTION(Error, index.search(infiniteQuery, 3));
}

void TestDenseIndex::hnswRecallOnClusters() {
    const std::size_t dim = 32, rows = 5000, k = 10;
    const auto vectors = clusteredVectors(10, rows, dim, 100, 1.0f);
    const auto queries = perturbedQueries(vectors, dim, 200, 23, 11);
    DenseIndexOptions options;
    options.kind = DenseIndexKind::Hnsw;
    options.hnswM = 16;
    options.hnswEfConstruction = 80;
    options.hnswEfSearch = 64;
    auto index = DenseIndex::build(vectors, dim, "fp", options);
    QCOMPARE(index.kind(), DenseIndexKind::Hnsw);
    QVERIFY(index.memoryBytes() > rows * dim * sizeof(float));  // vectors plus the graph
    const Lists exact = bruteForceSearch(vectors, dim, queries, k);
    const Lists approximate = index.search(queries, k);
    checkSortedByScoreThenRow(approximate);
    const double recall = recallAt(approximate, exact, k);
    qInfo("HNSW recall@10 = %.4f", recall);
    QVERIFY2(recall >= 0.95, qPrintable(QString::number(recall)));
    // The perturbed row itself is always found first.
    for (std::size_t q = 0; q < approximate.size(); ++q) QCOMPARE(approximate[q][0].entry, std::uint32_t(q * 23));
    // A wider search finds at least as much (efSearch is a live knob).
    options.hnswEfSearch = 400;
    index.setSearchOptions(options);
    QVERIFY(recallAt(index.search(queries, k), exact, k) >= recall);
}

void TestDenseIndex::ivfPqRecallOnClusters() {
    const std::size_t dim = 32, rows = 6000, k = 10;
    const auto vectors = clusteredVectors(12, rows, dim, 100, 1.0f);
    const auto queries = perturbedQueries(vectors, dim, 200, 29, 13);
    DenseIndexOptions options;
    options.kind = DenseIndexKind::IvfPq;
    options.ivfLists = 64;
    options.pqSubquantizers = 8;
    options.ivfProbes = 8;
    auto index = DenseIndex::build(vectors, dim, "fp", options);
    QCOMPARE(index.kind(), DenseIndexKind::IvfPq);
    QCOMPARE(index.size(), rows);
    // codes (8 bytes) and ids (8 bytes) per row, much less than the float vectors
    QVERIFY(index.memoryBytes() >= rows * 16);
    QVERIFY(index.memoryBytes() < rows * dim * sizeof(float));
    const Lists exact = bruteForceSearch(vectors, dim, queries, k);
    const Lists approximate = index.search(queries, k);
    checkSortedByScoreThenRow(approximate);
    const double recall = recallAt(approximate, exact, k);
    qInfo("IVF-PQ recall@10 (8 of 64 lists) = %.4f", recall);
    QVERIFY2(recall > 0.5, qPrintable(QString::number(recall)));
    // Probing a single list loses neighbours in the next lists; all lists lose none to IVF.
    options.ivfProbes = 1;
    index.setSearchOptions(options);
    const double narrow = recallAt(index.search(queries, k), exact, k);
    options.ivfProbes = 64;
    index.setSearchOptions(options);
    const double wide = recallAt(index.search(queries, k), exact, k);
    qInfo("IVF-PQ recall@10 with 1 / 64 lists probed = %.4f / %.4f", narrow, wide);
    QVERIFY(narrow < wide);

    // Automatic sizes train too (lists chosen so that each has 39 vectors or more).
    options.ivfLists = 0;
    options.pqSubquantizers = 0;
    options.ivfProbes = 32;
    const auto automatic = DenseIndex::build(vectors, dim, "fp", options);
    QVERIFY(recallAt(automatic.search(queries, k), exact, k) > 0.3);
}

void TestDenseIndex::ivfPqRefusesTooFewVectors() {
    const std::size_t dim = 16;
    DenseIndexOptions options;
    options.kind = DenseIndexKind::IvfPq;
    const auto fewForPq = gaussianVectors(14, 200, dim);  // < 2^8 for the product quantizers
    try {
        DenseIndex::build(fewForPq, dim, "fp", options);
        QFAIL("trained IVF-PQ on 200 vectors");
    } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find("256") != std::string::npos, e.what());
    }
    options.ivfLists = 100;  // needs 3,900
    const auto fewForLists = gaussianVectors(15, 3000, dim);
    try {
        DenseIndex::build(fewForLists, dim, "fp", options);
        QFAIL("trained 100 lists on 3,000 vectors");
    } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find("3900") != std::string::npos, e.what());
    }
    options.ivfLists = 10;
    options.pqSubquantizers = 5;  // does not divide 16
    QVERIFY_THROWS_EXCEPTION(Error, DenseIndex::build(fewForLists, dim, "fp", options));
}

void TestDenseIndex::ivfFp16RecallScoresAndRows() {
    const std::size_t dim = 32, rows = 6000, k = 10;
    const auto vectors = clusteredVectors(20, rows, dim, 100, 1.0f);
    const auto queries = perturbedQueries(vectors, dim, 200, 29, 21);
    DenseIndexOptions options;
    options.kind = DenseIndexKind::IvfFp16;
    options.ivfProbes = 8;
    auto index = DenseIndex::build(vectors, dim, "fp", options);
    QCOMPARE(index.kind(), DenseIndexKind::IvfFp16);
    QCOMPARE(index.size(), rows);
    QCOMPARE(std::string(denseIndexKindName(index.kind())), std::string("ivf-fp16"));
    // 2 bytes a value plus 8-byte ids in the lists and the row map: less than the floats.
    QVERIFY(index.memoryBytes() >= rows * (dim * 2 + 16));
    QVERIFY(index.memoryBytes() < rows * dim * sizeof(float));

    const Lists exact = bruteForceSearch(vectors, dim, queries, k);
    const Lists approximate = index.search(queries, k);
    checkSortedByScoreThenRow(approximate);
    // Scores are the fp16 vectors' inner products: unit vectors, so within 2e-3 of exact.
    for (std::size_t q = 0; q < approximate.size(); ++q)
        for (const auto& c : approximate[q])
            QVERIFY2(std::abs(c.score - exactScore(vectors, queries, dim, q, c.entry)) < 2e-3,
                     qPrintable(QString("query %1 row %2: %3").arg(q).arg(c.entry).arg(c.score)));
    const double recall = recallAt(approximate, exact, k);
    // Every list probed: only fp16 rounding can swap rows at the k-th place.
    options.ivfProbes = 1000;
    index.setSearchOptions(options);
    const double all = recallAt(index.search(queries, k), exact, k);
    qInfo("IVF-fp16 recall@10, 8 lists probed = %.4f, all = %.4f", recall, all);
    QVERIFY2(recall > 0.6, qPrintable(QString::number(recall)));
    QVERIFY2(all > 0.98, qPrintable(QString::number(all)));
    QVERIFY(recall <= all);

    // A single row comes back at fp16 precision (unit vectors: each value within 1e-3).
    std::vector<float> back(dim);
    for (const std::size_t r : {std::size_t{0}, std::size_t{2999}, rows - 1}) {
        index.row(r, back);
        for (std::size_t i = 0; i < dim; ++i) QVERIFY(std::abs(back[i] - vectors[r * dim + i]) < 1e-3f);
    }
    QVERIFY_THROWS_EXCEPTION(Error, index.row(rows, back));
    std::vector<float> narrow(dim - 1);
    QVERIFY_THROWS_EXCEPTION(Error, index.row(0, narrow));
    // Never saved: its FAISS layout is not among those a load checks.
    QTemporaryDir dir;
    const auto file = folderOf(dir) / "fp16.lsdense";
    try {
        index.save(file);
        QFAIL("saved an IVF-fp16 index");
    } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find("rebuilt, not saved") != std::string::npos, e.what());
    }
    QVERIFY(!std::filesystem::exists(file));
    // An IVF-PQ index gives no single row back; a flat one gives the row itself.
    DenseIndexOptions pq;
    pq.kind = DenseIndexKind::IvfPq;
    QVERIFY_THROWS_EXCEPTION(Error, DenseIndex::build(vectors, dim, "fp", pq).row(0, back));
    DenseIndex::build(vectors, dim, "fp").row(7, back);
    QVERIFY(std::equal(back.begin(), back.end(), vectors.begin() + 7 * dim));
}

void TestDenseIndex::builderInChunksMatchesBuild() {
    const std::size_t dim = 16, rows = 2000, k = 5;
    const auto vectors = clusteredVectors(22, rows, dim, 40, 1.0f);
    const auto queries = perturbedQueries(vectors, dim, 50, 37, 23);
    const auto inChunks = [&](const DenseIndexOptions& options, std::size_t chunk) {
        DenseIndexBuilder builder(dim, rows, "fp", options);
        if (!builder.trainingRows().empty()) {
            std::vector<float> sample;
            for (const std::size_t row : builder.trainingRows())
                sample.insert(sample.end(), vectors.begin() + std::ptrdiff_t(row * dim),
                              vectors.begin() + std::ptrdiff_t((row + 1) * dim));
            builder.train(sample);
        }
        for (std::size_t first = 0; first < rows; first += chunk) {
            const std::size_t count = std::min(chunk, rows - first);
            builder.add(std::span<const float>(vectors).subspan(first * dim, count * dim));
        }
        return builder.finish();
    };
    // Flat: the same table, so the same results whatever the chunks.
    const DenseIndex flat = inChunks({}, 7);
    QVERIFY(flat.fingerprint() == "fp");
    checkIdentical(flat.search(queries, k), DenseIndex::build(vectors, dim, "fp").search(queries, k));
    QVERIFY(DenseIndexBuilder(dim, rows, "fp").trainingRows().empty());
    // IVF-fp16: the sample is the build's own (the same rows), and the lists found are as good.
    DenseIndexOptions fp16;
    fp16.kind = DenseIndexKind::IvfFp16;
    fp16.ivfProbes = 4;
    DenseIndexBuilder probe(dim, rows, "fp", fp16);
    // sqrt(2000) ~ 45 lists, 64 training rows each: more than the rows, so all of them.
    QCOMPARE(probe.trainingRows().size(), rows);
    fp16.ivfLists = 20;  // 1,280 training rows of 2,000: a sample
    DenseIndexBuilder sampled(dim, rows, "fp", fp16);
    QCOMPARE(sampled.trainingRows().size(), std::size_t{1280});
    QVERIFY(std::is_sorted(sampled.trainingRows().begin(), sampled.trainingRows().end()));
    const Lists exact = bruteForceSearch(vectors, dim, queries, k);
    const double chunked = recallAt(inChunks(fp16, 333).search(queries, k), exact, k);
    const double whole = recallAt(DenseIndex::build(vectors, dim, "fp", fp16).search(queries, k), exact, k);
    qInfo("IVF-fp16 recall@5 built in chunks %.4f, whole %.4f", chunked, whole);
    QVERIFY(std::abs(chunked - whole) < 0.05);
    QVERIFY(chunked > 0.6);
}

void TestDenseIndex::builderRefusesMisuse() {
    const std::size_t dim = 8, rows = 1000;
    const auto vectors = gaussianVectors(24, rows, dim);
    DenseIndexOptions fp16;
    fp16.kind = DenseIndexKind::IvfFp16;
    fp16.ivfLists = 10;
    {
        DenseIndexBuilder builder(dim, rows, "fp", fp16);
        QCOMPARE(builder.trainingRows().size(), std::size_t{640});
        QVERIFY_THROWS_EXCEPTION(Error, builder.add(std::span<const float>(vectors).first(dim)));    // not trained
        QVERIFY_THROWS_EXCEPTION(Error, builder.train(std::span<const float>(vectors).first(dim)));  // wrong size
        builder.train(std::span<const float>(vectors).first(640 * dim));
        QVERIFY_THROWS_EXCEPTION(Error, builder.train(std::span<const float>(vectors).first(640 * dim)));  // twice
        QVERIFY_THROWS_EXCEPTION(Error, builder.add(std::span<const float>(vectors).first(dim + 1)));      // ragged
        builder.add(std::span<const float>(vectors).first(500 * dim));
        QVERIFY_THROWS_EXCEPTION(Error, builder.finish());      // 500 of 1,000 rows
        QVERIFY_THROWS_EXCEPTION(Error, builder.add(vectors));  // 1,500 of 1,000 rows
        builder.add(std::span<const float>(vectors).subspan(500 * dim));
        QCOMPARE(builder.finish().size(), rows);
    }
    // A flat index needs no training; a non-finite row is named.
    DenseIndexBuilder flat(dim, 2, "fp");
    QVERIFY_THROWS_EXCEPTION(Error, flat.train(std::span<const float>(vectors).first(2 * dim)));
    std::vector<float> bad(2 * dim, 0.5f);
    bad[dim + 3] = std::numeric_limits<float>::quiet_NaN();
    try {
        flat.add(bad);
        QFAIL("added a NaN");
    } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find("row 1") != std::string::npos, e.what());
    }
    // More lists than vectors, and no vectors at all, cannot be trained.
    fp16.ivfLists = 50;
    QVERIFY_THROWS_EXCEPTION(Error, DenseIndexBuilder(dim, 20, "fp", fp16));
    QVERIFY_THROWS_EXCEPTION(Error, DenseIndexBuilder(dim, 0, "fp", fp16));
    QVERIFY_THROWS_EXCEPTION(Error, DenseIndexBuilder(0, 10, "fp"));
}

void TestDenseIndex::progressAndCancel() {
    const std::size_t dim = 8;
    const auto vectors = gaussianVectors(16, 40000, dim);  // three chunks of rows
    std::vector<std::pair<std::string, double>> reports;
    ProgressSink progress;
    progress.report = [&](std::string_view stage, double fraction) { reports.emplace_back(stage, fraction); };
    const auto index = DenseIndex::build(vectors, dim, "fp", {}, &progress);
    QCOMPARE(index.size(), std::size_t{40000});
    QVERIFY(reports.size() >= 3);
    for (const auto& [stage, fraction] : reports) QCOMPARE(stage, std::string("Indexing vectors"));
    QCOMPARE(reports.back().second, 1.0);
    QVERIFY(std::is_sorted(reports.begin(), reports.end(),
                           [](const auto& a, const auto& b) { return a.second < b.second; }));

    int checks = 0;
    progress.cancelled = [&] { return ++checks == 2; };  // stop before the second chunk
    QVERIFY_THROWS_EXCEPTION(Cancelled, DenseIndex::build(vectors, dim, "fp", {}, &progress));
    QCOMPARE(checks, 2);
}

void TestDenseIndex::threadsGiveSameResults() {
    const std::size_t dim = 32;
    const auto vectors = gaussianVectors(17, 3000, dim);
    const auto queries = gaussianVectors(18, 40, dim);
    DenseIndexOptions one;
    one.threads = 1;
    DenseIndexOptions hnswOne = one;
    hnswOne.kind = DenseIndexKind::Hnsw;
    checkIdentical(DenseIndex::build(vectors, dim, "fp", one).search(queries, 5),
                   DenseIndex::build(vectors, dim, "fp").search(queries, 5));
    // A single-threaded HNSW build inserts in a fixed order: two builds are the same graph.
    checkIdentical(DenseIndex::build(vectors, dim, "fp", hnswOne).search(queries, 5),
                   DenseIndex::build(vectors, dim, "fp", hnswOne).search(queries, 5));
}

void TestDenseIndex::saveLoadRoundTrip_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("flat") << int(DenseIndexKind::Flat);
    QTest::newRow("hnsw") << int(DenseIndexKind::Hnsw);
    QTest::newRow("ivf-pq") << int(DenseIndexKind::IvfPq);
}

void TestDenseIndex::saveLoadRoundTrip() {
    QFETCH(int, kind);
    const std::size_t dim = 24;
    const auto vectors = clusteredVectors(19, 3000, dim, 50, 1.0f);
    const auto queries = perturbedQueries(vectors, dim, 30, 97, 20);
    DenseIndexOptions options;
    options.kind = static_cast<DenseIndexKind>(kind);
    options.ivfLists = 16;
    const auto built = DenseIndex::build(vectors, dim, "bert-x|dict-7", options);
    QTemporaryDir dir;
    const std::filesystem::path file = folderOf(dir) / "names.dense";
    built.save(file);
    QVERIFY(std::filesystem::exists(file));
    const auto loaded = DenseIndex::load(file, "bert-x|dict-7");
    QCOMPARE(loaded.kind(), built.kind());
    QCOMPARE(loaded.size(), built.size());
    QCOMPARE(loaded.dimension(), dim);
    QCOMPARE(loaded.fingerprint(), std::string("bert-x|dict-7"));
    QCOMPARE(loaded.memoryBytes(), built.memoryBytes());
    checkIdentical(loaded.search(queries, 20), built.search(queries, 20));
    // The vectors come back: exactly from flat and HNSW indexes, decoded by IVF-PQ (close to
    // the originals, since the rows are unit vectors near their cluster centres).
    const std::vector<float> back = loaded.vectors();
    QCOMPARE(back.size(), vectors.size());
    if (options.kind != DenseIndexKind::IvfPq) {
        QVERIFY(back == vectors);
    } else {
        double error = 0.0, norm = 0.0;
        for (std::size_t i = 0; i < back.size(); ++i) {
            error += double(back[i] - vectors[i]) * double(back[i] - vectors[i]);
            norm += double(vectors[i]) * double(vectors[i]);
        }
        QVERIFY2(error < 0.25 * norm, qPrintable(QString::number(error / norm)));
    }
    // Saving again writes the same bytes (nothing in the file depends on when it was made).
    loaded.save(folderOf(dir) / "again.dense");
    QCOMPARE(fileBytes(folderOf(dir) / "again.dense"), fileBytes(file));
}

void TestDenseIndex::fingerprintMismatch() {
    const std::size_t dim = 8;
    const auto vectors = gaussianVectors(21, 100, dim);
    QTemporaryDir dir;
    const std::filesystem::path file = folderOf(dir) / "names.dense";
    DenseIndex::build(vectors, dim, "sapbert|ncbi-2024", {}).save(file);
    QCOMPARE(DenseIndex::load(file).fingerprint(), std::string("sapbert|ncbi-2024"));  // no check asked
    try {
        DenseIndex::load(file, "biosyn|ncbi-2024");
        QFAIL("loaded an index built for another model");
    } catch (const ParseError& e) {
        QFAIL(e.what());  // the file is fine: a mismatch is not a parse error
    } catch (const Error& e) {
        const std::string what = e.what();
        QVERIFY2(what.find(file.string()) != std::string::npos, e.what());
        QVERIFY2(what.find("sapbert|ncbi-2024") != std::string::npos, e.what());
        QVERIFY2(what.find("rebuild the index with `linkscope-cli index`") != std::string::npos, e.what());
    }
}

void TestDenseIndex::malformedFiles() {
    const std::size_t dim = 8;
    const auto vectors = gaussianVectors(22, 300, dim);
    QTemporaryDir dir;
    const auto at = [&](const char* name) { return folderOf(dir) / name; };
    DenseIndexOptions hnsw;
    hnsw.kind = DenseIndexKind::Hnsw;
    DenseIndex::build(vectors, dim, "fp", hnsw).save(at("good.dense"));
    const std::string good = fileBytes(at("good.dense"));
    QVERIFY(good.size() > 300 * dim * sizeof(float));

    expectParseError(at("missing.dense"), "cannot open");
    expectParseError(folderOf(dir), "folder");
    test::writeFile(at("empty.dense"), "");
    expectParseError(at("empty.dense"), "not a Linkscope dense index");
    test::writeFile(at("magic.dense"), "LSSPARSE" + good.substr(8));
    expectParseError(at("magic.dense"), "not a Linkscope dense index");
    test::writeFile(at("header.dense"), good.substr(0, 20));
    expectParseError(at("header.dense"), "ends inside its header");
    std::string version = good;
    version[8] = 9;
    test::writeFile(at("version.dense"), version);
    expectParseError(at("version.dense"), "version 9");
    std::string hugeFingerprint = good;
    std::memset(hugeFingerprint.data() + 29, 0x7f, 8);
    test::writeFile(at("fingerprint.dense"), hugeFingerprint);
    expectParseError(at("fingerprint.dense"), "fingerprint");
    test::writeFile(at("payload.dense"), good.substr(0, good.size() / 2));  // cut in the FAISS data
    expectParseError(at("payload.dense"), "truncated or damaged");
    test::writeFile(at("tail.dense"), good.substr(0, good.size() - 1));
    expectParseError(at("tail.dense"), "truncated or damaged");
    std::string flipped = good;
    flipped[good.size() / 2] = static_cast<char>(flipped[good.size() / 2] ^ 0x10);
    test::writeFile(at("flipped.dense"), flipped);
    expectParseError(at("flipped.dense"), "checksum");

    // Past our own checks, FAISS's parser: its exceptions come back as ParseErrors.
    const std::size_t payloadStart = kFixedHeader + 2;
    const std::string payload = good.substr(payloadStart, good.size() - payloadStart - 12);
    test::writeFile(at("garbage.dense"), wrapPayload(1, dim, 300, std::string(64, 'x')));
    expectParseError(at("garbage.dense"), "damaged dense index: the FAISS payload is not the hnsw index");
    // (A FAISS payload cut short inside a file whose size and checksum are right is not
    // tested: FAISS 1.7.3's read_index leaks the half-read index when it throws. Files cut
    // short are caught by the size and checksum checks above before FAISS reads a byte.)
    test::writeFile(at("extra.dense"), wrapPayload(1, dim, 300, payload + "more"));
    expectParseError(at("extra.dense"), "follow the FAISS index");
    test::writeFile(at("kind.dense"), wrapPayload(0, dim, 300, payload));  // says flat, holds HNSW
    expectParseError(at("kind.dense"), "not the flat");
    test::writeFile(at("count.dense"), wrapPayload(1, dim, 301, payload));
    expectParseError(at("count.dense"), "301");
    // and the genuine payload in a rewrapped file loads
    test::writeFile(at("rewrapped.dense"), wrapPayload(1, dim, 300, payload));
    QCOMPARE(DenseIndex::load(at("rewrapped.dense")).size(), std::size_t{300});
}

namespace {
/// FAISS's own serialization of an index, as the payload of our file format.
std::string faissPayload(const faiss::Index& index) {
    faiss::VectorIOWriter writer;
    faiss::write_index(&index, &writer);
    return {reinterpret_cast<const char*>(writer.data.data()), writer.data.size()};
}
}  // namespace

// A file whose size and checksum are right but whose FAISS structure was edited (the CRC
// resealed): FAISS's reader takes it, and its search would follow the bad ids out of bounds.
// Each is refused at load, naming the file and what is wrong.
void TestDenseIndex::craftedPayloadsAreRefusedBeforeSearch() {
    const std::size_t dim = 8;
    const auto vectors = gaussianVectors(23, 300, dim);
    QTemporaryDir dir;
    const auto write = [&](const char* name, std::uint8_t kind, std::uint64_t count, const std::string& payload) {
        const auto file = folderOf(dir) / name;
        test::writeFile(file, wrapPayload(kind, dim, count, payload));
        return file;
    };
    {
        faiss::IndexHNSWFlat hnsw(static_cast<int>(dim), 8, faiss::METRIC_INNER_PRODUCT);
        hnsw.add(300, vectors.data());
        // Untouched, the hand-made file loads: the checks below are what refuses the others.
        QCOMPARE(DenseIndex::load(write("hnsw-good.dense", 1, 300, faissPayload(hnsw))).size(), std::size_t{300});
        const auto neighbour = hnsw.hnsw.neighbors[5];
        hnsw.hnsw.neighbors[5] = 1000000;
        expectParseError(write("hnsw-neighbour.dense", 1, 300, faissPayload(hnsw)),
                         "neighbour id (1000000) is outside");
        hnsw.hnsw.neighbors[5] = neighbour;
        const auto entry = hnsw.hnsw.entry_point;
        hnsw.hnsw.entry_point = -7;
        expectParseError(write("hnsw-entry.dense", 1, 300, faissPayload(hnsw)), "entry point");
        hnsw.hnsw.entry_point = entry;
        hnsw.hnsw.offsets[10] += 3;
        expectParseError(write("hnsw-offsets.dense", 1, 300, faissPayload(hnsw)),
                         "neighbour list has the wrong length");
    }
    {
        faiss::IndexFlatIP flat(static_cast<long>(dim));
        flat.add(300, vectors.data());
        flat.codes.resize(flat.codes.size() - dim * sizeof(float));  // one row short, ntotal unchanged
        // FAISS's reader checks this one itself; either check refuses it as damaged.
        expectParseError(write("flat-codes.dense", 0, 300, faissPayload(flat)), "damaged dense index");
    }
    {
        faiss::IndexFlatIP quantizer(static_cast<long>(dim));
        faiss::IndexIVFPQ ivf(&quantizer, dim, 4, 2, 4, faiss::METRIC_INNER_PRODUCT);
        ivf.train(300, vectors.data());
        ivf.add(300, vectors.data());
        QCOMPARE(DenseIndex::load(write("ivf-good.dense", 2, 300, faissPayload(ivf))).size(), std::size_t{300});
        auto* lists = dynamic_cast<faiss::ArrayInvertedLists*>(ivf.invlists);
        QVERIFY(lists);
        std::size_t list = 0;
        while (lists->ids[list].empty()) ++list;
        lists->ids[list][0] = 99999;
        expectParseError(write("ivf-id.dense", 2, 300, faissPayload(ivf)), "names vector 99999");
        lists->ids[list][0] = 0;
        // Sizes FAISS would act on while reading, before anything can be checked after it:
        // M = 0 divides by zero in ProductQuantizer::set_derived_values, 40 bits ask it for
        // 8 * 2^40 floats, and a list size of 2^40 sizes that list before a code is read.
        const auto m = ivf.pq.M;
        ivf.pq.M = 0;
        expectParseError(write("ivf-m0.dense", 2, 300, faissPayload(ivf)), "product quantizer's sizes");
        ivf.pq.M = m;
        const auto nbits = ivf.pq.nbits;
        ivf.pq.nbits = 40;
        expectParseError(write("ivf-nbits.dense", 2, 300, faissPayload(ivf)), "product quantizer's sizes");
        ivf.pq.nbits = nbits;
        std::string payload = faissPayload(ivf);
        // "full" list sizes: the last 8-byte size before the codes is list nlist-1's. Find the
        // "full" tag and overwrite the first size after its count.
        const auto full = payload.find("full");
        QVERIFY(full != std::string::npos);
        const std::uint64_t huge = std::uint64_t{1} << 40;
        std::memcpy(payload.data() + full + 4 + 8, &huge, sizeof huge);
        expectParseError(write("ivf-list-size.dense", 2, 300, payload), "more vectors than the file holds");
    }
    {
        // IndexFlatIP: "IxFI", d (4), ntotal (8), two unused (16), is_trained (1), metric (4),
        // then the count of floats at byte 37: 2^39 floats would be allocated before the read.
        faiss::IndexFlatIP flat(static_cast<long>(dim));
        flat.add(300, vectors.data());
        std::string payload = faissPayload(flat);
        const std::uint64_t huge = std::uint64_t{1} << 39;
        std::memcpy(payload.data() + 37, &huge, sizeof huge);
        expectParseError(write("flat-count.dense", 0, 300, payload), "declares 549755813888 elements");
    }
}

QTEST_APPLESS_MAIN(TestDenseIndex)
#include "test_dense_index.moc"
