// The embedding plot's points for one entity on a hand-made KB and corpus: the focus entity's
// names and gold mentions (every split, alternative ids included), its competitors from the
// sparse ranking, composite mentions drawn once, fair deterministic sampling beyond the cap,
// TF-IDF and pluggable dense cosine distances, refusals and cancellation.
#include <QTest>

#include <algorithm>
#include <cmath>

#include "corpus/concept_id.h"
#include "curation/entity_neighbourhood.h"
#include "curation/sparse_candidates.h"
#include "kb/kb_builder.h"
#include "project/loaded_project.h"
#include "test_data.h"

using namespace linkscope;
using namespace linkscope::curation;

namespace {

kb::KnowledgeBase makeKb() {
    kb::KnowledgeBaseBuilder builder;
    const auto add = [&builder](std::string_view id, std::initializer_list<std::string_view> names,
                                std::string_view alternative = {}) {
        const kb::EntityIndex e = builder.entity(id);
        for (const std::string_view name : names) builder.addName(e, name);
        if (!alternative.empty()) builder.addAlternativeId(e, alternative);
    };
    add("MESH:D006816", {"Huntington Disease", "Huntington Chorea", "HD"}, "OMIM:143100");
    add("MESH:D006627", {"Hirschsprung Disease", "Congenital Megacolon", "HD"});
    add("MESH:D009369", {"Neoplasms", "Tumors"});
    add("MESH:D001943", {"Breast Neoplasms", "Breast Cancer"});
    add("MESH:D012859", {"Sjogren Syndrome"});
    return builder.build();
}

Mention mention(std::size_t start, std::string text, std::string_view ids) {
    Mention m;
    m.start = start;
    m.end = start + text.size();
    m.text = std::move(text);
    m.type = "Disease";
    m.ids = parseConceptIdList(ids);
    m.idColumn = std::string(ids);
    return m;
}

std::vector<SplitCorpus> makeSplits() {
    std::vector<SplitCorpus> splits(2);
    splits[0].split = "train";
    Document a("100");
    a.title = "Huntington disease and HD.";
    a.abstract = "HD, HD and hirschsprung disease; breast neoplasms and tumors.";
    a.mentions = {mention(0, "Huntington disease", "D006816"),
                  mention(23, "HD", "D006816"),
                  mention(27, "HD", "D006627"),
                  mention(31, "HD", "OMIM:143100"),
                  mention(38, "hirschsprung disease", "D006627"),
                  mention(60, "breast neoplasms and tumors", "D001943|D009369")};
    splits[0].corpus.add(std::move(a));
    splits[1].split = "test";
    Document b("200");
    b.title = "Huntington chorea.";
    b.abstract = "None.";
    b.mentions = {mention(0, "Huntington chorea", "D006816"), mention(0, "Huntington chorea", "D006627+D006816")};
    splits[1].corpus.add(std::move(b));
    return splits;
}

std::size_t countOf(const EntityNeighbourhood& n, std::string_view entity, PointKind kind) {
    return static_cast<std::size_t>(std::count_if(n.points.begin(), n.points.end(), [&](const NeighbourhoodPoint& p) {
        return p.entity == entity && p.kind == kind;
    }));
}

}  // namespace

