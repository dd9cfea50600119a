// The evaluation dictionary: KB names normalized BioSyn's way, one entry per name with every
// entity naming it (homonyms), training mentions merged in (new names, new ids, composite
// mentions as one joined name), BELHD's homonym expansion, empty names skipped.
#include <algorithm>

#include "eval/dictionary.h"
#include "eval/queries.h"
#include "eval_fixtures.h"
#include "kb/dictionary_loader.h"
#include "kb/kb_builder.h"
#include "test_data.h"

using namespace linkscope;
using namespace linkscope::eval;
using Strings = std::vector<std::string>;

namespace {

const retrieval::DictionaryEntry* findEntry(const EvalDictionary& dictionary, std::string_view name) {
    const auto& entries = dictionary.entries;
    const auto found = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.name == name; });
    return found == entries.end() ? nullptr : &*found;
}

EvalQuery trainingQuery(Strings parts, Strings gold) {
    EvalQuery query;
    query.document = "1";
    query.parts = std::move(parts);
    query.goldIds = std::move(gold);
    return query;
}

}  // namespace

class TestEvalDictionary : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    kb::KnowledgeBase kb_;

    std::filesystem::path file(const char* name) const {
        return std::filesystem::path(dir_.path().toStdString()) / name;
    }

private Q_SLOTS:
    void initTestCase() {
        test::writeFile(file("kb.txt"), test::kFixtureKb);
        kb_ = kb::loadDictionary(file("kb.txt")).kb;
    }

    void kbNamesBecomeNormalizedEntries() {
        EvalDictionaryBuilder builder;
        builder.addKnowledgeBase(kb_);
        const EvalDictionary dictionary = builder.build();
        QCOMPARE(dictionary.statistics.kbPairs, kb_.pairCount());
        // Every pair gives a name; "cold" is named by two entities and is one entry.
        QCOMPARE(dictionary.entries.size(), kb_.pairCount() - 1);
        QCOMPARE(dictionary.statistics.entries, dictionary.entries.size());
        QCOMPARE(dictionary.statistics.entriesWithSeveralIds, std::size_t{1});
        QCOMPARE(dictionary.entries.front().name, std::string("huntington disease"));
        QCOMPARE(dictionary.entries.front().ids, Strings{"MESH:D006816"});
        QVERIFY(findEntry(dictionary, "huntington s chorea"));  // BioSyn: punctuation -> space
        QVERIFY(findEntry(dictionary, "tooth agenesis selective 6"));
        QCOMPARE(findEntry(dictionary, "sthag6")->ids, Strings{"MESH:C567755"});
        QCOMPARE(findEntry(dictionary, "cold")->ids, (Strings{"MESH:D003139", "MESH:D003080"}));
    }

    void trainingMentionsAddNamesAndIds() {
        EvalDictionaryBuilder builder;
        builder.addKnowledgeBase(kb_);
        const std::vector<EvalQuery> training = {
            trainingQuery({"huntington chorea"}, {"MESH:D006816"}),                                // new name
            trainingQuery({"cold"}, {"MESH:D003139"}),                                             // known name and id
            trainingQuery({"cancer"}, {"MESH:D001943"}),                                           // known name, new id
            trainingQuery({"breast cancer", "ovarian cancer"}, {"MESH:D001943", "MESH:D010051"}),  // composite
            trainingQuery({"Huntington-Chorea!"}, {"MESH:D006816"}),  // normalizes to a name added above
        };
        builder.addMentions(training);
        const EvalDictionary dictionary = builder.build();
        const auto& s = dictionary.statistics;
        QCOMPARE(s.mentionsAdded, std::size_t{5});
        QCOMPARE(s.mentionsNewNames, std::size_t{2});  // "huntington chorea", the joined composite
        QCOMPARE(s.mentionsNewIds, std::size_t{1});    // "cancer" gains D001943
        QCOMPARE(findEntry(dictionary, "huntington chorea")->ids, Strings{"MESH:D006816"});
        QCOMPARE(findEntry(dictionary, "cancer")->ids, (Strings{"MESH:D009369", "MESH:D001943"}));
        // BioSyn's dictionary_preprocess: the split parts joined, every gold id on the one entry.
        QCOMPARE(findEntry(dictionary, "breast cancer ovarian cancer")->ids, (Strings{"MESH:D001943", "MESH:D010051"}));
        // Mentions come after the KB names, in the order added.
        QCOMPARE(dictionary.entries.back().name, std::string("breast cancer ovarian cancer"));
        QCOMPARE(s.entriesWithSeveralIds, std::size_t{3});
    }

    void emptyNamesAreSkipped() {
        EvalDictionaryBuilder builder;
        QVERIFY(!builder.add("(-)", Strings{"MESH:D1"}));
        QVERIFY(!builder.add("name", Strings{}));
        QVERIFY(builder.add("Name!", Strings{"MESH:D1"}));
        builder.addMentions(std::vector<EvalQuery>{trainingQuery({"..."}, {"MESH:D2"})});
        const EvalDictionary dictionary = builder.build();
        QCOMPARE(dictionary.entries.size(), std::size_t{1});
        QCOMPARE(dictionary.entries.front().name, std::string("name"));
        QCOMPARE(dictionary.statistics.emptyNamesSkipped, std::size_t{1});
    }

    void homonymExpansionDisambiguatesSharedNames() {
        DictionaryOptions options;
        options.homonymExpansion = true;
        EvalDictionaryBuilder builder(options);
        builder.addKnowledgeBase(kb_);
        const EvalDictionary dictionary = builder.build();
        QVERIFY(!findEntry(dictionary, "cold"));
        // BELHD case (a): the homonym is not the preferred name -> "name (preferred name)".
        QCOMPARE(findEntry(dictionary, "cold common cold")->ids, Strings{"MESH:D003139"});
        QCOMPARE(findEntry(dictionary, "cold cold temperature")->ids, Strings{"MESH:D003080"});
        QCOMPARE(dictionary.statistics.kbPairsExpanded, std::size_t{2});
        QCOMPARE(dictionary.statistics.entriesWithSeveralIds, std::size_t{0});
        QCOMPARE(dictionary.entries.size(), kb_.pairCount());
    }

    void largeKbInKbOrderWithSharedNames() {
        // More names than one normalizing chunk (65,536) and than the name table's first sizes:
        // every name once, in the KB's order, a name shared by several entities one entry with
        // each of their ids in KB order, and the same for any number of threads (the chunks are
        // normalized in parallel, added in order).
        kb::KnowledgeBaseBuilder builder;
        constexpr std::size_t kEntities = 70'000;
        for (std::size_t e = 0; e < kEntities; ++e) {
            const kb::EntityIndex entity = builder.entity("X:" + std::to_string(e));
            builder.addName(entity, "Name-" + std::to_string(e));
            if (e % 1000 == 0) builder.addName(entity, "Shared NAME");
        }
        const kb::KnowledgeBase kb = builder.build();
        EvalDictionaryBuilder dictionaryBuilder;
        dictionaryBuilder.addKnowledgeBase(kb);
        const EvalDictionary dictionary = dictionaryBuilder.build();
        QCOMPARE(dictionary.statistics.kbPairs, kEntities + kEntities / 1000);
        QCOMPARE(dictionary.entries.size(), kEntities + 1);
        QCOMPARE(dictionary.entries[0].name, std::string("name 0"));
        QCOMPARE(dictionary.entries[1].name, std::string("shared name"));
        QCOMPARE(dictionary.entries[2].name, std::string("name 1"));
        QCOMPARE(dictionary.entries.back().name, std::string("name 69999"));
        QCOMPARE(dictionary.entries[1].ids.size(), kEntities / 1000);
        QCOMPARE(dictionary.entries[1].ids.back(), std::string("X:69000"));
        for (std::size_t e = 2; e < dictionary.entries.size(); ++e)
            QCOMPARE(dictionary.entries[e].ids, Strings{"X:" + std::to_string(e - 1)});
        // Found again after every growth of the table: adding a KB name again adds nothing.
        EvalDictionaryBuilder again;
        again.addKnowledgeBase(kb);
        QVERIFY(again.add("NAME 12345", Strings{"X:12345"}));
        QCOMPARE(again.size(), kEntities + 1);
        QVERIFY(again.add("name 12345", Strings{"X:other"}));
        QCOMPARE(again.size(), kEntities + 1);
        const EvalDictionary merged = again.build();
        QCOMPARE(findEntry(merged, "name 12345")->ids, (Strings{"X:12345", "X:other"}));
    }

    void buildEmptiesTheBuilder() {
        EvalDictionaryBuilder builder;
        builder.add("alpha", Strings{"X:1"});
        QCOMPARE(builder.build().entries.size(), std::size_t{1});
        const EvalDictionary second = builder.build();
        QVERIFY(second.entries.empty());
        builder.add("alpha", Strings{"X:2"});
        QCOMPARE(builder.build().entries.front().ids, Strings{"X:2"});
    }
};

QTEST_APPLESS_MAIN(TestEvalDictionary)
#include "test_eval_dictionary.moc"
