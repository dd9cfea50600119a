// The KB loaders and the homonym figures on the real vocabularies under ../shared/data:
// MEDIC (BioSyn's medic_06Jul2012.txt), CTD_diseases.tsv.gz and BioSyn's NCBI Disease
// dictionary. Homonym figures are checked against a naive count over the raw lines.
#include <QProcess>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "homonym_figures.h"
#include "kb/ctd_loader.h"
#include "kb/dictionary_loader.h"
#include "kb/homonyms.h"
#include "kb_test_support.h"
#include "test_data.h"

using namespace linkscope;
using namespace linkscope::kb;

namespace {

using Key = std::function<std::string(std::string_view)>;

// One MEDIC line read without the loader: the id column and the names, each once, in order.
struct RawEntry {
    std::string ids;
    std::vector<std::string> names;
};

std::string trimmed(const std::string& s) {
    const auto begin = s.find_first_not_of(" \t");
    if (begin == std::string::npos) return {};
    return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

std::vector<RawEntry> readRawMedic(const std::filesystem::path& path) {
    std::vector<RawEntry> entries;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (trimmed(line).empty()) continue;
        const auto bars = line.find("||");
        RawEntry entry{line.substr(0, bars), {}};
        std::string rest = line.substr(bars + 2) + "|";
        for (std::size_t start = 0, end; (end = rest.find('|', start)) != std::string::npos; start = end + 1) {
            const std::string name = trimmed(rest.substr(start, end - start));
            if (!name.empty() && std::find(entry.names.begin(), entry.names.end(), name) == entry.names.end())
                entry.names.push_back(name);
        }
        entries.push_back(std::move(entry));
    }
    return entries;
}

// Table 2's figures by the definitions, with std::map<std::string, std::set<std::string>>
// from (normalized) name to the id columns that have it.
HomonymStatistics naiveCount(const std::vector<RawEntry>& entries, const Key& key) {
    std::map<std::string, std::set<std::string>> holders;
    for (const auto& entry : entries)
        for (const auto& name : entry.names) holders[key(name)].insert(entry.ids);
    HomonymStatistics s;
    s.entities = entries.size();
    s.distinctNames = holders.size();
    for (const auto& [name, ids] : holders)
        if (ids.size() > 1) ++s.homonymNames;
    std::map<std::string, std::set<std::string>> finalHolders;
    std::vector<std::pair<std::string, const RawEntry*>> homonymFinals;
    for (const auto& entry : entries) {
        for (const auto& name : entry.names) {
            ++s.pairs;
            if (holders[key(name)].size() < 2) {
                finalHolders[key(name)].insert(entry.ids);
                continue;
            }
            ++s.homonymPairs;
            std::string disambiguator;
            if (key(name) != key(entry.names.front())) {
                ++s.otherNamePairs;
                disambiguator = entry.names.front();
            } else {
                ++s.preferredNamePairs;
                for (const auto& other : entry.names)  // shortest, then byte order
                    if (key(other) != key(name) && (disambiguator.empty() || other.size() < disambiguator.size() ||
                                                    (other.size() == disambiguator.size() && other < disambiguator)))
                        disambiguator = other;
                if (disambiguator.empty()) ++s.unexpandablePairs;
            }
            const std::string expanded = disambiguator.empty() ? name : name + " (" + disambiguator + ")";
            finalHolders[key(expanded)].insert(entry.ids);
            homonymFinals.emplace_back(key(expanded), &entry);
        }
    }
    for (const auto& [name, ids] : finalHolders)
        if (ids.size() > 1) ++s.remainingDuplicateNames;
    for (const auto& [finalKey, entry] : homonymFinals)
        if (finalHolders[finalKey].size() > 1) ++s.failedPairs;
    return s;
}

void printTable(const char* title, const HomonymStatistics& s) {
    qInfo(
        "%s: entities %zu, names (pairs) %zu, distinct names %zu, homonym names %zu, homonym pairs %zu "
        "(pref. name %zu of which unexpandable %zu, other %zu, cross-species %zu), failed pairs %zu, "
        "success rate %.4f, remaining duplicate names %zu",
        title, s.entities, s.pairs, s.distinctNames, s.homonymNames, s.homonymPairs, s.preferredNamePairs,
        s.unexpandablePairs, s.otherNamePairs, s.crossSpeciesPairs, s.failedPairs, s.successRate(),
        s.remainingDuplicateNames);
}

}  // namespace

