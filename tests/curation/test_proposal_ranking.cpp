// Every mention's proposal in batches (core/curation/proposal_ranking.h): each mention
// is ranked once and its proposal is the sparse ranker's own top entity, batches hold whole
// documents, a document asked for is ranked next (also one asked for before the run starts),
// an expansion is ranked in the mention's place, and cancelling stops between batches.
#include <QTest>

#include <atomic>
#include <cmath>
#include <set>
#include <thread>

#include "corpus/corpus.h"
#include "curation/proposal_ranking.h"
#include "curation/sparse_candidates.h"
#include "kb/kb_builder.h"
#include "project/loaded_project.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::curation;

namespace {

constexpr double kTolerance = 1e-9;

// Two splits of documents "<split>-<n>", each with `mentions` mentions cycling through the texts.
LoadedProject projectOf(std::size_t documents, std::size_t mentions) {
    kb::KnowledgeBaseBuilder builder;
    const auto add = [&builder](std::string_view id, std::initializer_list<std::string_view> names) {
        const kb::EntityIndex e = builder.entity(id);
        for (const std::string_view name : names) builder.addName(e, name);
    };
    add("MESH:D006816", {"Huntington Disease"});
    add("MESH:D001943", {"Breast Neoplasms"});
    add("MESH:D010051", {"Ovarian Neoplasms"});
    add("MESH:D003924", {"Diabetes Mellitus, Type 2"});
    LoadedProject project;
    project.kb = std::make_unique<kb::KnowledgeBase>(builder.build());
    const std::vector<std::string> texts{"huntington disease", "breast neoplasm", "ovarian neoplasms",
                                         "type 2 diabetes", "HD"};
    for (const std::string split : {"train", "test"}) {
        SplitCorpus corpus{split, Corpus(split)};
        for (std::size_t d = 0; d < documents; ++d) {
            Document document(split + "-" + std::to_string(d));
            document.title = "Title";
            for (std::size_t m = 0; m < mentions; ++m) {
                Mention mention;
                mention.start = m * 10;
                mention.end = m * 10 + 5;
                mention.text = texts[(d + m) % texts.size()];
                document.mentions.push_back(mention);
            }
            corpus.corpus.add(std::move(document));
        }
        project.splits.push_back(std::move(corpus));
    }
    return project;
}

struct Delivered {
    std::vector<ProposalRanking::Batch> batches;
    std::set<std::string> documentsOf(std::size_t batch) const {
        std::set<std::string> documents;
        for (const auto& [key, proposal] : batches[batch]) documents.insert(key.document);
        return documents;
    }
};

}  // namespace

