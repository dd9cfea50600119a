// SparseIndex: exact top-k, equal to a brute-force ranking (dense dot products computed here)
// on random dictionaries and queries, with both scoring paths (tiles over dense columns, and
// touched postings), ties, threads, and the edge cases.
#include <thread>

#include "retrieval/sparse_index.h"
#include "retrieval_test_support.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

struct Setup {
    const char* label;
    TfidfSettings settings;
    double denseFraction;
};

// Char n-grams with dense columns take the tiled path; without dense columns, queries with many
// postings take it too and rare ones the touched path; word queries mostly the touched path.
std::vector<Setup> setups() {
    TfidfSettings words = TfidfSettings::leNguyenWords();
    words.englishStopWords = false;
    return {{"char 1-2, dense columns", TfidfSettings::bioSyn(), 0.125},
            {"char 1-2, no dense columns", TfidfSettings::bioSyn(), 2.0},
            {"char 2-5, dense columns", TfidfSettings::leNguyenChars(), 0.05},
            {"word 1-2, no dense columns",
             [] {
                 TfidfSettings s = TfidfSettings::leNguyenWords();
                 s.maxN = 2;
                 return s;
             }(),
             2.0},
            {"word 1-1, every word dense", words, 0.0}};
}

std::vector<std::string> randomQueries(std::uint32_t seed, const NameDictionary& dictionary, std::size_t count) {
    std::mt19937 random(seed);
    std::vector<std::string> queries;
    std::uniform_int_distribution<std::size_t> pick(0, dictionary.size() - 1);
    for (std::size_t i = 0; i < count; ++i) {
        switch (i % 4) {
            case 0:
                queries.push_back(dictionary[pick(random)].name);
                break;  // a name itself
            case 1:
                queries.push_back(dictionary[pick(random)].name + " x");
                break;  // near a name
            case 2:
                queries.push_back(test::randomName(random));
                break;  // anything
            default:
                queries.push_back(test::randomName(random, "aeiouzq"));
                break;  // partly unknown
        }
    }
    return queries;
}

}  // namespace

