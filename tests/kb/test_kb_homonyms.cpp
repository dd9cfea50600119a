// BELHD homonym disambiguation on hand-built KBs: cases (a) (b) (c), cross-species homonyms,
// the shortest/longest choice, failure cases, normalized detection, and a naive cross-check.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "homonym_figures.h"
#include "kb/homonyms.h"
#include "kb/kb_builder.h"
#include "kb_test_support.h"

using namespace linkscope;
using namespace linkscope::kb;
using test::Strings;

namespace {

struct EntitySpec {
    EntitySpec(std::string id_, std::vector<std::string> names_, std::optional<std::string> species_ = std::nullopt)
        : id(std::move(id_)), names(std::move(names_)), species(std::move(species_)) {}
    std::string id;
    std::vector<std::string> names;  // the first is the preferred name
    std::optional<std::string> species;
};

KnowledgeBase makeKb(const std::vector<EntitySpec>& specs) {
    KnowledgeBaseBuilder builder;
    for (const auto& spec : specs) {
        const auto e = builder.entity(spec.id);
        for (const auto& name : spec.names) builder.addName(e, name);
        if (spec.species) builder.setSpecies(e, *spec.species);
    }
    return builder.build();
}

// Expanded names of one entity, in name order.
std::vector<std::string> expandedOf(const HomonymExpansion& expansion, EntityIndex e) {
    const KnowledgeBase& kb = expansion.knowledgeBase();
    std::vector<std::string> names;
    for (std::size_t pair = kb.firstPair(e); pair < kb.firstPair(e) + kb.nameIds(e).size(); ++pair)
        names.emplace_back(expansion.expandedName(pair));
    return names;
}

// The same figures computed naively with ordered maps, straight from the definitions, to
// cross-check the compact implementation on random KBs.
HomonymStatistics naiveStatistics(const std::vector<EntitySpec>& specs,
                                  const std::function<std::string(std::string_view)>& key, DisambiguatorChoice choice) {
    std::vector<std::vector<std::string>> names;  // deduplicated, preferred first
    for (const auto& spec : specs) {
        std::vector<std::string> unique;
        for (const auto& name : spec.names)
            if (std::find(unique.begin(), unique.end(), name) == unique.end()) unique.push_back(name);
        names.push_back(unique);
    }
    const auto speciesOf = [&](std::size_t e) { return specs[e].species.value_or("\x01none"); };
    std::map<std::string, std::set<std::pair<std::string, std::size_t>>> holders;  // key -> (species, entity)
    for (std::size_t e = 0; e < specs.size(); ++e)
        for (const auto& name : names[e]) holders[key(name)].insert({speciesOf(e), e});

    HomonymStatistics s;
    std::map<std::string, std::set<std::size_t>> finalHolders;
    std::vector<std::tuple<std::size_t, std::string, bool>> finals;
    for (const auto& [k, group] : holders) {
        std::set<std::size_t> entities;
        std::set<std::string> species;
        for (const auto& [sp, e] : group) entities.insert(e), species.insert(sp);
        if (entities.size() > 1) ++s.homonymNames;
        if (species.size() > 1) ++s.crossSpeciesNames;
    }
    for (std::size_t e = 0; e < specs.size(); ++e) {
        for (const auto& name : names[e]) {
            ++s.pairs;
            const auto& group = holders[key(name)];
            std::size_t sameSpecies = 0;
            std::set<std::string> species;
            for (const auto& [sp, other] : group) {
                species.insert(sp);
                if (sp == speciesOf(e)) ++sameSpecies;
            }
            const bool intra = sameSpecies > 1;
            const bool cross = species.size() > 1;
            if (!intra && !cross) {
                finals.emplace_back(e, key(name), false);
                continue;
            }
            ++s.homonymPairs;
            if (cross) ++s.crossSpeciesPairs;
            std::optional<std::string> d;
            if (intra) {
                if (key(name) != key(names[e][0])) {
                    ++s.otherNamePairs;
                    d = names[e][0];
                } else {
                    ++s.preferredNamePairs;
                    for (const auto& candidate : names[e]) {
                        if (key(candidate) == key(name)) continue;
                        const auto better = [&](const std::string& a, const std::string& b) {  // a before b?
                            if (a.size() != b.size())
                                return choice == DisambiguatorChoice::Shortest ? a.size() < b.size()
                                                                               : a.size() > b.size();
                            return a < b;
                        };
                        if (!d || better(candidate, *d)) d = candidate;
                    }
                    if (!d) ++s.unexpandablePairs;
                }
            }
            const bool addSpecies = cross && specs[e].species.has_value();
            std::string text = name;
            if (d || addSpecies) {
                text += " (";
                if (d) text += *d;
                if (d && addSpecies) text += ", ";
                if (addSpecies) text += *specs[e].species;
                text += ")";
                ++s.expandedPairs;
            }
            finals.emplace_back(e, key(text), true);
        }
    }
    for (const auto& [e, k, homonym] : finals) finalHolders[k].insert(e);
    for (const auto& [k, entities] : finalHolders)
        if (entities.size() > 1) ++s.remainingDuplicateNames;
    for (const auto& [e, k, homonym] : finals)
        if (finalHolders[k].size() > 1) {
            ++s.remainingDuplicatePairs;
            if (homonym) ++s.failedPairs;
        }
    s.distinctNames = holders.size();
    s.entities = specs.size();
    return s;
}

// Every figure: those of names alone, then the species and expansion counts.
void compareStatistics(const HomonymStatistics& got, const HomonymStatistics& want) {
    test::compareNameHomonymFigures(got, want);
    if (QTest::currentTestFailed()) return;
    QCOMPARE(got.crossSpeciesPairs, want.crossSpeciesPairs);
    QCOMPARE(got.crossSpeciesNames, want.crossSpeciesNames);
    QCOMPARE(got.expandedPairs, want.expandedPairs);
    QCOMPARE(got.remainingDuplicatePairs, want.remainingDuplicatePairs);
}

}  // namespace

