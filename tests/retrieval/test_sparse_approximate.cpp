// SparseIndex above its approximateAbove size: a character 3-gram stage picks the
// candidates and the index's own model scores them. Checked against the exact index on the same
// names: every returned score is the exact score of its entry, the order is the ranking contract,
// and what the stage loses is bounded on names and near-names; short abbreviations, the posting
// budget, threads, and the refusal of vector queries (saving: test_sparse_index_io_approximate).
#include <array>
#include <map>
#include <set>

#include "retrieval/sparse_index.h"
#include "retrieval_test_support.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

constexpr float kScoreTolerance = 1e-6f;  // scores are sums of ~40 float products in [0, 1]

SparseIndexOptions approximateOptions(std::size_t candidates) {
    SparseIndexOptions options;
    options.approximateAbove = 1;  // every dictionary of two names or more
    options.approximate.candidates = candidates;
    return options;
}

SparseIndexOptions exactOptions() {
    SparseIndexOptions options;
    options.approximateAbove = 0;
    return options;
}

NameDictionary dictionaryOf(std::initializer_list<const char*> names) {
    NameDictionary dictionary;
    int id = 0;
    for (const char* name : names) dictionary.push_back({name, {"MESH:D" + std::to_string(100000 + id++)}});
    return dictionary;
}

// Names as a vocabulary's look: one to four words from a vocabulary of 3,000 words of two to
// four syllables, some with a medical ending, common words far more often than rare ones; so
// names share words and word parts as real ones do (random letters from a small alphabet, as the
// exact suites use, share every 3-gram with every name and rank by letter counts alone).
NameDictionary wordDictionary(std::uint32_t seed, std::size_t size) {
    static constexpr std::string_view consonants = "bcdfghklmnprstvz";
    static constexpr std::string_view vowels = "aeiou";
    static constexpr std::array<const char*, 8> endings{"itis", "opathy", "oma", "osis", "algia", "emia", "ic", "ase"};
    std::mt19937 random(seed);
    std::uniform_int_distribution<std::size_t> consonant(0, consonants.size() - 1), vowel(0, vowels.size() - 1),
        ending(0, endings.size() * 2);
    std::uniform_int_distribution<int> syllables(2, 4), length(1, 4);
    std::vector<std::string> vocabulary;
    for (int w = 0; w < 3000; ++w) {
        std::string word;
        for (int s = syllables(random); s > 0; --s) (word += consonants[consonant(random)]) += vowels[vowel(random)];
        if (const std::size_t e = ending(random); e < endings.size()) word += endings[e];
        vocabulary.push_back(std::move(word));
    }
    // Word rank r drawn with odds ~ 1 / (r + 10): a long tail, as in a real vocabulary.
    std::vector<double> odds;
    for (std::size_t r = 0; r < vocabulary.size(); ++r) odds.push_back(1.0 / double(r + 10));
    std::discrete_distribution<std::size_t> word(odds.begin(), odds.end());
    NameDictionary dictionary;
    for (std::size_t i = 0; i < size; ++i) {
        std::string name;
        for (int w = length(random); w > 0; --w) (name.empty() ? name : name += ' ') += vocabulary[word(random)];
        dictionary.push_back({name, {"MESH:D" + std::to_string(100000 + i)}});
    }
    return dictionary;
}

// Names and near-names of the dictionary (a word added, a letter dropped), each with the entry it
// was made from: what mentions of a known name are.
struct Query {
    std::string text;
    std::uint32_t source = 0;
};

std::vector<Query> mentionLike(const NameDictionary& dictionary, std::size_t count, std::uint32_t seed) {
    std::mt19937 random(seed);
    std::uniform_int_distribution<std::size_t> pick(0, dictionary.size() - 1);
    std::vector<Query> queries;
    for (std::size_t i = 0; i < count; ++i) {
        const auto source = static_cast<std::uint32_t>(pick(random));
        std::string name = dictionary[source].name;
        if (i % 3 == 1) name += " dis";
        if (i % 3 == 2 && name.size() > 4) name.erase(name.size() / 2, 1);
        queries.push_back({std::move(name), source});
    }
    return queries;
}

std::vector<std::string> textsOf(const std::vector<Query>& queries) {
    std::vector<std::string> texts;
    for (const auto& q : queries) texts.push_back(q.text);
    return texts;
}