class TestEntityNeighbourhood : public QObject {
    Q_OBJECT
    kb::KnowledgeBase kb_ = makeKb();
    std::vector<SplitCorpus> splits_ = makeSplits();
    SparseCandidates candidates_{kb_, false};

private Q_SLOTS:
    void gathersNamesMentionsAndCompetitors() {
        NeighbourhoodOptions options;
        options.competitors = 1;
        const EntityNeighbourhood n = gatherEntityNeighbourhood(kb_, splits_, candidates_, "D006816", options);
        // The other "HD" is the strongest competitor of Huntington disease's mentions.
        QCOMPARE(n.entities.size(), std::size_t{2});
        QCOMPARE(n.entities[0].id, std::string("MESH:D006816"));
        QCOMPARE(n.entities[0].preferredName, std::string("Huntington Disease"));
        QCOMPARE(n.entities[0].competition, 0.0);
        QCOMPARE(n.entities[1].id, std::string("MESH:D006627"));
        QVERIFY(n.entities[1].competition > 0);

        // Focus: 3 names, then its mentions: primary id, OMIM alternative id, both splits, and
        // the conjunction D006627+D006816 (drawn for the focus, the first entity it names).
        QCOMPARE(n.entities[0].namePoints, std::size_t{3});
        QCOMPARE(n.entities[0].mentionsInProject, std::size_t{5});
        QCOMPARE(n.entities[0].mentionPoints, std::size_t{5});
        QCOMPARE(n.entities[1].namePoints, std::size_t{3});
        QCOMPARE(n.entities[1].mentionsInProject, std::size_t{2});
        QCOMPARE(n.points.size(), std::size_t{13});
        QCOMPARE(n.sampledOutMentions, std::size_t{0});

        QCOMPARE(n.points[0].label, std::string("Huntington Disease"));  // preferred name first
        QVERIFY(n.points[0].kind == PointKind::Name);
        QCOMPARE(n.points[2].label, std::string("HD"));
        const NeighbourhoodPoint& omim = n.points[5];
        QVERIFY(omim.kind == PointKind::Mention);
        QCOMPARE(omim.label, std::string("HD"));
        QCOMPARE(omim.split, std::string("train"));
        QCOMPARE(omim.pmid, std::string("100"));
        QCOMPARE(omim.start, std::size_t{31});
        QCOMPARE(omim.end, std::size_t{33});
        QCOMPARE(n.points[7].split, std::string("test"));
        QCOMPARE(n.points[7].entity, std::string("MESH:D006816"));  // the conjunction
        QCOMPARE(n.points[8].label, std::string("Hirschsprung Disease"));
        QCOMPARE(n.points[8].entity, std::string("MESH:D006627"));
        QCOMPARE(countOf(n, "MESH:D006627", PointKind::Mention), std::size_t{2});

        // Distances: symmetric, zero diagonal, identical texts at 0 (case is normalized away),
        // texts without a shared character n-gram at 1.
        const std::size_t size = n.points.size();
        QCOMPARE(n.distances.size(), size * size);
        for (std::size_t i = 0; i < size; ++i) {
            QCOMPARE(n.distance(i, i), 0.0);
            for (std::size_t j = 0; j < size; ++j) {
                QCOMPARE(n.distance(i, j), n.distance(j, i));
                QVERIFY(n.distance(i, j) >= 0.0 && n.distance(i, j) <= 1.0 + 1e-12);
            }
        }
        QVERIFY(n.distance(2, 4) < 1e-6);  // name "HD" and mention "HD"
        QVERIFY(n.distance(0, 3) < 1e-6);  // "Huntington Disease" and "Huntington disease"
        QVERIFY(n.distance(0, 2) > 0.5);
    }

    void tfidfDistancesOnKnownTexts() {
        const std::vector<std::string> texts{"ab", "AB", "cd", "", "abcd"};
        const std::vector<double> d = tfidfCosineDistances(texts);
        QCOMPARE(d.size(), std::size_t{25});
        QVERIFY(std::abs(d[0 * 5 + 1]) < 1e-6);         // same after lower-casing
        QVERIFY(std::abs(d[0 * 5 + 2] - 1.0) < 1e-12);  // nothing shared
        QVERIFY(std::abs(d[3 * 5 + 0] - 1.0) < 1e-12);  // an empty text is unrelated to all
        QCOMPARE(d[3 * 5 + 3], 0.0);
        QVERIFY(d[0 * 5 + 4] > 0.0 && d[0 * 5 + 4] < 1.0);
    }

    void competitorsAreRankedAndCapped() {
        NeighbourhoodOptions options;
        options.competitors = 10;  // more than the KB can offer
        const EntityNeighbourhood n = gatherEntityNeighbourhood(kb_, splits_, candidates_, "MESH:D006816", options);
        QVERIFY(n.entities.size() >= 2 && n.entities.size() <= kb_.entityCount());
        QCOMPARE(n.entities[1].id, std::string("MESH:D006627"));
        for (std::size_t i = 2; i < n.entities.size(); ++i)
            QVERIFY(n.entities[i - 1].competition >= n.entities[i].competition);
        std::vector<std::string> ids;
        for (const auto& e : n.entities) ids.push_back(e.id);
        std::sort(ids.begin(), ids.end());
        QVERIFY(std::adjacent_find(ids.begin(), ids.end()) == ids.end());  // each entity once
        options.competitors = 0;
        QCOMPARE(gatherEntityNeighbourhood(kb_, splits_, candidates_, "D006816", options).entities.size(),
                 std::size_t{1});
    }

    void entityWithoutMentionsUsesItsNames() {
        const EntityNeighbourhood n = gatherEntityNeighbourhood(kb_, splits_, candidates_, "D012859");
        QCOMPARE(n.entities[0].id, std::string("MESH:D012859"));
        QCOMPARE(n.entities[0].mentionsInProject, std::size_t{0});
        QCOMPARE(countOf(n, "MESH:D012859", PointKind::Name), std::size_t{1});
        QCOMPARE(n.points.size() * n.points.size(), n.distances.size());
    }

