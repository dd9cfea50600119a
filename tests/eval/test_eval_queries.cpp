// Query building on fixtures: CUI-less and unknown ids dropped and counted, abbreviations
// expanded from the document, composite mentions split (and BioSyn's joined normalization),
// OMIM golds mapped to the KB's primary ids, mixed OMIM/MeSH lists, '+' conjunctions, the types
// filter, and mentions that cannot be normalized.
#include <algorithm>

#include "corpus/corpus.h"
#include "corpus/pubtator_reader.h"
#include "eval/biosyn_abbreviations.h"
#include "eval/queries.h"
#include "eval_fixtures.h"
#include "kb/dictionary_loader.h"
#include "test_data.h"
#include "text/abbreviations.h"
#include "text/normalizer.h"
#include "text/spelling_map.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::eval;
using test::FixtureMention;
using Strings = std::vector<std::string>;

namespace {

const EvalQuery* findQuery(const QuerySet& set, std::string_view mention) {
    const auto found =
        std::find_if(set.queries.begin(), set.queries.end(), [&](const auto& q) { return q.mention == mention; });
    return found == set.queries.end() ? nullptr : &*found;
}

}  // namespace

class TestEvalQueries : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    kb::KnowledgeBase kb_;
    Corpus corpus_;
    std::shared_ptr<const text::SpellingMap> spelling_;

    std::filesystem::path file(const char* name) const {
        return std::filesystem::path(dir_.path().toStdString()) / name;
    }

    QueryOptions bioSynOptions() const {
        QueryOptions options;
        options.normalizer = bioSynQueryNormalizer(spelling_);
        return options;
    }

