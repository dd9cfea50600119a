// TfidfVectorizer: weights derived by hand for tiny corpora, the weighting variants, transform
// against fit, thread independence, and the restore checks. (The comparison with scikit-learn
// on real names is benchmarks/sklearn_tfidf_check.py; the figures below agree with it.)
#include <algorithm>
#include <cmath>
#include <string>
#include <variant>

#include "retrieval/tfidf.h"
#include "retrieval_test_support.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

constexpr double kTolerance = 1e-6;

TfidfSettings wordsWithoutStopWords() {
    TfidfSettings settings = TfidfSettings::leNguyenWords();  // word unigrams, stop words removed
    return settings;
}

// The weight of `term` in a row, 0 when absent.
double weightOf(const TfidfVectorizer& model, std::span<const std::uint32_t> terms, std::span<const float> weights,
                std::string_view term) {
    const std::uint32_t id = model.termId(term);
    for (std::size_t i = 0; i < terms.size(); ++i)
        if (terms[i] == id) return weights[i];
    return 0.0;
}

double weightOf(const TfidfVectorizer& model, const SparseVector& row, std::string_view term) {
    for (const auto& entry : row)
        if (entry.term == model.termId(term)) return entry.weight;
    return 0.0;
}

}  // namespace

class TestTfidf : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void charBigramsByHand() {
        // Documents "ab" and "b", characters 1-2. Terms: "ab" has a, b, ab; "b" has b.
        // Vocabulary in sorted order: a (0), ab (1), b (2). n = 2 documents.
        // df: a 1, ab 1, b 2. Smooth idf = ln((1 + n) / (1 + df)) + 1:
        //   idf(a) = idf(ab) = ln(3/2) + 1 = 1.4054651081;  idf(b) = ln(3/3) + 1 = 1.
        // "ab": raw weights 1.4054651, 1.4054651, 1; l2 norm = sqrt(2 * 1.9753321 + 1) = 2.2250090;
        //   a = ab = 1.4054651 / 2.2250090 = 0.6316672, b = 1 / 2.2250090 = 0.4494364.
        // "b": b = 1 / 1 = 1.
        // Query "ba": terms b, a, ba; "ba" is unknown and ignored. Raw a = 1.4054651, b = 1;
        //   norm = sqrt(1.9753321 + 1) = 1.7249153; a = 0.8148025, b = 0.5797387.
        const std::vector<std::string_view> documents{"ab", "b"};
        TfidfVectorizer model(TfidfSettings::bioSyn());
        const SparseRows rows = model.fitTransform(documents);
        QCOMPARE(model.vocabularySize(), std::size_t{3});
        QCOMPARE(model.term(0), std::string_view("a"));
        QCOMPARE(model.term(1), std::string_view("ab"));
        QCOMPARE(model.term(2), std::string_view("b"));
        QVERIFY(std::abs(model.idf(0) - 1.4054651081) < 1e-9);
        QCOMPARE(model.idf(2), 1.0);
        QCOMPARE(rows.rows(), std::size_t{2});
        QCOMPARE(rows.rowTerms(0).size(), std::size_t{3});
        QVERIFY(std::abs(weightOf(model, rows.rowTerms(0), rows.rowWeights(0), "a") - 0.6316672) < kTolerance);
        QVERIFY(std::abs(weightOf(model, rows.rowTerms(0), rows.rowWeights(0), "ab") - 0.6316672) < kTolerance);
        QVERIFY(std::abs(weightOf(model, rows.rowTerms(0), rows.rowWeights(0), "b") - 0.4494364) < kTolerance);
        QCOMPARE(rows.rowTerms(1).size(), std::size_t{1});
        QCOMPARE(rows.rowWeights(1)[0], 1.0f);