class TestKbData : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void medicConceptsNamesAndIds() {
        LINKSCOPE_REQUIRE_DATA(path, "medic/medic_06Jul2012.txt");
        const auto result = loadDictionary(path);
        const KnowledgeBase& kb = result.kb;
        QVERIFY(result.diagnostics.empty());
        QCOMPARE(kb.entityCount(), std::size_t{11915});  // medic/SOURCE.md

        const auto raw = readRawMedic(path);
        QCOMPARE(raw.size(), std::size_t{11915});
        std::size_t pairs = 0;
        std::set<std::string> distinct;
        for (const auto& entry : raw) {
            pairs += entry.names.size();
            distinct.insert(entry.names.begin(), entry.names.end());
        }
        const auto stats = kb.statistics();
        QCOMPARE(stats.namePairs, pairs);
        QCOMPARE(stats.distinctNames, distinct.size());
        // 3,028 OMIM numbers (and a second MeSH id twice) next to the primary ids, counted
        // with awk/python over the id column; only OMIM:260350 is both a concept of its own
        // and another concept's alternative id.
        QCOMPARE(stats.alternativeIds, std::size_t{3028});
        QCOMPARE(stats.idsOfSeveralEntities, std::size_t{1});

        const auto tooth = kb.findEntity("OMIM:613097");
        QVERIFY(tooth.has_value());
        QCOMPARE(kb.primaryId(*tooth), std::string_view("MESH:C567755"));
        QCOMPARE(kb.preferredName(*tooth), std::string_view("Tooth Agenesis, Selective, 6"));
        QCOMPARE(kb.findEntity("C567755"), tooth);
        QCOMPARE(kb.primaryId(kb.findEntity("OMIM:605027").value()), std::string_view("MESH:D008228"));
        const auto pancreatic = kb.findById("OMIM:260350");
        QCOMPARE(pancreatic.size(), std::size_t{2});
        QCOMPARE(kb.primaryId(pancreatic[0]), std::string_view("OMIM:260350"));
        QCOMPARE(kb.primaryId(pancreatic[1]), std::string_view("MESH:D010190"));
        // Every raw entry's first name is the preferred name of the entity its first id finds.
        for (std::size_t i = 0; i < raw.size(); i += 101) {
            const auto firstId = raw[i].ids.substr(0, raw[i].ids.find('|'));
            const auto id = std::all_of(firstId.begin(), firstId.end(), ::isdigit) ? "OMIM:" + firstId : firstId;
            const auto holders = kb.findById(id);
            QVERIFY2(!holders.empty(), id.c_str());
            bool found = false;
            for (const auto e : holders) found = found || kb.preferredName(e) == raw[i].names.front();
            QVERIFY2(found, id.c_str());
        }
    }

    void medicHomonymsAgreeWithNaiveCount() {
        LINKSCOPE_REQUIRE_DATA(path, "medic/medic_06Jul2012.txt");
        const auto result = loadDictionary(path);
        const auto raw = readRawMedic(path);

        const auto exact = expandHomonyms(result.kb);
        const auto exactNaive = naiveCount(raw, [](std::string_view s) { return std::string(s); });
        test::compareNameHomonymFigures(exact.statistics(), exactNaive);
        QCOMPARE(result.kb.statistics().namesOfSeveralEntities, exact.statistics().homonymNames);
        printTable("MEDIC exact", exact.statistics());

        HomonymOptions options;
        options.normalizer = test::simpleNormalize;
        const auto normalized = expandHomonyms(result.kb, options);
        test::compareNameHomonymFigures(normalized.statistics(), naiveCount(raw, test::simpleNormalize));
        printTable("MEDIC normalized", normalized.statistics());

        // The same figures from an independent python3 count over the file (its table is in
        // git: docs/benchmarks.md at 88e03ec); `linkscope-cli stats --kb` prints them now.
        QCOMPARE(exact.statistics().homonymNames, std::size_t{156});
        QCOMPARE(exact.statistics().homonymPairs, std::size_t{341});
        QCOMPARE(exact.statistics().preferredNamePairs, std::size_t{3});
        QCOMPARE(exact.statistics().otherNamePairs, std::size_t{338});
        QCOMPARE(exact.statistics().failedPairs, std::size_t{0});
        QCOMPARE(normalized.statistics().homonymPairs, std::size_t{2138});
        QCOMPARE(normalized.statistics().failedPairs, std::size_t{76});

        // Algorithm 1's longest other name leaves more duplicates on normalized MEDIC (python3: 91).
        options.choice = DisambiguatorChoice::Longest;
        const auto longest = expandHomonyms(result.kb, options);
        QCOMPARE(longest.statistics().homonymPairs, std::size_t{2138});
        QCOMPARE(longest.statistics().failedPairs, std::size_t{91});
    }

    void ctdDiseases() {
        LINKSCOPE_REQUIRE_DATA(path, "ctd-diseases/CTD_diseases.tsv.gz");
        const auto result = loadCtd(path);
        QVERIFY(result.kind == CtdKind::Diseases);
        QCOMPARE(result.linesRead, std::size_t{11865});  // ctd-diseases/SOURCE.md
        const KnowledgeBase& kb = result.kb;
        QCOMPARE(kb.entityCount(), std::size_t{11865});
        for (const auto& d : result.diagnostics) qInfo("%s", d.toString().c_str());
        QVERIFY(result.diagnostics.empty());

        const auto dcm = kb.findEntity("OMIM:115200").value();
        QCOMPARE(kb.primaryId(dcm), std::string_view("MESH:D002311"));
        QCOMPARE(kb.preferredName(dcm), std::string_view("Cardiomyopathy, Dilated"));
        QCOMPARE(kb.semanticTypes(dcm).front().name, std::string_view("Cardiovascular disease"));
        QCOMPARE(kb.primaryId(kb.findEntity("OMIM:302045").value()), std::string_view("OMIM:302045"));
        QCOMPARE(kb.statistics().semanticTypes, std::size_t{36});  // distinct SlimMappings values
        const auto homonyms = expandHomonyms(kb);
        printTable("CTD diseases (2017) exact", homonyms.statistics());
        // An independent python3 count over the rows (DiseaseName + Synonyms) gives the same.
        QCOMPARE(homonyms.statistics().pairs, std::size_t{77994});
        QCOMPARE(homonyms.statistics().homonymNames, std::size_t{145});
        QCOMPARE(homonyms.statistics().homonymPairs, std::size_t{322});
        QCOMPARE(homonyms.statistics().otherNamePairs, std::size_t{320});
        QCOMPARE(homonyms.statistics().failedPairs, std::size_t{0});
    }

    void biosynDictionaryMergesLinesById() {
        LINKSCOPE_REQUIRE_DATA(archive, "biosyn-ncbi-disease/ncbi-disease.tar.gz");
        QTemporaryDir dir;
        QProcess tar;
        tar.start("tar", {"xzf", QString::fromStdString(archive.string()), "-C", dir.path(),
                          "ncbi-disease/test_dictionary.txt"});
        QVERIFY(tar.waitForFinished(60000));
        QCOMPARE(tar.exitCode(), 0);
        const std::filesystem::path path = dir.path().toStdString() + "/ncbi-disease/test_dictionary.txt";

        const auto result = loadDictionary(path);
        QVERIFY(result.diagnostics.empty());
        QCOMPARE(result.linesRead, std::size_t{73024});  // biosyn-ncbi-disease/SOURCE.md
        // Naive: distinct id sets (ids in any order, each once) and distinct (id set, name) lines.
        std::ifstream in(path);
        std::string line;
        std::set<std::set<std::string>> idSets;
        std::set<std::pair<std::set<std::string>, std::string>> pairs;
        while (std::getline(in, line)) {
            const auto bars = line.find("||");
            std::set<std::string> ids;
            std::string column = line.substr(0, bars) + "|";
            for (std::size_t start = 0, end; (end = column.find('|', start)) != std::string::npos; start = end + 1)
                ids.insert(trimmed(column.substr(start, end - start)));  // one line has "D008661| D008661"
            idSets.insert(ids);
            pairs.insert({ids, line.substr(bars + 2)});
        }
        QCOMPARE(result.kb.entityCount(), idSets.size());
        QCOMPARE(result.kb.pairCount(), pairs.size());
        const auto tooth = result.kb.findEntity("OMIM:613097").value();
        QCOMPARE(result.kb.preferredName(tooth), std::string_view("tooth agenesis selective 6"));
    }
};

QTEST_APPLESS_MAIN(TestKbData)
#include "test_kb_data.moc"