private Q_SLOTS:
    void initTestCase() {
        test::writeFile(file("kb.txt"), test::kFixtureKb);
        kb_ = kb::loadDictionary(file("kb.txt")).kb;
        test::writeFile(file("spelling.txt"), "tumours||tumors\n");
        spelling_ = std::make_shared<const text::SpellingMap>(text::SpellingMap::load(file("spelling.txt")));

        std::string corpus;
        corpus += test::pubTatorDocument(
            "1001", "Huntington disease (HD) and breast and ovarian cancer.",
            "Patients with HD had Tumours and an unnamed condition. Tooth agenesis was seen; ACTH deficiency too. "
            "A weird syndrome and cold fever were noted, as were pineal and retinal tumours.",
            {{"Huntington disease", "SpecificDisease", "D006816"},
             {"HD", "SpecificDisease", "D006816", 1},
             {"breast and ovarian cancer", "Modifier", "D001943|D010051"},
             {"Tumours", "DiseaseClass", "D009369"},
             {"unnamed condition", "DiseaseClass", "-1"},
             {"Tooth agenesis", "SpecificDisease", "OMIM:613097"},
             {"ACTH deficiency", "SpecificDisease", "OMIM:201400|C535668"},
             {"weird syndrome", "SpecificDisease", "D999999"},
             {"cold fever", "DiseaseClass", "D003139+D009369"},
             {"pineal and retinal tumours", "SpecificDisease", "D010871|D019572"}});
        test::writeFile(file("corpus.txt"), corpus);
        corpus_ = readPubTator(file("corpus.txt"));
        QCOMPARE(corpus_.documents().front().mentions.size(), std::size_t{10});
    }

    void countsDroppedMentions() {
        const QuerySet set = buildQueries(corpus_, kb_, bioSynOptions());
        const auto& s = set.statistics;
        QCOMPARE(s.documents, std::size_t{1});
        QCOMPARE(s.mentions, std::size_t{10});
        QCOMPARE(s.cuiLessDropped, std::size_t{1});     // "unnamed condition" (-1)
        QCOMPARE(s.unknownIdsDropped, std::size_t{1});  // "weird syndrome" (D999999 not in the KB)
        QCOMPARE(s.queries, std::size_t{8});
        QCOMPARE(set.queries.size(), s.queries);
        QVERIFY(!findQuery(set, "unnamed condition"));
        QVERIFY(!findQuery(set, "weird syndrome"));
        // Queries keep the corpus order and the mention's place in it.
        QCOMPARE(set.queries.front().mention, std::string("Huntington disease"));
        QCOMPARE(set.queries.front().document, std::string("1001"));
        QCOMPARE(set.queries.front().start, std::size_t{0});
        QCOMPARE(set.queries.front().end, std::size_t{18});
        QCOMPARE(set.queries.front().sourceLine, std::size_t{3});
        QCOMPARE(set.queries.front().parts, Strings{"huntington disease"});
        QCOMPARE(set.queries.front().goldIds, Strings{"MESH:D006816"});
    }

    void unknownIdsCanBeKept() {
        QueryOptions options = bioSynOptions();
        options.dropUnknownIds = false;
        const QuerySet set = buildQueries(corpus_, kb_, options);
        QCOMPARE(set.statistics.unknownIdsKept, std::size_t{1});
        QCOMPARE(set.statistics.queries, std::size_t{9});
        const auto* weird = findQuery(set, "weird syndrome");
        QVERIFY(weird);
        QCOMPARE(weird->goldIds, Strings{"MESH:D999999"});
    }

    void expandsAbbreviationsFromTheDocument() {
        const QuerySet set = buildQueries(corpus_, kb_, bioSynOptions());
        const auto* hd = findQuery(set, "HD");
        QVERIFY(hd);
        QVERIFY(hd->abbreviationExpanded);
        QCOMPARE(hd->expanded, std::string("Huntington disease"));
        QCOMPARE(hd->parts, Strings{"huntington disease"});
        QCOMPARE(set.statistics.abbreviationsExpanded, std::size_t{1});

        QueryOptions off = bioSynOptions();
        off.expandAbbreviations = false;
        const QuerySet plain = buildQueries(corpus_, kb_, off);
        const auto* unexpanded = findQuery(plain, "HD");
        QVERIFY(unexpanded);
        QVERIFY(!unexpanded->abbreviationExpanded);
        QCOMPARE(unexpanded->parts, Strings{"hd"});
        QCOMPARE(plain.statistics.abbreviationsExpanded, std::size_t{0});
    }

    void abbreviationsTokenByTokenOrAnywhere() {
        test::writeFile(file("hyphen.txt"),
                        test::pubTatorDocument("2002", "Hypoxanthine phosphoribosyltransferase (HPRT) deficiency.",
                                               "HPRT-deficient cells and HPRT deficiency were studied.",
                                               {{"HPRT-deficient", "Modifier", "D006816"},
                                                {"HPRT deficiency", "SpecificDisease", "D006816"}}));
        const Corpus corpus = readPubTator(file("hyphen.txt"));
        // BioSyn's default: whole tokens only, so the hyphenated mention keeps its short form.
        const QuerySet tokens = buildQueries(corpus, kb_, bioSynOptions());
        QCOMPARE(findQuery(tokens, "HPRT-deficient")->parts, Strings{"hprt deficient"});
        QVERIFY(!findQuery(tokens, "HPRT-deficient")->abbreviationExpanded);
        QCOMPARE(findQuery(tokens, "HPRT deficiency")->parts,
                 Strings{"hypoxanthine phosphoribosyltransferase deficiency"});
        QCOMPARE(tokens.statistics.abbreviationsExpanded, std::size_t{1});

        QueryOptions anywhere = bioSynOptions();
        anywhere.abbreviationMatching = AbbreviationMatching::Anywhere;
        const QuerySet loose = buildQueries(corpus, kb_, anywhere);
        QCOMPARE(findQuery(loose, "HPRT-deficient")->parts,
                 Strings{"hypoxanthine phosphoribosyltransferase deficient"});
        QCOMPARE(loose.statistics.abbreviationsExpanded, std::size_t{2});
    }

    void bioSynTokenExpansionRules() {
        const auto definition = [](std::string shortForm, std::string longForm) {
            text::AbbreviationDefinition d;
            d.shortForm = std::move(shortForm);
            d.longForm = std::move(longForm);
            return d;
        };
        const std::vector<text::AbbreviationDefinition> definitions = {
            definition("CL", "cleft lip"),
            definition("P", "palate"),
            definition("HD", "Hun disease"),
            definition("HD", "Huntington disease"),  // defined twice: the last wins
            definition("Hex A", "hexosaminidase A"),
            definition("IDMS", "isolated DMS"),
            definition("DMS", "diffuse mesangial sclerosis"),
            definition("LOOP", "LOOP again")};
        QCOMPARE(expandAbbreviationTokens("CL/P", definitions).text, std::string("cleft lip/palate"));
        QCOMPARE(expandAbbreviationTokens("HD, or CL", definitions).text,
                 std::string("Huntington disease, or cleft lip"));
        QCOMPARE(expandAbbreviationTokens("IDMS", definitions).text,
                 std::string("isolated diffuse mesangial sclerosis"));  // re-read until stable
        const auto untouched = expandAbbreviationTokens("HD-related  Hex A", definitions);
        QCOMPARE(untouched.text, std::string("HD-related Hex A"));  // inside a token, two-word short form
        QVERIFY(!untouched.changed);
        const auto cyclic = expandAbbreviationTokens("LOOP", definitions);  // terminates
        QVERIFY(cyclic.changed);
        QVERIFY(cyclic.text.starts_with("LOOP again again"));
        QCOMPARE(expandAbbreviationTokens("", definitions).text, std::string());
    }

    void splitsCompositeMentions() {
        const QuerySet set = buildQueries(corpus_, kb_, bioSynOptions());
        const auto* composite = findQuery(set, "breast and ovarian cancer");
        QVERIFY(composite);
        QVERIFY(composite->composite);
        QVERIFY(!composite->splitFailed);
        QCOMPARE(composite->join, IdJoin::Alternative);
        QCOMPARE(composite->parts, (Strings{"breast cancer", "ovarian cancer"}));
        QCOMPARE(composite->goldIds, (Strings{"MESH:D001943", "MESH:D010051"}));

        QueryOptions off = bioSynOptions();
        off.splitComposites = false;
        const QuerySet unsplit = buildQueries(corpus_, kb_, off);
        const auto* whole = findQuery(unsplit, "breast and ovarian cancer");
        QVERIFY(whole);
        QVERIFY(whole->composite);
        QVERIFY(whole->splitFailed);
        QCOMPARE(whole->parts, Strings{"breast and ovarian cancer"});
    }

    void compositePartsListedByTheCorpus() {
        // BC5CDR lists the parts of a composite in a 7th column; they are used as they are
        // (abbreviations expanded), here deliberately different from what the splitter makes.
        test::writeFile(file("bc5cdr.txt"),
                        test::pubTatorDocument(
                            "4004", "Ovarian and breast neoplasms (OBN) in women.", "Rare.",
                            {{"Ovarian and breast neoplasms", "Disease", "D010051|D001943", 0, "ovary tumour|OBN"}}));
        const Corpus corpus = readPubTator(file("bc5cdr.txt"));
        const QuerySet listed = buildQueries(corpus, kb_, bioSynOptions());
        QCOMPARE(listed.queries.front().parts, (Strings{"ovary tumour", "ovarian and breast neoplasms"}));
        QCOMPARE(listed.queries.front().expanded, std::string("ovary tumour|Ovarian and breast neoplasms"));
        QVERIFY(listed.queries.front().abbreviationExpanded);
        QCOMPARE(listed.statistics.compositesFromCorpus, std::size_t{1});
        QCOMPARE(listed.statistics.compositesSplit, std::size_t{1});

        QueryOptions splitter = bioSynOptions();
        splitter.useIndividualMentions = false;
        const QuerySet split = buildQueries(corpus, kb_, splitter);
        QCOMPARE(split.queries.front().parts, (Strings{"ovarian neoplasms", "breast neoplasms"}));
        QCOMPARE(split.statistics.compositesFromCorpus, std::size_t{0});

        QueryOptions whole = bioSynOptions();
        whole.splitComposites = false;  // one part per mention, listed parts or not
        QCOMPARE(buildQueries(corpus, kb_, whole).queries.front().parts, Strings{"ovarian and breast neoplasms"});
    }

    void conjunctionThatCannotBeSplitStaysOnePart() {
        const QuerySet set = buildQueries(corpus_, kb_, bioSynOptions());
        const auto* conjunction = findQuery(set, "cold fever");
        QVERIFY(conjunction);
        QCOMPARE(conjunction->join, IdJoin::Conjunction);
        QVERIFY(conjunction->composite);
        QVERIFY(conjunction->splitFailed);
        QCOMPARE(conjunction->parts, Strings{"cold fever"});
        // BioSyn replaces '+' by '|' in the gold: either member is a correct answer.
        QCOMPARE(conjunction->goldIds, (Strings{"MESH:D003139", "MESH:D009369"}));
        QCOMPARE(set.statistics.conjunctions, std::size_t{1});
        QCOMPARE(set.statistics.composites, std::size_t{3});
        QCOMPARE(set.statistics.compositesSplit, std::size_t{2});
        QCOMPARE(set.statistics.splitFailed, std::size_t{1});
        QCOMPARE(set.statistics.parts, set.statistics.queries + 2);  // two composites of two parts
    }

    void joinedNormalizationKeepsBioSynsSpellingQuirk() {
        // BioSyn normalizes "pineal tumours|retinal tumours" as one string: the token
        // "tumours|retinal" is no known misspelling, so only the last "tumours" is corrected.
        const QuerySet joined = buildQueries(corpus_, kb_, bioSynOptions());
        const auto* quirk = findQuery(joined, "pineal and retinal tumours");
        QVERIFY(quirk);
        QCOMPARE(quirk->parts, (Strings{"pineal tumours", "retinal tumors"}));
        QCOMPARE(findQuery(joined, "Tumours")->parts, Strings{"tumors"});

        QueryOptions separate = bioSynOptions();
        separate.normalizeJoinedParts = false;
        const QuerySet each = buildQueries(corpus_, kb_, separate);
        QCOMPARE(findQuery(each, "pineal and retinal tumours")->parts, (Strings{"pineal tumors", "retinal tumors"}));
    }

    void mapsOmimGoldToThePrimaryId() {
        const QuerySet set = buildQueries(corpus_, kb_, bioSynOptions());
        const auto* omim = findQuery(set, "Tooth agenesis");
        QVERIFY(omim);
        QCOMPARE(omim->goldIds, Strings{"MESH:C567755"});
        QCOMPARE(omim->idColumn, std::string("OMIM:613097"));
        QVERIFY(!omim->composite);
    }

    void mixedOmimAndMeshKeepsTheMeshIds() {
        const QuerySet set = buildQueries(corpus_, kb_, bioSynOptions());
        const auto* mixed = findQuery(set, "ACTH deficiency");
        QVERIFY(mixed);
        QCOMPARE(mixed->goldIds, Strings{"MESH:C535668"});
        QVERIFY(!mixed->composite);
        QCOMPARE(set.statistics.mixedIdsFiltered, std::size_t{1});

        QueryOptions keep = bioSynOptions();
        keep.dropOmimFromMixedIds = false;
        const QuerySet all = buildQueries(corpus_, kb_, keep);
        const auto* both = findQuery(all, "ACTH deficiency");
        QCOMPARE(both->goldIds, (Strings{"MESH:C562707", "MESH:C535668"}));
        QVERIFY(both->composite);
        QVERIFY(both->splitFailed);  // "ACTH deficiency" names one thing: no split into two
    }

    void typesFilterRestrictsTheMentions() {
        QueryOptions options = bioSynOptions();
        options.types = {"Modifier", "DiseaseClass"};
        const QuerySet set = buildQueries(corpus_, kb_, options);
        QCOMPARE(set.statistics.filteredByType, std::size_t{6});
        QCOMPARE(set.statistics.cuiLessDropped, std::size_t{1});  // "unnamed condition" is a DiseaseClass
        QCOMPARE(set.queries.size(), std::size_t{3});
        for (const auto& query : set.queries) QVERIFY(query.type == "Modifier" || query.type == "DiseaseClass");

        QVERIFY(typeSelected("T047,T191", Strings{"T191"}));
        QVERIFY(!typeSelected("T047,T191", Strings{"T19"}));
        QVERIFY(typeSelected("Chemical", {}));
        QVERIFY(!typeSelected("Chemical", Strings{"Disease"}));
    }

    void goldIdSetCollectsEveryGold() {
        const QuerySet set = buildQueries(corpus_, kb_, bioSynOptions());
        const auto ids = goldIdSet(set.queries);
        QVERIFY(ids.contains("MESH:D001943"));
        QVERIFY(ids.contains("MESH:C567755"));
        QVERIFY(!ids.contains("OMIM:613097"));
        QVERIFY(!ids.contains("MESH:D999999"));
    }

    void emptyCorpusGivesNoQueries() {
        const QuerySet set = buildQueries(Corpus{}, kb_, bioSynOptions());
        QVERIFY(set.queries.empty());
        QCOMPARE(set.statistics.mentions, std::size_t{0});
    }

    void mentionThatCannotBeNormalizedNamesItsLine() {
        // Readers reject such bytes; a corpus built in memory may still hold them.
        Corpus corpus;
        Document document("42");
        document.title = "A title";
        document.sourceFile = "memory.txt";
        Mention mention;
        mention.start = 0;
        mention.end = 1;
        mention.text = "bad \xff byte";
        mention.type = "Disease";
        mention.ids = parseConceptIdList("D006816");
        mention.sourceLine = 7;
        document.mentions.push_back(mention);
        corpus.add(std::move(document));
        try {
            (void)buildQueries(corpus, kb_, bioSynOptions());
            QFAIL("expected ParseError");
        } catch (const ParseError& e) {
            QCOMPARE(e.file(), std::string("memory.txt"));
            QCOMPARE(e.line(), std::size_t{7});
            QVERIFY(std::string(e.what()).starts_with("memory.txt:7: "));
        }
    }

    void mentionWithBadOffsetsFromALenientReadIsStillAQuery() {
        // Offsets 0-5 do not hold "Tumours": a lenient reader keeps the mention, flagged, with the
        // text column; the query is built from that column.
        test::writeFile(file("lenient.txt"),
                        "3003|t|Tumours of the skin.\n3003|a|Rare.\n3003\t0\t5\tTumours\tDiseaseClass\tD009369\n\n");
        PubTatorOptions lenient;
        lenient.lenient = true;
        const Corpus corpus = readPubTator(file("lenient.txt"), lenient);
        QVERIFY(!corpus.documents().front().mentions.front().offsetsValid);
        const QuerySet set = buildQueries(corpus, kb_, bioSynOptions());
        QCOMPARE(set.queries.size(), std::size_t{1});
        QCOMPARE(set.queries.front().parts, Strings{"tumors"});
        QCOMPARE(set.queries.front().start, std::size_t{0});
        QCOMPARE(set.queries.front().end, std::size_t{5});
    }

    void defaultNormalizerIsBioSyns() {
        // No normalizer given: BioSyn's without spelling map, so "Tumours" stays "tumours".
        const QuerySet set = buildQueries(corpus_, kb_, QueryOptions{});
        QCOMPARE(findQuery(set, "Tumours")->parts, Strings{"tumours"});
        QCOMPARE(findQuery(set, "Huntington disease")->parts, Strings{"huntington disease"});
    }
};

QTEST_APPLESS_MAIN(TestEvalQueries)
#include "test_eval_queries.moc"