class TestProposalRanking : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyMentionOnceWithTheRankersTop() {
        const LoadedProject project = projectOf(7, 3);
        const SparseCandidates ranker(*project.kb, /*homonymExpansion=*/false);
        const std::map<project::MentionKey, std::string> expansions;
        ProposalRanking ranking(project, ranker, expansions);
        Delivered delivered;
        ranking.run([&](ProposalRanking::Batch&& batch) { delivered.batches.push_back(std::move(batch)); }, {}, 5);
        std::set<project::MentionKey> seen;
        std::size_t mentions = 0;
        for (const auto& batch : delivered.batches)
            for (const auto& [key, proposal] : batch) {
                QVERIFY2(seen.insert(key).second, "a mention was ranked twice");
                ++mentions;
                const Document* document = nullptr;
                for (const SplitCorpus& split : project.splits)
                    if (split.split == key.split) document = split.corpus.find(key.document);
                QVERIFY(document);
                const Mention* mention = nullptr;
                for (const Mention& m : document->mentions)
                    if (m.start == key.start) mention = &m;
                QVERIFY(mention);
                const auto rows = ranker.rank(mention->text, 2);
                if (rows.empty()) {
                    QVERIFY(proposal.entity.empty());
                    continue;
                }
                QCOMPARE(proposal.entity, rows[0].entity);
                QVERIFY(std::abs(proposal.score - rows[0].score) < kTolerance);
                const double margin = rows.size() > 1 ? rows[0].score - rows[1].score : rows[0].score;
                QVERIFY(std::abs(proposal.margin - margin) < kTolerance);
            }
        QCOMPARE(mentions, std::size_t{2 * 7 * 3});
        // Batches of whole documents, at least 5 mentions each but the last: 2 documents (6
        // mentions) per batch, so 7 batches for 14 documents.
        QCOMPARE(delivered.batches.size(), std::size_t{7});
        for (std::size_t b = 0; b < delivered.batches.size(); ++b)
            QCOMPARE(delivered.batches[b].size(), std::size_t{6});
        QCOMPARE(delivered.documentsOf(0), (std::set<std::string>{"train-0", "train-1"}));
    }

    // The ranker keeps its searchers for reuse (their scratch is a score per name); several
    // threads asking at once each get their own and the same rows as one thread alone.
    void rankFromSeveralThreadsAtOnce() {
        const LoadedProject project = projectOf(1, 1);
        const SparseCandidates ranker(*project.kb, /*homonymExpansion=*/false);
        const std::vector<std::string> texts{"huntington disease", "breast neoplasm", "ovarian neoplasms",
                                             "type 2 diabetes", "neoplasms of the breast"};
        std::vector<std::vector<curation::CandidateRow>> expected;
        for (const std::string& text : texts) expected.push_back(ranker.rank(text, 3));
        QVERIFY(!expected[0].empty());
        std::atomic<int> mismatches{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                for (int i = 0; i < 200; ++i) {
                    const std::size_t q = static_cast<std::size_t>(t + i) % texts.size();
                    const auto rows = ranker.rank(texts[q], 3);
                    bool same = rows.size() == expected[q].size();
                    for (std::size_t r = 0; same && r < rows.size(); ++r)
                        same = rows[r].entity == expected[q][r].entity &&
                               std::abs(rows[r].score - expected[q][r].score) <= kTolerance;
                    if (!same) ++mismatches;
                }
            });
        for (auto& thread : threads) thread.join();
        QCOMPARE(mismatches.load(), 0);
    }

    void aDocumentAskedForIsRankedNext() {
        const LoadedProject project = projectOf(10, 2);
        const SparseCandidates ranker(*project.kb, /*homonymExpansion=*/false);
        const std::map<project::MentionKey, std::string> expansions;
        ProposalRanking ranking(project, ranker, expansions);
        // Asked for before the run: it comes first, alone.
        ranking.prioritize("test", "test-9");
        ranking.prioritize("test", "no-such-document");  // ignored
        Delivered delivered;
        bool asked = false;
        ranking.run(
            [&](ProposalRanking::Batch&& batch) {
                delivered.batches.push_back(std::move(batch));
                // While the second batch is delivered, the curator opens another far document.
                if (delivered.batches.size() == 2 && !asked) {
                    ranking.prioritize("test", "test-5");
                    ranking.prioritize("train", "train-0");  // already ranked: nothing more
                    asked = true;
                }
            },
            {}, 4);
        QCOMPARE(delivered.documentsOf(0), (std::set<std::string>{"test-9"}));
        QCOMPARE(delivered.documentsOf(1), (std::set<std::string>{"train-0", "train-1"}));
        QCOMPARE(delivered.documentsOf(2), (std::set<std::string>{"test-5"}));
        QCOMPARE(delivered.documentsOf(3), (std::set<std::string>{"train-2", "train-3"}));
        std::size_t mentions = 0;
        std::set<std::string> documents;
        for (std::size_t b = 0; b < delivered.batches.size(); ++b) {
            mentions += delivered.batches[b].size();
            for (const std::string& document : delivered.documentsOf(b))
                QVERIFY2(documents.insert(document).second, "a document was ranked twice");
        }
        QCOMPARE(mentions, std::size_t{2 * 10 * 2});
    }

    void anExpansionIsRankedInTheMentionsPlace() {
        const LoadedProject project = projectOf(1, 5);
        const SparseCandidates ranker(*project.kb, /*homonymExpansion=*/false);
        // train-0's fifth mention reads "HD"; its document defines it as Huntington disease.
        const Mention& hd = project.splits[0].corpus.documents()[0].mentions[4];
        QCOMPARE(hd.text, std::string("HD"));
        const project::MentionKey key{"train", "train-0", hd.start, hd.end};
        const std::map<project::MentionKey, std::string> expansions{{key, "Huntington disease"}};
        ProposalRanking ranking(project, ranker, expansions);
        std::map<project::MentionKey, MentionProposal> proposals;
        ranking.run([&](ProposalRanking::Batch&& batch) {
            for (auto& [k, p] : batch) proposals.emplace(k, p);
        });
        QCOMPARE(proposals.at(key).entity, std::string("MESH:D006816"));
        // Unexpanded, the same text in test-0 proposes what "HD" alone ranks first.
        const project::MentionKey plain{"test", "test-0", hd.start, hd.end};
        const auto rows = ranker.rank("HD", 1);
        QCOMPARE(proposals.at(plain).entity, rows.empty() ? std::string() : rows[0].entity);
    }

    void cancellingStopsBetweenBatches() {
        const LoadedProject project = projectOf(10, 2);
        const SparseCandidates ranker(*project.kb, /*homonymExpansion=*/false);
        const std::map<project::MentionKey, std::string> expansions;
        ProposalRanking ranking(project, ranker, expansions);
        std::size_t batches = 0;
        ProgressSink progress;
        progress.cancelled = [&] { return batches >= 2; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, ranking.run([&](ProposalRanking::Batch&&) { ++batches; }, progress, 4));
        QCOMPARE(batches, std::size_t{2});
    }
};

QTEST_GUILESS_MAIN(TestProposalRanking)
#include "test_proposal_ranking.moc"
