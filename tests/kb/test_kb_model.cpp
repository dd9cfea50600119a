// The KB model: string pool, builder (records in any order), compact KB, id and name lookups.
#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "kb/kb_builder.h"
#include "kb/knowledge_base.h"
#include "kb/string_pool.h"
#include "kb_test_support.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::kb;
using test::Strings;
using test::toStrings;

namespace {

std::vector<std::string> primaryIdsOf(const KnowledgeBase& kb, std::span<const EntityIndex> entities) {
    std::vector<std::string> ids;
    for (const EntityIndex e : entities) ids.emplace_back(kb.primaryId(e));
    return ids;
}
}  // namespace

class TestKbModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void poolInternsEachStringOnce() {
        StringPool pool;
        const auto a = pool.intern("alpha");
        const auto b = pool.intern("beta");
        const auto empty = pool.intern("");
        QCOMPARE(a, StringPool::Id{0});
        QCOMPARE(b, StringPool::Id{1});
        QCOMPARE(empty, StringPool::Id{2});
        QCOMPARE(pool.intern("alpha"), a);
        QCOMPARE(pool.size(), std::size_t{3});
        QCOMPARE(pool.view(b), std::string_view("beta"));
        QCOMPARE(pool.view(empty), std::string_view(""));
        QCOMPARE(pool.find("beta").value(), b);
        QVERIFY(!pool.find("gamma").has_value());
        QCOMPARE(pool.textBytes(), std::size_t{9});
    }

    void poolSurvivesGrowthAndKeepsIdsDense() {
        StringPool pool;
        constexpr int count = 50000;
        for (int i = 0; i < count; ++i) QCOMPARE(pool.intern("name " + std::to_string(i)), StringPool::Id(i));
        for (int i = 0; i < count; i += 997) {
            const std::string text = "name " + std::to_string(i);
            QCOMPARE(pool.find(text).value(), StringPool::Id(i));
            QCOMPARE(pool.view(StringPool::Id(i)), std::string_view(text));
        }
        QVERIFY(!pool.find("name 50000").has_value());
        // Strings that differ only after a shared prefix or in length are told apart.
        QVERIFY(pool.intern("name 1") != pool.intern("name 10"));
        QCOMPARE(pool.size(), std::size_t{count});
    }

    void poolTellsApartManyStringsOfOneLength() {
        // UMLS CUIs: millions of strings of one length, which only the text tells apart. The
        // table's tag bytes must not let two of them share an id, nor lose one across growth.
        StringPool pool;
        constexpr int count = 200000;
        const auto cui = [](int i) {
            std::string text = std::to_string(i);
            return "C" + std::string(7 - text.size(), '0') + text;
        };
        for (int i = 0; i < count; i += 2) QCOMPARE(pool.intern(cui(i)), StringPool::Id(i / 2));
        for (int i = 0; i < count; ++i) {
            const auto found = pool.find(cui(i));
            if (i % 2 == 0) {
                QVERIFY2(found.has_value(), cui(i).c_str());
                QCOMPARE(*found, StringPool::Id(i / 2));
            } else {
                QVERIFY2(!found.has_value(), cui(i).c_str());
            }
        }
        QCOMPARE(pool.size(), std::size_t{count / 2});
    }

    void poolReserveKeepsEarlierStrings() {
        StringPool pool;
        pool.intern("x");
        pool.intern("y");
        pool.reserve(100000, 1 << 20);
        QCOMPARE(pool.find("y").value(), StringPool::Id{1});
        QCOMPARE(pool.intern("z"), StringPool::Id{2});
    }

    void builderAcceptsRecordsInAnyOrder() {
        KnowledgeBaseBuilder builder;
        // Rows of entity A arrive before, between and after those of entity B.
        const auto a = builder.entity("C0000001");
        builder.addName(a, "first A name");
        const auto b = builder.entity("D012878");
        builder.addName(b, "B name");
        QCOMPARE(builder.entity("UMLS:C0000001"), a);  // canonical spellings meet
        builder.addName(a, "second A name");
        builder.setPreferredName(a, "preferred A");
        builder.addName(a, "first A name");  // repeated: stored once
        builder.addAlternativeId(b, "OMIM:100100");
        builder.addAlternativeId(b, "MESH:D012878");  // its own primary id: not an alternative
        builder.addAlternativeId(b, "OMIM:100100");
        const KnowledgeBase kb = builder.build();

        QCOMPARE(kb.entityCount(), std::size_t{2});
        QCOMPARE(kb.primaryId(a), std::string_view("UMLS:C0000001"));
        QCOMPARE(kb.primaryId(b), std::string_view("MESH:D012878"));
        QCOMPARE(kb.preferredName(a), std::string_view("preferred A"));
        QCOMPARE(toStrings(kb.names(a)), (Strings{"preferred A", "first A name", "second A name"}));
        QCOMPARE(toStrings(kb.synonyms(a)), (Strings{"first A name", "second A name"}));
        QCOMPARE(kb.preferredName(b), std::string_view("B name"));  // first name when none chosen
        QCOMPARE(toStrings(kb.alternativeIds(b)), (Strings{"OMIM:100100"}));
        QVERIFY(kb.alternativeIds(a).empty());
        QCOMPARE(builder.entityCount(), std::size_t{0});  // the builder was emptied
    }

    void builderAddEntityRefusesAKnownKey() {
        // addEntity: for a loader that indexes its keys itself. A key added before, or a bad id,
        // is an Error that leaves the builder as it was.
        KnowledgeBaseBuilder builder;
        const auto a = builder.addEntity("C0000001", "C0000001");
        QCOMPARE(a, EntityIndex{0});
        QCOMPARE(builder.entity("C0000001", "C0000001"), a);  // the other forms find it
        QCOMPARE(builder.findEntity("C0000001"), std::optional<EntityIndex>(a));
        QVERIFY_THROWS_EXCEPTION(Error, builder.addEntity("C0000001", "C0000001"));
        QVERIFY_THROWS_EXCEPTION(Error, builder.addEntity("C0000002", "-1"));  // the CUI-less marker
        QCOMPARE(builder.entityCount(), std::size_t{1});
        QVERIFY(!builder.findEntity("C0000002"));
        const auto b = builder.addEntity("C0000002", "C0000002");
        QCOMPARE(b, EntityIndex{1});
        builder.addName(b, "B");
        const KnowledgeBase kb = builder.build();
        QCOMPARE(kb.entityCount(), std::size_t{2});
        QCOMPARE(kb.primaryId(b), std::string_view("UMLS:C0000002"));
        QCOMPARE(kb.findEntity("C0000002"), std::optional<EntityIndex>(b));
    }

    // reserve() sizes the pools for what comes, before or between records (a loader's estimate
    // from its file's size, too small or too large): the KB built is the same as without it, to
    // the bytes it holds.
    void builderReserveChangesNothingButRoom() {
        const auto fill = [](KnowledgeBaseBuilder& builder, bool reserveBetween) {
            for (int i = 0; i < 3000; ++i) {
                const auto e = builder.entity("C" + std::to_string(1000000 + i));
                if (reserveBetween && i == 1500) builder.reserve(10, 10, 10);  // smaller than held: no-op
                builder.addName(e, "name " + std::to_string(i));
                builder.addName(e, "shared name " + std::to_string(i % 7));
                if (i % 3 == 0) builder.setPreferredName(e, "preferred " + std::to_string(i));
            }
            return builder.build();
        };
        KnowledgeBaseBuilder plain;
        const KnowledgeBase expected = fill(plain, false);
        for (const auto& [entities, names, bytes] :
             {std::tuple{std::size_t{0}, std::size_t{0}, std::size_t{0}},
              std::tuple{std::size_t{100}, std::size_t{200}, std::size_t{2000}},
              std::tuple{std::size_t{3000}, std::size_t{6000}, std::size_t{80000}},
              std::tuple{std::size_t{100000}, std::size_t{300000}, std::size_t{1} << 24}}) {
            KnowledgeBaseBuilder builder;
            builder.reserve(entities, names, bytes);
            const KnowledgeBase kb = fill(builder, true);
            QCOMPARE(kb.entityCount(), expected.entityCount());
            QCOMPARE(kb.pairCount(), expected.pairCount());
            for (EntityIndex e = 0; e < kb.entityCount(); ++e) {
                QCOMPARE(kb.primaryId(e), expected.primaryId(e));
                QCOMPARE(kb.preferredName(e), expected.preferredName(e));
                QCOMPARE(toStrings(kb.names(e)), toStrings(expected.names(e)));
            }
            QCOMPARE(kb.findByName("shared name 3").size(), expected.findByName("shared name 3").size());
            // Nor does it hold more memory once built (`stats` reports it: a gzip file, whose
            // estimate is larger, must report what the plain file does).
            QCOMPARE(kb.memoryBytes(), expected.memoryBytes());
        }
    }

    void findsEntitiesByAnyIdInCanonicalForm() {
        KnowledgeBaseBuilder builder;
        const auto tooth = builder.entity("C567755");
        builder.addName(tooth, "Tooth Agenesis, Selective, 6");
        builder.addAlternativeId(tooth, "OMIM:613097");
        const auto pancreas = builder.entity("D010190");
        builder.addName(pancreas, "Pancreatic Neoplasms");
        builder.addAlternativeId(pancreas, "OMIM:260350");
        const auto omimOnly = builder.entity("OMIM:260350");  // primary here, alternative above
        builder.addName(omimOnly, "PANCREATIC CANCER");
        const KnowledgeBase kb = builder.build();

        QCOMPARE(kb.findEntity("OMIM:613097").value(), tooth);
        QCOMPARE(kb.findEntity("omim:613097").value(), tooth);  // prefix case does not matter
        QCOMPARE(kb.findEntity("MESH:C567755").value(), tooth);
        QCOMPARE(kb.findEntity("C567755").value(), tooth);
        QCOMPARE(kb.findEntity(" D010190 ").value(), pancreas);
        QVERIFY(!kb.findEntity("613097").has_value());  // a bare number names no vocabulary
        QVERIFY(!kb.findEntity("-1").has_value());
        QVERIFY(!kb.findEntity("").has_value());
        QVERIFY(!kb.findEntity("MESH:D999999").has_value());
        QVERIFY(!kb.findEntity("Pancreatic Neoplasms").has_value());  // names are not ids
        // An id held by two entities: the one whose primary id it is comes first.
        QCOMPARE(primaryIdsOf(kb, kb.findById("OMIM:260350")), (Strings{"OMIM:260350", "MESH:D010190"}));
        const auto stats = kb.statistics();
        QCOMPARE(stats.idsOfSeveralEntities, std::size_t{1});
        QCOMPARE(stats.primaryIdsOfSeveralEntities, std::size_t{0});
        QCOMPARE(stats.distinctIds, std::size_t{4});
        QCOMPARE(stats.alternativeIds, std::size_t{2});
    }

    void findsEntitiesByExactName() {
        KnowledgeBaseBuilder builder;
        const auto x = builder.entity("D000001");
        builder.addName(x, "Discharge");
        builder.addName(x, "Patient Discharge");
        const auto y = builder.entity("D000002");
        builder.addName(y, "Body Fluid Discharge");
        builder.addName(y, "Discharge");
        const KnowledgeBase kb = builder.build();
        QCOMPARE(primaryIdsOf(kb, kb.findByName("Discharge")), (Strings{"MESH:D000001", "MESH:D000002"}));
        QCOMPARE(primaryIdsOf(kb, kb.findByName("Patient Discharge")), (Strings{"MESH:D000001"}));
        QVERIFY(kb.findByName("discharge").empty());     // exact, case-sensitive
        QVERIFY(kb.findByName("MESH:D000001").empty());  // ids are not names
        const auto stats = kb.statistics();
        QCOMPARE(stats.namePairs, std::size_t{4});
        QCOMPARE(stats.distinctNames, std::size_t{3});
        QCOMPARE(stats.namesOfSeveralEntities, std::size_t{1});
    }

    void iteratesPairsAndFindsTheirEntity() {
        KnowledgeBaseBuilder builder;
        const auto a = builder.entity("D000001");
        builder.addName(a, "a1");
        builder.addName(a, "a2");
        const auto empty = builder.entity("D000002");  // an entity without names
        const auto c = builder.entity("D000003");
        builder.addName(c, "c1");
        const KnowledgeBase kb = builder.build();

        std::vector<std::pair<EntityIndex, std::string>> pairs;
        kb.forEachNamePair(
            [&](EntityIndex e, StringId name) { pairs.emplace_back(e, std::string(kb.strings().view(name))); });
        QCOMPARE(pairs.size(), std::size_t{3});
        QCOMPARE(pairs[0], (std::pair<EntityIndex, std::string>{a, "a1"}));
        QCOMPARE(pairs[2], (std::pair<EntityIndex, std::string>{c, "c1"}));
        QCOMPARE(kb.pairCount(), std::size_t{3});
        QCOMPARE(kb.pairEntity(0), a);
        QCOMPARE(kb.pairEntity(1), a);
        QCOMPARE(kb.pairEntity(2), c);  // not the name-less entity before it
        QCOMPARE(kb.firstPair(c), std::size_t{2});
        QVERIFY(kb.names(empty).empty());
        QCOMPARE(kb.preferredName(empty), std::string_view(""));
        QCOMPARE(kb.statistics().entitiesWithoutNames, std::size_t{1});
    }

    void keepsSemanticTypesAndSpecies() {
        KnowledgeBaseBuilder builder;
        const auto a = builder.entity("C0011849");
        builder.addName(a, "Diabetes Mellitus");
        builder.addSemanticType(a, "T047", "Disease or Syndrome");
        builder.addSemanticType(a, "T047", "Disease or Syndrome");  // repeated
        builder.addSemanticType(a, "T033", "Finding");
        const auto gene = builder.entity("NCBIGENE:2");
        builder.addName(gene, "A2M");
        builder.setSpecies(gene, "human");
        builder.addSemanticType(gene, "", "Gene");
        const KnowledgeBase kb = builder.build();

        const auto types = kb.semanticTypes(a);
        QCOMPARE(types.size(), std::size_t{2});
        QCOMPARE(types[0].id, std::string_view("T047"));
        QCOMPARE(types[0].name, std::string_view("Disease or Syndrome"));
        QCOMPARE(types[1].id, std::string_view("T033"));
        QCOMPARE(kb.semanticTypes(gene)[0].id, std::string_view(""));
        QCOMPARE(kb.semanticTypeCount(), std::size_t{3});
        QVERIFY(!kb.species(a).has_value());
        QCOMPARE(kb.species(gene).value(), std::string_view("human"));
        const auto stats = kb.statistics();
        QCOMPARE(stats.entitiesWithSpecies, std::size_t{1});
        QCOMPARE(stats.semanticTypes, std::size_t{3});
        QCOMPARE(stats.entitySemanticTypes, std::size_t{3});
        QVERIFY(stats.memoryBytes > stats.stringBytes);
    }

    void rejectsIdsThatAreNoIds() {
        KnowledgeBaseBuilder builder;
        QVERIFY_THROWS_EXCEPTION(Error, builder.entity("-1"));
        QVERIFY_THROWS_EXCEPTION(Error, builder.entity("  "));
        const auto a = builder.entity("D000001");
        QVERIFY_THROWS_EXCEPTION(Error, builder.addAlternativeId(a, ""));
        QCOMPARE(builder.entityCount(), std::size_t{1});  // the failed calls left nothing behind
    }

    void groupsEntitiesByKeyWhenTheKeyIsNotTheId() {
        KnowledgeBaseBuilder builder;
        const auto first = builder.entity("MESH:D008228|OMIM:605027", "MESH:D008228");
        const auto again = builder.entity("MESH:D008228|OMIM:605027", "MESH:D008228");
        const auto other = builder.entity("MESH:D008228|MESH:D016393", "MESH:D008228");
        QCOMPARE(again, first);
        QVERIFY(other != first);
        QCOMPARE(builder.findEntity("MESH:D008228|OMIM:605027").value(), first);
        QVERIFY(!builder.findEntity("MESH:D008228").has_value());
        builder.addName(first, "Lymphoma, Non-Hodgkin");
        builder.addName(other, "lymphoma");
        const KnowledgeBase kb = builder.build();
        // Two entities share a primary id: both are found, and the statistics say so.
        QCOMPARE(kb.findById("D008228").size(), std::size_t{2});
        QCOMPARE(kb.statistics().primaryIdsOfSeveralEntities, std::size_t{1});
    }

    void emptyKnowledgeBase() {
        KnowledgeBaseBuilder builder;
        const KnowledgeBase kb = builder.build();
        QCOMPARE(kb.entityCount(), std::size_t{0});
        QVERIFY(kb.findById("D000001").empty());
        QVERIFY(kb.findByName("x").empty());
        QCOMPARE(kb.statistics().namePairs, std::size_t{0});
        const KnowledgeBase defaulted;
        QVERIFY(defaulted.findByName("x").empty());
    }
};

QTEST_APPLESS_MAIN(TestKbModel)
#include "test_kb_model.moc"