class TestKbHomonyms : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void caseA_otherNameGetsThePreferredName() {
        // Figure 1 of the paper: "Discharge" names two UMLS concepts.
        const auto kb = makeKb(
            {{"C0030685", {"Patient Discharge", "Discharge"}}, {"C0600083", {"Body Fluid Discharge", "Discharge"}}});
        const auto expansion = expandHomonyms(kb);
        QCOMPARE(expandedOf(expansion, 0), (Strings{"Patient Discharge", "Discharge (Patient Discharge)"}));
        QCOMPARE(expandedOf(expansion, 1), (Strings{"Body Fluid Discharge", "Discharge (Body Fluid Discharge)"}));
        QVERIFY(expansion.homonymCase(1) == HomonymCase::OtherName);
        QVERIFY(expansion.homonymCase(0) == HomonymCase::NotHomonym);
        QVERIFY(!expansion.isHomonym(0));
        const auto entry = expansion.at(3);
        QCOMPARE(entry.entity, EntityIndex{1});
        QCOMPARE(entry.original, std::string_view("Discharge"));
        QCOMPARE(entry.expanded, std::string_view("Discharge (Body Fluid Discharge)"));
        QVERIFY(entry.homonym() && !entry.crossSpecies && !entry.stillDuplicate);
        const auto& s = expansion.statistics();
        QCOMPARE(s.pairs, std::size_t{4});
        QCOMPARE(s.distinctNames, std::size_t{3});
        QCOMPARE(s.homonymNames, std::size_t{1});
        QCOMPARE(s.homonymPairs, std::size_t{2});
        QCOMPARE(s.otherNamePairs, std::size_t{2});
        QCOMPARE(s.preferredNamePairs, std::size_t{0});
        QCOMPARE(s.failedPairs, std::size_t{0});
        QCOMPARE(s.successRate(), 1.0);
        QVERIFY(!s.normalized);
    }

    void caseB_preferredNameGetsShortestOrLongestOtherName() {
        const auto kb = makeKb({{"D000001", {"TS", "Tourette Syndrome", "Gilles de la Tourette"}},
                                {"D000002", {"Timothy Syndrome", "TS"}}});
        const auto shortest = expandHomonyms(kb);
        QCOMPARE(expandedOf(shortest, 0)[0], std::string("TS (Tourette Syndrome)"));
        QVERIFY(shortest.homonymCase(0) == HomonymCase::PreferredName);
        QCOMPARE(expandedOf(shortest, 1)[1], std::string("TS (Timothy Syndrome)"));
        QCOMPARE(shortest.statistics().preferredNamePairs, std::size_t{1});
        QCOMPARE(shortest.statistics().otherNamePairs, std::size_t{1});

        HomonymOptions longest;
        longest.choice = DisambiguatorChoice::Longest;  // Algorithm 1's get_longest
        QCOMPARE(expandedOf(expandHomonyms(kb, longest), 0)[0], std::string("TS (Gilles de la Tourette)"));
    }

    void caseB_tiesAreBrokenByByteOrder() {
        const auto kb = makeKb({{"D000001", {"X", "bb", "aa", "cc"}}, {"D000002", {"Y", "X"}}});
        QCOMPARE(expandedOf(expandHomonyms(kb), 0)[0], std::string("X (aa)"));
        HomonymOptions longest;
        longest.choice = DisambiguatorChoice::Longest;
        QCOMPARE(expandedOf(expandHomonyms(kb, longest), 0)[0], std::string("X (aa)"));
    }

    void caseC_preferredNameWithoutOthersStaysAsDefaultMeaning() {
        const auto kb = makeKb({{"D000001", {"ABC"}}, {"D000002", {"Alpha Beta", "ABC"}}});
        const auto expansion = expandHomonyms(kb);
        QCOMPARE(expandedOf(expansion, 0), (Strings{"ABC"}));
        QVERIFY(expansion.homonymCase(0) == HomonymCase::Unexpandable);
        QVERIFY(expansion.isHomonym(0));
        QCOMPARE(expandedOf(expansion, 1)[1], std::string("ABC (Alpha Beta)"));
        const auto& s = expansion.statistics();
        QCOMPARE(s.unexpandablePairs, std::size_t{1});
        QCOMPARE(s.preferredNamePairs, std::size_t{1});
        QCOMPARE(s.expandedPairs, std::size_t{1});
        // The unexpanded "ABC" is unique once the other one is expanded: a success.
        QCOMPARE(s.failedPairs, std::size_t{0});
        QVERIFY(!expansion.stillDuplicate(0));
    }

    void twoUnexpandableEntitiesStayDuplicated() {
        const auto kb = makeKb({{"D000001", {"ABC"}}, {"D000002", {"ABC"}}, {"D000003", {"Other", "ABC"}}});
        const auto expansion = expandHomonyms(kb);
        const auto& s = expansion.statistics();
        QCOMPARE(s.homonymPairs, std::size_t{3});
        QCOMPARE(s.unexpandablePairs, std::size_t{2});
        QCOMPARE(s.failedPairs, std::size_t{2});
        QCOMPARE(s.remainingDuplicateNames, std::size_t{1});
        QVERIFY(expansion.stillDuplicate(0) && expansion.stillDuplicate(1) && !expansion.stillDuplicate(3));
        QCOMPARE(s.successRate(), 1.0 / 3.0);
    }

    void aquacobalaminFailureOfTheShortestRule() {
        // §5.2: C0003663 (preferred "Aquacobalamin", also "Hydroxocobalamin") and C0020316
        // (preferred "Hydroxocobalamin", shortest other name "Aquacobalamin") both become
        // "Hydroxocobalamin (Aquacobalamin)".
        const auto kb = makeKb({{"C0003663", {"Aquacobalamin", "Hydroxocobalamin", "Vitamin B12a hydrate"}},
                                {"C0020316", {"Hydroxocobalamin", "Aquacobalamin", "Hydroxocobalamin Acetate"}}});
        const auto expansion = expandHomonyms(kb);
        QCOMPARE(expandedOf(expansion, 0), (Strings{"Aquacobalamin (Hydroxocobalamin)",
                                                    "Hydroxocobalamin (Aquacobalamin)", "Vitamin B12a hydrate"}));
        QCOMPARE(expandedOf(expansion, 1), (Strings{"Hydroxocobalamin (Aquacobalamin)",
                                                    "Aquacobalamin (Hydroxocobalamin)", "Hydroxocobalamin Acetate"}));
        const auto& s = expansion.statistics();
        QCOMPARE(s.homonymNames, std::size_t{2});
        QCOMPARE(s.homonymPairs, std::size_t{4});
        QCOMPARE(s.failedPairs, std::size_t{4});
        QCOMPARE(s.remainingDuplicateNames, std::size_t{2});
        QCOMPARE(s.successRate(), 0.0);

        // Algorithm 1's longest rule happens to separate them.
        HomonymOptions longest;
        longest.choice = DisambiguatorChoice::Longest;
        const auto separated = expandHomonyms(kb, longest);
        QCOMPARE(expandedOf(separated, 1)[0], std::string("Hydroxocobalamin (Hydroxocobalamin Acetate)"));
        QCOMPARE(separated.statistics().failedPairs, std::size_t{0});
    }

    void crossSpeciesHomonymsGetTheSpecies() {
        // §4.1.1: "A2M" is the human and the cattle gene's symbol, and a secondary name of
        // the human IGHA2.
        const auto kb = makeKb({{"NCBIGENE:2", {"A2M", "alpha-2-macroglobulin"}, "human"},
                                {"NCBIGENE:3494", {"IGHA2", "A2M"}, "human"},
                                {"NCBIGENE:281614", {"A2M", "alpha-2-macroglobulin"}, "cattle"}});
        const auto expansion = expandHomonyms(kb);
        QCOMPARE(expandedOf(expansion, 0),
                 (Strings{"A2M (alpha-2-macroglobulin, human)", "alpha-2-macroglobulin (human)"}));
        QCOMPARE(expandedOf(expansion, 1), (Strings{"IGHA2", "A2M (IGHA2, human)"}));
        QCOMPARE(expandedOf(expansion, 2), (Strings{"A2M (cattle)", "alpha-2-macroglobulin (cattle)"}));
        QVERIFY(expansion.homonymCase(0) == HomonymCase::PreferredName);
        QVERIFY(expansion.crossSpecies(0));
        QVERIFY(expansion.homonymCase(4) == HomonymCase::NotHomonym);  // cattle A2M: cross-species only
        QVERIFY(expansion.crossSpecies(4) && expansion.isHomonym(4));
        const auto& s = expansion.statistics();
        QCOMPARE(s.homonymNames, std::size_t{2});
        QCOMPARE(s.crossSpeciesNames, std::size_t{2});
        QCOMPARE(s.homonymPairs, std::size_t{5});
        QCOMPARE(s.crossSpeciesPairs, std::size_t{5});
        QCOMPARE(s.preferredNamePairs, std::size_t{1});
        QCOMPARE(s.otherNamePairs, std::size_t{1});
        QCOMPARE(s.failedPairs, std::size_t{0});
    }

    void intraSpeciesHomonymsAreGroupedBySpecies() {
        // Appendix C: "BRI3" names two human genes (intra-species); "Xyz" names one human and
        // one mouse gene only (cross-species, no intra-species expansion).
        const auto kb = makeKb({{"NCBIGENE:81618", {"BRI3", "Xyz"}, "human"},
                                {"NCBIGENE:25798", {"BRI3 binding", "BRI3"}, "human"},
                                {"NCBIGENE:999", {"Other", "Xyz"}, "mouse"}});
        const auto expansion = expandHomonyms(kb);
        QCOMPARE(expandedOf(expansion, 0), (Strings{"BRI3 (Xyz)", "Xyz (human)"}));
        QCOMPARE(expandedOf(expansion, 1), (Strings{"BRI3 binding", "BRI3 (BRI3 binding)"}));
        QCOMPARE(expandedOf(expansion, 2), (Strings{"Other", "Xyz (mouse)"}));
        QVERIFY(!expansion.crossSpecies(0));
    }

    void expandedNameMayCollideWithAnExistingName() {
        const auto kb = makeKb({{"D000001", {"A", "B"}}, {"D000002", {"C", "B"}}, {"D000003", {"B (A)"}}});
        const auto expansion = expandHomonyms(kb);
        QCOMPARE(expandedOf(expansion, 0)[1], std::string("B (A)"));
        const auto& s = expansion.statistics();
        QCOMPARE(s.failedPairs, std::size_t{1});
        QCOMPARE(s.remainingDuplicateNames, std::size_t{1});
        QCOMPARE(s.remainingDuplicatePairs, std::size_t{2});
        QVERIFY(expansion.stillDuplicate(4) && !expansion.isHomonym(4));
    }

    void normalizedDetectionFindsMore() {
        const auto kb = makeKb({{"D000001", {"Tooth agenesis", "TOOTH AGENESIS"}},
                                {"D000002", {"tooth-agenesis", "Hypodontia"}},
                                {"D000003", {"Foo Bar", "Foo", "FOO"}},
                                {"D000004", {"foo", "Fooing"}}});
        const auto exact = expandHomonyms(kb);
        QCOMPARE(exact.statistics().homonymPairs, std::size_t{0});
        QCOMPARE(exact.statistics().distinctNames, std::size_t{9});

        HomonymOptions options;
        options.normalizer = test::simpleNormalize;
        const auto normalized = expandHomonyms(kb, options);
        const auto& s = normalized.statistics();
        QVERIFY(s.normalized);
        QCOMPARE(s.distinctNames, std::size_t{5});
        QCOMPARE(s.homonymNames, std::size_t{2});
        QCOMPARE(s.homonymPairs, std::size_t{6});
        // "TOOTH AGENESIS" is no disambiguation for "Tooth agenesis": case (c), twice.
        QCOMPARE(expandedOf(normalized, 0), (Strings{"Tooth agenesis", "TOOTH AGENESIS"}));
        QVERIFY(normalized.homonymCase(0) == HomonymCase::Unexpandable);
        QVERIFY(normalized.homonymCase(1) == HomonymCase::Unexpandable);
        QCOMPARE(expandedOf(normalized, 1), (Strings{"tooth-agenesis (Hypodontia)", "Hypodontia"}));
        QCOMPARE(expandedOf(normalized, 2), (Strings{"Foo Bar", "Foo (Foo Bar)", "FOO (Foo Bar)"}));
        QCOMPARE(expandedOf(normalized, 3), (Strings{"foo (Fooing)", "Fooing"}));
        QCOMPARE(s.unexpandablePairs, std::size_t{2});
        QCOMPARE(s.otherNamePairs, std::size_t{2});
        QCOMPARE(s.preferredNamePairs, std::size_t{4});
        // Entity 0's two spellings are one name of one entity: no failure.
        QCOMPARE(s.failedPairs, std::size_t{0});
    }

    void forEachVisitsEveryPairInOrder() {
        const auto kb = makeKb({{"D000001", {"a", "x"}}, {"D000002", {"b", "x"}}});
        const auto expansion = expandHomonyms(kb);
        std::vector<std::string> seen;
        std::size_t homonyms = 0;
        expansion.forEach([&](const ExpandedName& entry) {
            seen.emplace_back(std::to_string(entry.entity) + ":" + std::string(entry.expanded));
            homonyms += entry.homonym();
        });
        QCOMPARE(seen, (Strings{"0:a", "0:x (a)", "1:b", "1:x (b)"}));
        QCOMPARE(homonyms, std::size_t{2});
        QVERIFY(expansion.memoryBytes() > 0);
        QCOMPARE(toString(HomonymCase::Unexpandable), std::string_view("unexpandable"));
    }

    void emptyKb() {
        const auto kb = makeKb({});
        const auto expansion = expandHomonyms(kb);
        QCOMPARE(expansion.pairCount(), std::size_t{0});
        QCOMPARE(expansion.statistics().successRate(), 1.0);
    }

    void agreesWithNaiveCountOnRandomKbs() {
        // Small vocabularies of short names give many homonyms, collisions and all cases.
        std::mt19937 random(20261121);
        const std::vector<std::string> syllables{"a", "B", "c-", "D", "e", "F.", "g", "H"};
        const std::vector<std::string> species{"human", "mouse"};
        for (int round = 0; round < 40; ++round) {
            std::vector<EntitySpec> specs;
            const bool withSpecies = round % 2 == 1;
            const int entities = 5 + static_cast<int>(random() % 40);
            for (int e = 0; e < entities; ++e) {
                EntitySpec spec{std::to_string(100000 + e).insert(0, 1, 'D'), {}, std::nullopt};
                const int names = 1 + static_cast<int>(random() % 4);
                for (int n = 0; n < names; ++n) {
                    std::string name;
                    const int length = 1 + static_cast<int>(random() % 3);
                    for (int k = 0; k < length; ++k) name += syllables[random() % syllables.size()];
                    spec.names.push_back(name);
                }
                if (withSpecies && random() % 4 != 0) spec.species = species[random() % species.size()];
                specs.push_back(spec);
            }
            const auto kb = makeKb(specs);
            for (const bool normalize : {false, true}) {
                for (const auto choice : {DisambiguatorChoice::Shortest, DisambiguatorChoice::Longest}) {
                    HomonymOptions options;
                    options.choice = choice;
                    if (normalize) options.normalizer = test::simpleNormalize;
                    const auto key = normalize ? std::function<std::string(std::string_view)>(test::simpleNormalize)
                                               : [](std::string_view s) { return std::string(s); };
                    compareStatistics(expandHomonyms(kb, options).statistics(), naiveStatistics(specs, key, choice));
                    if (QTest::currentTestFailed()) {
                        qWarning("round %d, normalize %d, choice %d", round, int(normalize), int(choice));
                        return;
                    }
                }
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestKbHomonyms)
#include "test_kb_homonyms.moc"
