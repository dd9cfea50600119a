// The embedding plot's computation on real data (NCBI Disease with MEDIC, read in place): the
// neighbourhood of a frequent entity respects the point cap, every mention point is a gold
// mention of its entity, and the MDS of the result is finite. Prints the sizes and times.
#include <QElapsedTimer>
#include <QTest>

#include <algorithm>
#include <cmath>

#include "curation/entity_neighbourhood.h"
#include "curation/sparse_candidates.h"
#include "eval/classical_mds.h"
#include "project/loaded_project.h"
#include "test_data.h"

using namespace linkscope;
using namespace linkscope::curation;

class TestEntityNeighbourhoodData : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ncbiDiseaseWithMedic() {
        LINKSCOPE_REQUIRE_DATA(medic, "medic/medic_06Jul2012.txt");
        LINKSCOPE_REQUIRE_DATA(ncbi, "ncbi-disease");
        ProjectManifest manifest;
        manifest.name = "NCBI Disease";
        manifest.knowledgeBase.path = medic;
        manifest.knowledgeBase.format = KbFormat::Medic;
        for (const auto& [split, file] :
             {std::pair{"train", "NCBItrainset_corpus.txt"}, std::pair{"dev", "NCBIdevelopset_corpus.txt"},
              std::pair{"test", "NCBItestset_corpus.txt"}})
            manifest.corpora.push_back({split, ncbi / file, CorpusFormat::PubTator, {}});
        QElapsedTimer timer;
        timer.start();
        const LoadedProject project = loadProject(manifest);
        const SparseCandidates candidates(*project.kb, true);
        qInfo("project and sparse ranker: %lld ms", static_cast<long long>(timer.restart()));

        // Neoplasms (D009369) has hundreds of mentions in NCBI Disease: the cap applies.
        for (const char* entity : {"MESH:D009369", "MESH:D006816", "MESH:D003110"}) {
            timer.restart();
            const EntityNeighbourhood n = gatherEntityNeighbourhood(*project.kb, project.splits, candidates, entity);
            const qint64 gatherMs = timer.restart();
            const eval::MdsResult mds = eval::classicalMds(n.distances);
            const qint64 mdsMs = timer.restart();
            std::size_t mentionsInProject = 0;
            for (const NeighbourhoodEntity& e : n.entities) mentionsInProject += e.mentionsInProject;
            qInfo(
                "%s: %zu entities, %zu points (%zu mentions in the project, %zu sampled out); "
                "gather %lld ms, MDS %lld ms, variance explained %.1f%%",
                entity, n.entities.size(), n.points.size(), mentionsInProject, n.sampledOutMentions,
                static_cast<long long>(gatherMs), static_cast<long long>(mdsMs), 100.0 * mds.varianceExplained());

            QCOMPARE(n.entities.size(), std::size_t{6});
            QVERIFY(n.points.size() <= 400);
            QCOMPARE(n.entities.front().id, std::string(entity));
            QVERIFY(n.entities.front().mentionsInProject > 0);
            QCOMPARE(n.distances.size(), n.points.size() * n.points.size());
            // Every mention point is a mention of the corpus whose gold names its entity.
            for (const NeighbourhoodPoint& p : n.points) {
                if (p.kind != PointKind::Mention) continue;
                const auto split = std::find_if(project.splits.begin(), project.splits.end(),
                                                [&](const SplitCorpus& s) { return s.split == p.split; });
                QVERIFY(split != project.splits.end());
                const Document* document = split->corpus.find(p.pmid);
                QVERIFY(document);
                const auto mention =
                    std::find_if(document->mentions.begin(), document->mentions.end(),
                                 [&](const Mention& m) { return m.start == p.start && m.end == p.end; });
                QVERIFY(mention != document->mentions.end());
                QCOMPARE(mention->text, p.label);
                const kb::EntityIndex e = *project.kb->findEntity(p.entity);
                const bool linked =
                    std::any_of(mention->ids.ids.begin(), mention->ids.ids.end(), [&](const std::string& id) {
                        const auto holders = project.kb->findById(id);
                        return std::find(holders.begin(), holders.end(), e) != holders.end();
                    });
                QVERIFY2(linked, p.label.c_str());
            }
            QCOMPARE(mds.points, n.points.size());
            for (const double x : mds.coordinates) QVERIFY(std::isfinite(x));
            QVERIFY(mds.varianceExplained() > 0.0 && mds.varianceExplained() <= 1.0 + 1e-9);
        }
    }
};

QTEST_APPLESS_MAIN(TestEntityNeighbourhoodData)
#include "test_entity_neighbourhood_data.moc"