    void samplingIsFairAndDeterministic() {
        // 60 "HD" mentions of Huntington disease and 10 of Hirschsprung disease in one split.
        std::vector<SplitCorpus> splits(1);
        splits[0].split = "big";
        for (int d = 0; d < 10; ++d) {
            Document doc(std::to_string(1000 + d));
            doc.title = "HD HD HD HD HD HD HD.";
            for (std::size_t m = 0; m < 6; ++m) doc.mentions.push_back(mention(3 * m, "HD", "D006816"));
            doc.mentions.push_back(mention(18, "HD", "D006627"));
            splits[0].corpus.add(std::move(doc));
        }
        NeighbourhoodOptions options;
        options.competitors = 1;
        options.maxPoints = 26;  // 6 names + 20 mentions: 10 each
        const EntityNeighbourhood n = gatherEntityNeighbourhood(kb_, splits, candidates_, "D006816", options);
        QCOMPARE(n.points.size(), std::size_t{26});
        QCOMPARE(n.entities[0].mentionPoints, std::size_t{10});
        QCOMPARE(n.entities[1].mentionPoints, std::size_t{10});
        QCOMPARE(n.sampledOutMentions, std::size_t{50});
        // Evenly spaced in project order: one in six of the focus mentions, i.e. every 6th,
        // which here is the first mention of each document.
        for (std::size_t k = 0; k < 10; ++k) {
            const NeighbourhoodPoint& p = n.points[3 + k];
            QCOMPARE(p.pmid, std::to_string(1000 + k));
            QCOMPARE(p.start, std::size_t{0});
        }
        const EntityNeighbourhood again = gatherEntityNeighbourhood(kb_, splits, candidates_, "D006816", options);
        QCOMPARE(again.distances, n.distances);

        // Uneven room goes to the focus entity first; names are cut only when they alone are
        // too many (preferred name kept).
        options.maxPoints = 4;
        const EntityNeighbourhood tiny = gatherEntityNeighbourhood(kb_, splits, candidates_, "D006816", options);
        QCOMPARE(tiny.points.size(), std::size_t{4});
        QCOMPARE(tiny.entities[0].namePoints, std::size_t{2});
        QCOMPARE(tiny.entities[1].namePoints, std::size_t{2});
        QCOMPARE(tiny.points[0].label, std::string("Huntington Disease"));
        QCOMPARE(tiny.points[2].label, std::string("Hirschsprung Disease"));
        QCOMPARE(tiny.sampledOutMentions, std::size_t{70});
        options.maxPoints = 7;
        const EntityNeighbourhood odd = gatherEntityNeighbourhood(kb_, splits, candidates_, "D006816", options);
        QCOMPARE(odd.entities[0].mentionPoints, std::size_t{1});
        QCOMPARE(odd.entities[1].mentionPoints, std::size_t{0});
    }

    void denseEmbeddingCanBePluggedIn() {
        NeighbourhoodOptions options;
        options.competitors = 1;
        std::size_t calls = 0;
        // A toy encoder: (1, 0) for texts starting with 'H' or 'h', (0, 1) otherwise.
        options.embed = [&calls](std::span<const std::string> texts) {
            ++calls;
            std::vector<float> out;
            for (const std::string& t : texts) {
                const bool h = !t.empty() && (t[0] == 'H' || t[0] == 'h');
                out.push_back(h ? 1.0f : 0.0f);
                out.push_back(h ? 0.0f : 1.0f);
            }
            return out;
        };
        const EntityNeighbourhood n = gatherEntityNeighbourhood(kb_, splits_, candidates_, "D006816", options);
        QCOMPARE(calls, std::size_t{1});
        for (std::size_t i = 0; i < n.points.size(); ++i)
            for (std::size_t j = 0; j < n.points.size(); ++j) {
                const bool hi = n.points[i].label[0] == 'H' || n.points[i].label[0] == 'h';
                const bool hj = n.points[j].label[0] == 'H' || n.points[j].label[0] == 'h';
                QCOMPARE(n.distance(i, j), hi == hj ? 0.0 : 1.0);
            }
        options.embed = [](std::span<const std::string> texts) {
            return std::vector<float>(texts.size() * 2 + 1, 1.0f);
        };
        QVERIFY_THROWS_EXCEPTION(Error, (void)gatherEntityNeighbourhood(kb_, splits_, candidates_, "D006816", options));
    }

    void refusesUnknownEntitiesAndStopsWhenCancelled() {
        bool threw = false;
        try {
            (void)gatherEntityNeighbourhood(kb_, splits_, candidates_, "MESH:D999999");
        } catch (const Error& e) {
            threw = QString::fromUtf8(e.what()).contains(QStringLiteral("MESH:D999999"));
        }
        QVERIFY(threw);
        ProgressSink stop;
        stop.cancelled = [] { return true; };
        QVERIFY_THROWS_EXCEPTION(Cancelled,
                                 (void)gatherEntityNeighbourhood(kb_, splits_, candidates_, "D006816", {}, stop));
    }
};

QTEST_APPLESS_MAIN(TestEntityNeighbourhood)
#include "test_entity_neighbourhood.moc"