std::vector<std::string> mentionLikeQueries(const NameDictionary& dictionary, std::size_t count, std::uint32_t seed) {
    return textsOf(mentionLike(dictionary, count, seed));
}

// Queries whose source entry (or an entry of the same name) is among the first k.
std::size_t sourcesFound(const NameDictionary& dictionary, const std::vector<Query>& queries,
                         const std::vector<std::vector<Candidate>>& results) {
    std::size_t found = 0;
    for (std::size_t q = 0; q < queries.size(); ++q)
        found += std::any_of(results[q].begin(), results[q].end(), [&](const Candidate& c) {
            return dictionary[c.entry].name == dictionary[queries[q].source].name;
        });
    return found;
}

}  // namespace

class TestSparseApproximate : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void switchesAboveTheThreshold() {
        const NameDictionary dictionary = test::randomDictionary(3, 500);
        SparseIndexOptions options;
        options.approximateAbove = 500;
        QVERIFY(!SparseIndex::build(dictionary, TfidfSettings::bioSyn(), options).approximate());
        options.approximateAbove = 499;
        const SparseIndex approximate = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), options);
        QVERIFY(approximate.approximate());
        QCOMPARE(approximate.size(), std::uint32_t{500});
        QVERIFY(approximate.postings().documents.empty());  // rows instead of postings
        options.approximateAbove = 0;
        QVERIFY(!SparseIndex::build(dictionary, TfidfSettings::bioSyn(), options).approximate());
    }

    void returnedScoresAreExactAndRanked() {
        const NameDictionary dictionary = test::randomDictionary(11, 4000);
        const SparseIndex exact = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), exactOptions());
        const SparseIndex approximate = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), approximateOptions(64));
        QVERIFY(approximate.approximate());
        const auto queries = mentionLikeQueries(dictionary, 150, 5);
        // Every entry's exact score for a query: the exact index asked for all of them.
        const auto everything = exact.search(std::span<const std::string>(queries), dictionary.size(), 1);
        const auto got = approximate.search(std::span<const std::string>(queries), 10, 1);
        for (std::size_t q = 0; q < queries.size(); ++q) {
            std::map<std::uint32_t, float> exactScore;
            for (const auto& c : everything[q]) exactScore[c.entry] = c.score;
            QVERIFY2(got[q].size() <= 10, queries[q].c_str());
            QVERIFY2(!got[q].empty(), queries[q].c_str());
            std::set<std::uint32_t> seen;
            for (std::size_t i = 0; i < got[q].size(); ++i) {
                const auto& c = got[q][i];
                QVERIFY2(seen.insert(c.entry).second, "an entry returned twice");
                QVERIFY(exactScore.contains(c.entry));
                QVERIFY2(std::abs(c.score - exactScore[c.entry]) <= kScoreTolerance, queries[q].c_str());
                if (i > 0)
                    QVERIFY(got[q][i - 1].score > c.score ||
                            (got[q][i - 1].score == c.score && got[q][i - 1].entry < c.entry));
            }
        }
    }

    void wideVocabularyScoresAreExact() {
        // A word vocabulary beyond 16-bit term ids: the rows keep 32-bit ids and score exactly.
        TfidfSettings words;
        words.analyzer = Analyzer::Word;
        words.minN = 1;
        words.maxN = 1;
        NameDictionary dictionary;
        for (std::size_t i = 0; i < kNarrowVocabularyLimit + 100; ++i)
            dictionary.push_back(
                {"w" + std::to_string(i) + " shared t" + std::to_string(i % 7), {"MESH:D" + std::to_string(i)}});
        const SparseIndex exact = SparseIndex::build(dictionary, words, exactOptions());
        const SparseIndex approximate = SparseIndex::build(dictionary, words, approximateOptions(64));
        QVERIFY(approximate.approximate());
        QVERIFY(approximate.vectorizer().vocabularySize() > kNarrowVocabularyLimit);
        for (const std::size_t i : {std::size_t{0}, std::size_t{12345}, kNarrowVocabularyLimit + 99}) {
            const std::string& query = dictionary[i].name;
            const auto expected = exact.search(query, 3);
            const auto got = approximate.search(query, 3);
            QVERIFY2(!got.empty(), query.c_str());
            QCOMPARE(got[0].entry, static_cast<std::uint32_t>(i));
            QCOMPARE(expected[0].entry, static_cast<std::uint32_t>(i));
            QVERIFY2(std::abs(got[0].score - expected[0].score) <= kScoreTolerance, query.c_str());
        }
    }

    void findsTheNamesExactSearchFinds() {
        // 20,000 names and 256 candidates: the stage must choose. A name asked for itself is at
        // rank 1 (its own score is the highest possible, 1); a near-name's source is in the top
        // 10 nearly as often as with exact search (the contract at scale is recall@64 at least
        // 0.99 of exact search's; see benchmarks/sparse_approximate_real.sh).
        const NameDictionary dictionary = wordDictionary(23, 20000);
        const SparseIndex exact = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), exactOptions());
        const SparseIndex approximate =
            SparseIndex::build(dictionary, TfidfSettings::bioSyn(), approximateOptions(256));
        const auto queries = mentionLike(dictionary, 300, 9);
        const auto texts = textsOf(queries);
        const auto expected = exact.search(std::span<const std::string>(texts), 10, 1);
        const auto got = approximate.search(std::span<const std::string>(texts), 10, 1);
        for (std::size_t q = 0; q < queries.size(); q += 3)
            QVERIFY2(!got[q].empty() && got[q][0].score > 1.0f - 1e-5f, texts[q].c_str());
        const std::size_t exactFound = sourcesFound(dictionary, queries, expected);
        const std::size_t approximateFound = sourcesFound(dictionary, queries, got);
        qInfo("source in the top 10: exact %zu, approximate %zu of %zu queries", exactFound, approximateFound,
              queries.size());
        QVERIFY(exactFound >= queries.size() * 9 / 10);  // the queries are near their sources
        QVERIFY(double(approximateFound) >= 0.98 * double(exactFound));
    }

    void moreCandidatesNeverRankWorse() {
        // The 64 best partial scores are among the 512 best, so no rank may get a worse name.
        const NameDictionary dictionary = wordDictionary(29, 8000);
        const auto queries = mentionLikeQueries(dictionary, 200, 13);
        std::vector<std::vector<Candidate>> previous;
        for (const std::size_t candidates : {8u, 64u, 512u}) {
            const SparseIndex approximate =
                SparseIndex::build(dictionary, TfidfSettings::bioSyn(), approximateOptions(candidates));
            const auto got = approximate.search(std::span<const std::string>(queries), 20, 1);
            std::size_t better = 0;
            for (std::size_t q = 0; q < queries.size() && !previous.empty(); ++q) {
                QVERIFY(got[q].size() >= previous[q].size());
                for (std::size_t i = 0; i < previous[q].size(); ++i) {
                    QVERIFY2(got[q][i].score >= previous[q][i].score - kScoreTolerance, queries[q].c_str());
                    better += got[q][i].score > previous[q][i].score + kScoreTolerance;
                }
            }
            if (!previous.empty()) QVERIFY2(better > 0, "more candidates changed nothing: the test tests nothing");
            previous = got;
        }
    }

    void shortAbbreviationsHaveCandidates() {
        // "GH" has no 3-gram of its own letters; padded words give it " gh" and "gh ".
        const NameDictionary dictionary =
            dictionaryOf({"ghrelin", "growth hormone", "GH", "high", "hiv infection", "gh deficiency", "HIV"});
        const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), approximateOptions(4));
        const auto gh = index.search("GH", 3);
        QVERIFY(!gh.empty());
        QCOMPARE(dictionary[gh[0].entry].name, std::string("GH"));
        const auto hiv = index.search("hiv", 3);
        QVERIFY(!hiv.empty());
        QCOMPARE(dictionary[hiv[0].entry].name, std::string("HIV"));
        QVERIFY(index.search("", 3).empty());
        QVERIFY(index.search("\xc3\xa6\xc3\xa6", 3).empty());  // no known term at all
    }

    void budgetStillReadsTheRarestTrigram() {
        // A budget of one posting: only the rarest 3-gram of the query is read, and it is
        // enough to find the one name that has it.
        const NameDictionary dictionary = dictionaryOf({"cardiomyopathy", "cardiac arrest", "myopathy", "zygomycosis"});
        SparseIndexOptions options = approximateOptions(2);
        options.approximate.postingBudget = 1;
        const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), options);
        const auto result = index.search("zygomycoses", 2);
        QVERIFY(!result.empty());
        QCOMPARE(dictionary[result[0].entry].name, std::string("zygomycosis"));
    }

    void aNameAskedForItselfIsAlwaysACandidate() {
        // The query's rarest 3-grams are those of "  epsilon", where the short name "delta epsilon"
        // has the best partial score; with one candidate and no budget, the long name spelled
        // exactly as the query is found only because an exact spelling is always a candidate.
        NameDictionary dictionary;
        for (int i = 0; i < 300; ++i)
            dictionary.push_back(
                {"alpha beta gamma delta " + std::to_string(i), {"MESH:D" + std::to_string(100000 + i)}});
        dictionary.push_back({"delta epsilon", {"MESH:D200000"}});
        dictionary.push_back({"alpha beta gamma delta epsilon", {"MESH:D200002"}});
        SparseIndexOptions options = approximateOptions(1);
        options.approximate.postingBudget = 1;
        const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), options);
        const auto result = index.search("alpha beta gamma delta epsilon", 3);
        QVERIFY(!result.empty());
        QCOMPARE(dictionary[result[0].entry].name, std::string("alpha beta gamma delta epsilon"));
        QVERIFY(result[0].score > 1.0f - 1e-5f);
        // A query spelled like no name gets the stage's one candidate, the short name.
        const auto other = index.search("alpha beta gamma delta epsilons", 3);
        QCOMPARE(other.size(), std::size_t{1});
        QVERIFY2(dictionary[other[0].entry].name == "delta epsilon", dictionary[other[0].entry].name.c_str());
    }

    void threadsGiveTheSameResults() {
        const NameDictionary dictionary = test::randomDictionary(31, 5000);
        const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), approximateOptions(32));
        const auto queries = mentionLikeQueries(dictionary, 400, 17);
        const auto one = index.search(std::span<const std::string>(queries), 8, 1);
        const auto two = index.search(std::span<const std::string>(queries), 8, 2);
        QCOMPARE(one.size(), two.size());
        for (std::size_t q = 0; q < one.size(); ++q) {
            QCOMPARE(one[q].size(), two[q].size());
            for (std::size_t i = 0; i < one[q].size(); ++i) {
                QCOMPARE(one[q][i].entry, two[q][i].entry);
                QVERIFY(std::abs(one[q][i].score - two[q][i].score) <= kScoreTolerance);
            }
        }
    }

    void repeatedQueriesAreSearchedOnceAndAnsweredEach() {
        // The batch search answers each distinct string once (a corpus repeats its mentions);
        // every position must still get the result of its own query, in both modes.
        const NameDictionary dictionary = wordDictionary(41, 3000);
        auto queries = mentionLikeQueries(dictionary, 40, 19);
        for (std::size_t i = 0; i < 40; i += 3) queries.push_back(queries[i]);  // repeats, out of order
        queries.push_back("");
        queries.push_back("");
        for (const auto& options : {exactOptions(), approximateOptions(32)}) {
            const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), options);
            const auto batch = index.search(std::span<const std::string>(queries), 5, 2);
            QCOMPARE(batch.size(), queries.size());
            for (std::size_t q = 0; q < queries.size(); ++q) {
                const auto alone = index.search(queries[q], 5);
                QCOMPARE(batch[q].size(), alone.size());
                for (std::size_t i = 0; i < alone.size(); ++i) {
                    QCOMPARE(batch[q][i].entry, alone[i].entry);
                    QVERIFY(std::abs(batch[q][i].score - alone[i].score) <= kScoreTolerance);
                }
            }
        }
    }

    void refusesWhatItCannotDo() {
        const NameDictionary dictionary = test::randomDictionary(37, 300);
        const SparseIndex index = SparseIndex::build(dictionary, TfidfSettings::bioSyn(), approximateOptions(16));
        SparseSearcher searcher(index);
        std::vector<Candidate> out;
        QVERIFY_THROWS_EXCEPTION(Error, searcher.search(index.vectorizer().transform("abc"), 4, out));
        QVERIFY(!searcher.search(dictionary[0].name, 4).empty());  // by text it works
        QVERIFY(index.memoryBytes() > 0);
    }
};

QTEST_GUILESS_MAIN(TestSparseApproximate)
#include "test_sparse_approximate.moc"