        const SparseVector query = model.transform("ba");
        QCOMPARE(query.size(), std::size_t{2});
        QVERIFY(std::abs(weightOf(model, query, "a") - 0.8148025) < kTolerance);
        QVERIFY(std::abs(weightOf(model, query, "b") - 0.5797387) < kTolerance);
        // Its cosine with "ab": 0.8148025 * 0.6316672 + 0.5797387 * 0.4494364 = 0.7752397.
        const double score = weightOf(model, query, "a") * 0.6316672 + weightOf(model, query, "b") * 0.4494364;
        QVERIFY(std::abs(score - 0.7752397) < kTolerance);
    }

    void wordCountsAndStopWordsByHand() {
        // "the cat sat" and "cat cat dog", English stop words removed ("the").
        // Vocabulary: cat, dog, sat. df: cat 2, dog 1, sat 1; idf: cat 1, dog = sat = 1.4054651.
        // Doc 0: cat 1, sat 1.4054651; norm sqrt(1 + 1.9753321) = 1.7249153 -> 0.5797387, 0.8148025.
        // Doc 1: cat count 2 -> 2, dog 1.4054651; norm sqrt(4 + 1.9753321) = 2.4444492
        //        -> cat 0.8181802, dog 0.5749619.
        const std::vector<std::string_view> documents{"the cat sat", "cat cat dog"};
        TfidfVectorizer model(wordsWithoutStopWords());
        const SparseRows rows = model.fitTransform(documents);
        QCOMPARE(model.vocabularySize(), std::size_t{3});
        QCOMPARE(model.termId("the"), detail::TermTable::npos);
        QVERIFY(std::abs(weightOf(model, rows.rowTerms(0), rows.rowWeights(0), "cat") - 0.5797387) < kTolerance);
        QVERIFY(std::abs(weightOf(model, rows.rowTerms(0), rows.rowWeights(0), "sat") - 0.8148025) < kTolerance);
        QVERIFY(std::abs(weightOf(model, rows.rowTerms(1), rows.rowWeights(1), "cat") - 0.8181802) < kTolerance);
        QVERIFY(std::abs(weightOf(model, rows.rowTerms(1), rows.rowWeights(1), "dog") - 0.5749619) < kTolerance);
    }

    void weightingVariantsByHand() {
        const std::vector<std::string_view> documents{"the cat sat", "cat cat dog"};
        // Sublinear tf and l1 norm: doc 1 cat tf = 1 + ln 2 = 1.6931472 (idf 1), dog 1.4054651;
        //   l1 norm 3.0986123 -> cat 0.5464211, dog 0.4535789.
        TfidfSettings sublinear = wordsWithoutStopWords();
        sublinear.sublinearTf = true;
        sublinear.norm = Norm::L1;
        TfidfVectorizer model(sublinear);
        SparseRows rows = model.fitTransform(documents);
        QVERIFY(std::abs(weightOf(model, rows.rowTerms(1), rows.rowWeights(1), "cat") - 0.5464211) < kTolerance);
        QVERIFY(std::abs(weightOf(model, rows.rowTerms(1), rows.rowWeights(1), "dog") - 0.4535789) < kTolerance);
        // Plain idf = ln(n / df) + 1 and no norm: dog = sat = ln 2 + 1 = 1.6931472, cat 1 per count.
        TfidfSettings plain = wordsWithoutStopWords();
        plain.smoothIdf = false;
        plain.norm = Norm::None;
        model = TfidfVectorizer(plain);
        rows = model.fitTransform(documents);
        QVERIFY(std::abs(model.idf(model.termId("dog")) - 1.6931472) < kTolerance);
        QCOMPARE(weightOf(model, rows.rowTerms(1), rows.rowWeights(1), "cat"), 2.0);
        QVERIFY(std::abs(weightOf(model, rows.rowTerms(0), rows.rowWeights(0), "sat") - 1.6931472) < kTolerance);
        // No idf, no norm: raw counts.
        TfidfSettings counts = wordsWithoutStopWords();
        counts.useIdf = false;
        counts.norm = Norm::None;
        model = TfidfVectorizer(counts);
        rows = model.fitTransform(documents);
        QCOMPARE(weightOf(model, rows.rowTerms(1), rows.rowWeights(1), "cat"), 2.0);
        QCOMPARE(weightOf(model, rows.rowTerms(1), rows.rowWeights(1), "dog"), 1.0);
    }

    void transformIgnoresUnknownTermsAndNormsOverKnownOnes() {
        const std::vector<std::string_view> documents{"alpha beta", "beta gamma"};
        TfidfVectorizer model(wordsWithoutStopWords());
        model.fit(documents);
        const SparseVector known = model.transform("beta");
        QCOMPARE(known.size(), std::size_t{1});
        QCOMPARE(known[0].weight, 1.0f);  // "beta" alone, normalized over the known terms only
        const SparseVector mixed = model.transform("beta unknown words");
        QCOMPARE(mixed.size(), std::size_t{1});
        QCOMPARE(mixed[0].weight, 1.0f);
        QVERIFY(model.transform("nothing known here").empty());
        QVERIFY(model.transform("").empty());
        // Sorted by term, each once.
        const SparseVector both = model.transform("gamma alpha gamma");
        QCOMPARE(both.size(), std::size_t{2});
        QVERIFY(both[0].term < both[1].term);
    }

    void fittedRowsEqualTransformedDocuments() {
        // Bit for bit: fitting and transforming weigh in the same order.
        for (const auto& settings :
             {TfidfSettings::bioSyn(), TfidfSettings::leNguyenChars(), TfidfSettings::leNguyenWords()}) {
            const auto dictionary = test::randomDictionary(7, 300);
            const auto names = test::namesOf(dictionary);
            TfidfVectorizer model(settings);
            const SparseRows rows = model.fitTransform(names);
            QCOMPARE(model.documentCount(), std::uint64_t{300});
            for (std::size_t d = 0; d < names.size(); ++d) {
                const SparseVector row = model.transform(names[d]);
                QCOMPARE(row.size(), rows.rowTerms(d).size());
                for (std::size_t i = 0; i < row.size(); ++i) {
                    QCOMPARE(row[i].term, rows.rowTerms(d)[i]);
                    QCOMPARE(row[i].weight, rows.rowWeights(d)[i]);
                }
            }
        }
    }

    void compactRowsHoldTheSameRowsInNarrowerIds() {
        // BioSyn's character 1-2 grams of random names: a few thousand terms, 16-bit ids.
        const auto dictionary = test::randomDictionary(7, 2000);
        const auto names = test::namesOf(dictionary);
        TfidfVectorizer wide(TfidfSettings::bioSyn());
        TfidfVectorizer compact(TfidfSettings::bioSyn());
        const SparseRows rows = wide.fitTransform(names);
        const CompactSparseRows compactRows = compact.fitTransformCompact(names, 2);
        QVERIFY(std::holds_alternative<NarrowSparseRows>(compactRows));
        const auto& narrow = std::get<NarrowSparseRows>(compactRows);
        QVERIFY(rows.offsets == narrow.offsets);
        QVERIFY(rows.weights == narrow.weights);  // the same floats: only the ids' width differs
        QCOMPARE(narrow.terms.size(), rows.terms.size());
        for (std::size_t i = 0; i < rows.terms.size(); ++i) QCOMPARE(std::uint32_t{narrow.terms[i]}, rows.terms[i]);
        QVERIFY(narrow.memoryBytes() < rows.memoryBytes());

        // A word vocabulary of more than 65,536 terms keeps 32-bit ids, the highest included.
        TfidfSettings words;
        words.analyzer = Analyzer::Word;
        words.minN = 1;
        words.maxN = 1;
        std::vector<std::string> texts;
        for (std::size_t i = 0; i < kNarrowVocabularyLimit + 10; ++i)
            texts.push_back("w" + std::to_string(i) + " shared");
        const std::vector<std::string_view> views(texts.begin(), texts.end());
        TfidfVectorizer many(words);
        const CompactSparseRows manyRows = many.fitTransformCompact(views, 2);
        QCOMPARE(many.vocabularySize(), kNarrowVocabularyLimit + 11);
        QVERIFY(std::holds_alternative<SparseRows>(manyRows));
        const auto& wideRows = std::get<SparseRows>(manyRows);
        QCOMPARE(wideRows.rows(), texts.size());
        // The last term in sorted order has an id beyond the narrow range; its row holds it whole.
        const auto last = static_cast<std::uint32_t>(many.vocabularySize() - 1);
        QVERIFY(last > 0xFFFFu);
        const std::string lastTerm(many.term(last));
        QVERIFY(lastTerm.starts_with("w"));
        const auto row = static_cast<std::size_t>(std::stoul(lastTerm.substr(1)));
        const auto lastTerms = wideRows.rowTerms(row);
        QVERIFY(std::find(lastTerms.begin(), lastTerms.end(), last) != lastTerms.end());
    }

    void resultDoesNotDependOnThreads() {
        // Enough names for three threads to get a share each (4,096 per thread at least).
        const auto dictionary = test::randomDictionary(11, 13000);
        const auto names = test::namesOf(dictionary);
        TfidfVectorizer one(TfidfSettings::leNguyenChars());
        TfidfVectorizer three(TfidfSettings::leNguyenChars());
        const SparseColumns a = one.fitTransformColumns(names, 1);
        const SparseColumns b = three.fitTransformColumns(names, 3);
        QCOMPARE(one.vocabularySize(), three.vocabularySize());
        for (std::uint32_t t = 0; t < one.vocabularySize(); ++t) QCOMPARE(one.term(t), three.term(t));
        QVERIFY(std::equal(one.idfs().begin(), one.idfs().end(), three.idfs().begin()));
        QVERIFY(a.offsets == b.offsets);
        QVERIFY(a.documents == b.documents);
        QVERIFY(a.weights == b.weights);
        // Columns are sorted by document.
        for (std::uint32_t t = 0; t < one.vocabularySize(); ++t)
            QVERIFY(std::is_sorted(a.documents.begin() + static_cast<std::ptrdiff_t>(a.offsets[t]),
                                   a.documents.begin() + static_cast<std::ptrdiff_t>(a.offsets[t + 1])));
    }

    void rowsAreTheColumnsTransposed() {
        // fitTransform writes rows itself (no columns in between): on three threads they hold
        // exactly the postings of fitTransformColumns on one, term by term.
        const auto dictionary = test::randomDictionary(13, 13000);
        const auto names = test::namesOf(dictionary);
        TfidfVectorizer byRow(TfidfSettings::bioSyn());
        TfidfVectorizer byColumn(TfidfSettings::bioSyn());
        const SparseRows rows = byRow.fitTransform(names, 3);
        const SparseColumns columns = byColumn.fitTransformColumns(names, 1);
        QCOMPARE(rows.rows(), names.size());
        QCOMPARE(rows.terms.size(), columns.documents.size());
        std::vector<std::uint64_t> next(rows.offsets.begin(), rows.offsets.end() - 1);
        for (std::uint32_t t = 0; t < byColumn.vocabularySize(); ++t)
            for (std::uint64_t p = columns.offsets[t]; p < columns.offsets[t + 1]; ++p) {
                const std::uint64_t at = next[columns.documents[p]]++;
                QCOMPARE(rows.terms[at], t);
                QCOMPARE(rows.weights[at], columns.weights[p]);
            }
        for (std::size_t d = 0; d < names.size(); ++d) QCOMPARE(next[d], rows.offsets[d + 1]);
    }

    void duplicateDocumentsCountTwice() {
        // As in scikit-learn, each document counts for df and n, even a repeated one.
        const std::vector<std::string_view> documents{"x", "x", "y"};
        TfidfVectorizer model(TfidfSettings::bioSyn());
        model.fit(documents);
        QVERIFY(std::abs(model.idf(model.termId("x")) - (std::log(4.0 / 3.0) + 1.0)) < 1e-12);
        QVERIFY(std::abs(model.idf(model.termId("y")) - (std::log(4.0 / 2.0) + 1.0)) < 1e-12);
    }

    void emptyCollectionGivesAnEmptyVocabulary() {
        TfidfVectorizer model(TfidfSettings::bioSyn());
        const SparseRows rows = model.fitTransform({});
        QVERIFY(model.fitted());
        QCOMPARE(model.vocabularySize(), std::size_t{0});
        QCOMPARE(rows.rows(), std::size_t{0});
        QVERIFY(model.transform("anything").empty());
    }

    void misuseIsAnError() {
        const TfidfVectorizer unfitted(TfidfSettings::bioSyn());
        QVERIFY_THROWS_EXCEPTION(Error, unfitted.transform("x"));
        TfidfVectorizer model(TfidfSettings::bioSyn());
        model.fit(std::vector<std::string_view>{"abc"});
        QVERIFY_THROWS_EXCEPTION(Error, model.transform("bad \xc0\x80 overlong"));
        TermAnalyzer otherSettings(TfidfSettings::leNguyenWords());
        SparseVector out;
        QVERIFY_THROWS_EXCEPTION(Error, model.transform("abc", otherSettings, out));
        const std::vector<std::string_view> withInvalid{"fine", "bro\xffken"};
        QVERIFY_THROWS_EXCEPTION(Error, model.fit(withInvalid));
    }

    void restoreChecksItsParts() {
        const std::vector<std::string_view> terms{"a", "ab", "b"};
        const auto model = TfidfVectorizer::restore(TfidfSettings::bioSyn(), terms, {1.5, 1.5, 1.0}, 2);
        QCOMPARE(model.termId("ab"), 1u);
        QCOMPARE(model.transform("b").size(), std::size_t{1});
        const std::vector<std::string_view> unsorted{"b", "a"};
        QVERIFY_THROWS_EXCEPTION(Error, TfidfVectorizer::restore(TfidfSettings::bioSyn(), unsorted, {1, 1}, 2));
        const std::vector<std::string_view> repeated{"a", "a"};
        QVERIFY_THROWS_EXCEPTION(Error, TfidfVectorizer::restore(TfidfSettings::bioSyn(), repeated, {1, 1}, 2));
        QVERIFY_THROWS_EXCEPTION(Error, TfidfVectorizer::restore(TfidfSettings::bioSyn(), terms, {1, 1}, 2));
        QVERIFY_THROWS_EXCEPTION(Error, TfidfVectorizer::restore(TfidfSettings::bioSyn(), terms, {1, -1, 1}, 2));
        QVERIFY_THROWS_EXCEPTION(Error, TfidfVectorizer::restore(TfidfSettings::bioSyn(), terms, {1, 1, 1}, 0));
        const std::vector<std::string_view> empty{""};
        QVERIFY_THROWS_EXCEPTION(Error, TfidfVectorizer::restore(TfidfSettings::bioSyn(), empty, {1}, 1));
    }
};

QTEST_APPLESS_MAIN(TestTfidf)
#include "test_tfidf.moc"