class TestSparseIndex : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void equalsBruteForce_data() {
        QTest::addColumn<int>("setup");
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("names");
        for (int s = 0; s < static_cast<int>(setups().size()); ++s)
            for (const auto& [seed, names] : std::vector<std::pair<int, int>>{{1, 40}, {2, 300}, {3, 2500}})
                QTest::addRow("%s, seed %d, %d names", setups()[static_cast<std::size_t>(s)].label, seed, names)
                    << s << seed << names;
    }
    void equalsBruteForce() {
        QFETCH(int, setup);
        QFETCH(int, seed);
        QFETCH(int, names);
        const Setup chosen = setups()[static_cast<std::size_t>(setup)];
        const auto dictionary =
            test::randomDictionary(static_cast<std::uint32_t>(seed), static_cast<std::size_t>(names));
        SparseIndexOptions options;
        options.denseFraction = chosen.denseFraction;
        const SparseIndex index = SparseIndex::build(dictionary, chosen.settings, options);
        QCOMPARE(index.size(), static_cast<std::uint32_t>(names));
        if (chosen.denseFraction <= 0.125 && chosen.settings.analyzer == Analyzer::Char)
            QVERIFY(index.denseTerms() > 0);
        if (chosen.denseFraction > 1.0) QCOMPARE(index.denseTerms(), std::size_t{0});

        TfidfVectorizer model(chosen.settings);  // fitted again here: the rows the brute force uses
        const SparseRows rows = model.fitTransform(test::namesOf(dictionary));
        const auto queries = randomQueries(static_cast<std::uint32_t>(seed) * 31, dictionary, 24);
        std::vector<std::vector<Candidate>> everything;  // each query's whole brute-force ranking
        for (const auto& query : queries)
            everything.push_back(
                test::bruteForceRanking(rows, model.vocabularySize(), model.transform(query), dictionary.size()));
        for (const std::size_t k :
             {std::size_t{1}, std::size_t{5}, std::size_t{64}, static_cast<std::size_t>(names) + 7}) {
            const auto batch = index.search(queries, k, 2);
            for (std::size_t q = 0; q < queries.size(); ++q) {
                auto expected = everything[q];  // a top k is a prefix of the whole ranking
                if (expected.size() > k) expected.resize(k);
                const std::string difference = test::rankingDifference(batch[q], expected);
                QVERIFY2(difference.empty(), qPrintable(QString::fromStdString("query \"" + queries[q] + "\", k " +
                                                                               std::to_string(k) + ": " + difference)));
                QVERIFY(test::rankingDifference(index.search(queries[q], k), expected).empty());
            }
        }
    }

    void tiesGoToTheLowerEntry() {
        // Five copies of one name (entries 1, 2, 4, 5, 7) score the same for any query: they
        // come out in entry order, and k cuts the later ones.
        NameDictionary dictionary;
        for (const char* name : {"zzz", "heart attack", "heart attack", "zzz", "heart attack", "heart attack", "yyy",
                                 "heart attack", "hearts"})
            dictionary.push_back({name, {"MESH:D0"}});
        for (const double dense : {0.125, 2.0}) {
            SparseIndexOptions options;
            options.denseFraction = dense;
            const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), options);
            const auto all = index.search("heart attack", 10);
            QVERIFY(all.size() >= 5);
            for (std::size_t i = 0; i < 5; ++i) QCOMPARE(all[i].score, all[0].score);
            QCOMPARE(all[0].entry, 1u);
            QCOMPARE(all[1].entry, 2u);
            QCOMPARE(all[2].entry, 4u);
            QCOMPARE(all[3].entry, 5u);
            QCOMPARE(all[4].entry, 7u);
            QVERIFY(all[5].score < all[4].score);
            const auto three = index.search("heart attack", 3);
            QCOMPARE(three.size(), std::size_t{3});
            QCOMPARE(three[2].entry, 4u);
            QVERIFY(std::abs(all[0].score - 1.0f) < 1e-6f);  // the query equals the name: cosine 1
        }
    }

    void threadsGiveIdenticalResults() {
        const auto dictionary = test::randomDictionary(5, 3000);
        const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::bioSyn());
        const auto queries = randomQueries(99, dictionary, 300);
        const auto one = index.search(queries, 20, 1);
        for (const unsigned threads : {2u, 4u, 0u}) {
            const auto many = index.search(queries, 20, threads);
            QCOMPARE(many.size(), one.size());
            for (std::size_t q = 0; q < one.size(); ++q) QVERIFY(test::rankingDifference(many[q], one[q]).empty());
        }
        // A searcher reused across queries gives what a fresh search gives.
        SparseSearcher searcher(index);
        for (std::size_t q = 0; q < 50; ++q)
            QVERIFY(test::rankingDifference(searcher.search(queries[q], 20), one[q]).empty());
    }

    void buildDoesNotDependOnThreads() {
        const auto dictionary = test::randomDictionary(8, 9000);
        SparseIndexOptions one, three;
        one.threads = 1;
        three.threads = 3;
        const SparseIndex a = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), one);
        const SparseIndex b = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), three);
        QVERIFY(a.postings().offsets == b.postings().offsets);
        QVERIFY(a.postings().documents == b.postings().documents);
        QVERIFY(a.postings().weights == b.postings().weights);
        QVERIFY(a.fingerprint() == b.fingerprint());
    }

    void queriesWithoutKnownTermsFindNothing() {
        const auto dictionary = test::randomDictionary(4, 200);  // letters "abcdeiklmnorst" only
        const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::bioSyn());
        QVERIFY(index.search("zzzqqq", 10).empty());  // no space either: " " is a term
        QVERIFY(index.search("", 10).empty());
        QVERIFY(index.search("abc", 0).empty());
        const std::vector<std::string> queries{"", "zz", "abc"};
        const auto results = index.search(queries, 5, 2);
        QVERIFY(results[0].empty() && results[1].empty());
        QCOMPARE(results[2].size(), std::size_t{5});
    }

    void fewerThanKMatchingNames() {
        NameDictionary dictionary{{"alpha", {"A"}}, {"beta", {"B"}}, {"gamma", {"C"}}};
        const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::leNguyenWords());
        const auto found = index.search("beta", 10);
        QCOMPARE(found.size(), std::size_t{1});  // only the name sharing a term; no zero scores
        QCOMPARE(found[0].entry, 1u);
    }

    void emptyDictionary() {
        const NameDictionary dictionary;
        const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::bioSyn());
        QCOMPARE(index.size(), 0u);
        QCOMPARE(index.vectorizer().vocabularySize(), std::size_t{0});
        QVERIFY(index.search("anything", 5).empty());
        const std::vector<std::string> queries{"a", "b"};
        const auto results = index.search(queries, 5);
        QCOMPARE(results.size(), std::size_t{2});
        QVERIFY(results[0].empty() && results[1].empty());
        const SparseIndex defaulted;
        QVERIFY(defaulted.search("x", 3).empty());
    }

    void invalidQueryIsAnError() {
        const auto dictionary = test::randomDictionary(6, 100);
        const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::bioSyn());
        QVERIFY_THROWS_EXCEPTION(Error, index.search("bad \xff", 5));
        std::vector<std::string> queries(200, "abc");
        queries[150] = "bad \xfe";
        QVERIFY_THROWS_EXCEPTION(Error, index.search(queries, 5, 3));
        QVERIFY_THROWS_EXCEPTION(Error, index.search(queries, 5, 1));
    }

    void invalidQueryVectorIsAnError() {
        const auto dictionary = test::randomDictionary(6, 100);
        const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::bioSyn());
        SparseSearcher searcher(index);
        std::vector<Candidate> out;
        const auto vocabulary = static_cast<std::uint32_t>(index.vectorizer().vocabularySize());
        QVERIFY_THROWS_EXCEPTION(Error, searcher.search(SparseVector{{vocabulary, 1.0f}}, 5, out));
        QVERIFY_THROWS_EXCEPTION(Error, searcher.search(SparseVector{{2, 0.5f}, {1, 0.5f}}, 5, out));
        QVERIFY_THROWS_EXCEPTION(Error, searcher.search(SparseVector{{1, 0.5f}, {1, 0.5f}}, 5, out));
        searcher.search(SparseVector{{0, 1.0f}}, 5, out);  // a valid one still works
        QVERIFY(!out.empty());
    }

    void invalidNameIsAnError() {
        const NameDictionary dictionary{{"ok", {"A"}}, {"bro\xffken", {"B"}}};
        QVERIFY_THROWS_EXCEPTION(Error, SparseIndex::build(dictionary, TfidfSettings::bioSyn()));
    }

    void buildFromBareNames() {
        const auto dictionary = test::randomDictionary(9, 150);
        const auto names = test::namesOf(dictionary);
        const SparseIndex fromNames = SparseIndex::build(names, TfidfSettings::bioSyn());
        const SparseIndex fromDictionary = SparseIndex::build(dictionary, TfidfSettings::bioSyn());
        QVERIFY(fromNames.postings().weights == fromDictionary.postings().weights);
        QVERIFY(fromNames.fingerprint() == fingerprintOf(names));
        QVERIFY(!(fromNames.fingerprint() == fromDictionary.fingerprint()));  // the ids count
        QVERIFY(fromDictionary.memoryBytes() > fromDictionary.postings().weights.size() * 8);
    }

    void fingerprintSeesEveryChange() {
        NameDictionary dictionary{{"ab", {"X", "Y"}}, {"c", {"Z"}}};
        const auto original = fingerprintOf(dictionary);
        QCOMPARE(original.names, std::uint64_t{2});
        QCOMPARE(fingerprintOf(dictionary), original);
        auto changed = dictionary;
        changed[1].name = "d";
        QVERIFY(!(fingerprintOf(changed) == original));
        changed = dictionary;
        changed[0].ids[1] = "W";
        QVERIFY(!(fingerprintOf(changed) == original));
        changed = dictionary;
        std::swap(changed[0], changed[1]);
        QVERIFY(!(fingerprintOf(changed) == original));
        changed = dictionary;  // the same characters, cut differently
        changed[0].name = "a";
        changed[1].name = "bc";
        QVERIFY(!(fingerprintOf(changed) == original));
        QVERIFY(original.describe().find("2 names, fingerprint 0x") == 0);
        QCOMPARE((DictionaryFingerprint{73024, 0}.describe()),
                 std::string("73,024 names, fingerprint 0x0000000000000000"));
    }
};

QTEST_APPLESS_MAIN(TestSparseIndex)
#include "test_sparse_index.moc"
