// The review queue's GUI costs on NCBI Disease + MEDIC with the sparse ranker: the
// whole queue (ui/review_queue_order.h: one pass over every mention, as F8 and the "Worth
// reviewing" filter compute it after a decision) and the Candidates dock's reach preview per
// candidate (what CurationController::previewReach computes: DecisionLog::sameSurface and the
// known proposal of each mention listed, and with a linked run RankerHost::datastoreMoves,
// the mentions whose proposal the decision's kNN key would change). Prints a Markdown table.
//
//   QT_QPA_PLATFORM=offscreen review_queue [MENTIONS] [--run RUN] [--json]
//       MENTIONS: dev mentions measured, 10 candidates each (default 200)
//       --run: link with this training run and its kNN datastore first (the GUI's Linking menu),
//              so the preview includes the datastore's reach
//       --json: the figures as one JSON object on standard output (json_report.h)
//
// Reads ../shared/data (LINKSCOPE_DATA_DIR overrides); exits 0 with a note when it is absent.
#include <QApplication>
#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "corpus/corpus.h"
#include "curation/augmented_linker.h"
#include "curation_session.h"
#include "json_report.h"
#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "review_queue_order.h"

using namespace linkscope;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double quantile(std::vector<double> values, double q) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1))];
}

fs::path dataDirectory() {
    if (const char* env = std::getenv("LINKSCOPE_DATA_DIR"); env && *env) return env;
    return LINKSCOPE_DEFAULT_DATA_DIR;
}

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

}  // namespace

int main(int argc, char** argv) {
    linkscope::bench::JsonReport report("review_queue", argc, argv);
    QApplication app(argc, argv);
    std::size_t sample = 200;
    QString run;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument == "--run" && i + 1 < argc)
            run = QString::fromLocal8Bit(argv[++i]);
        else
            sample = std::stoul(argument);
    }
    const fs::path data = dataDirectory();
    const fs::path kb = data / "medic" / "medic_06Jul2012.txt";
    const fs::path train = data / "ncbi-disease" / "NCBItrainset_corpus.txt";
    const fs::path dev = data / "ncbi-disease" / "NCBIdevelopset_corpus.txt";
    const fs::path test = data / "ncbi-disease" / "NCBItestset_corpus.txt";
    for (const auto& file : {kb, train, dev, test})
        if (!fs::exists(file)) {
            std::printf("absent: %s (shared data); nothing measured\n", file.string().c_str());
            report.figures()["skipped"] = "absent: " + file.string();
            return 0;
        }
    QTemporaryDir folder;
    const fs::path manifestFile = fs::path(folder.path().toStdString()) / "ncbi-medic.json";
    {
        const nlohmann::json manifest = {
            {"format", "linkscope-project-manifest"},
            {"version", 1},
            {"name", "NCBI Disease + MEDIC (review_queue)"},
            {"knowledgeBase", {{"path", kb.string()}, {"format", "medic"}}},
            {"corpora",
             {{{"split", "train"}, {"path", train.string()}, {"format", "pubtator"}},
              {{"split", "dev"}, {"path", dev.string()}, {"format", "pubtator"}},
              {{"split", "test"}, {"path", test.string()}, {"format", "pubtator"}}}},
        };
        std::ofstream(manifestFile) << manifest.dump(2);
    }
    auto project = std::make_shared<const LoadedProject>(loadProject(readProjectManifest(manifestFile)));
    ui::CurationSession session;
    const QString error = session.open(project, folder.filePath(QStringLiteral("bench.linkscope")));
    if (!error.isEmpty()) {
        std::fprintf(stderr, "cannot open the project file: %s\n", error.toUtf8().constData());
        return 1;
    }
    const auto ranking = Clock::now();
    while (!session.rankers()->proposalsAvailable())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 100);
    const double rankingMs = msSince(ranking);
    double runMs = 0.0;
    if (!run.isEmpty()) {
        if (!ui::RankerHost::runLinkingAvailable()) {
            std::fprintf(stderr, "this build cannot link with a trained run (no LibTorch)\n");
            return 1;
        }
        QString failure;
        QObject::connect(&session, &ui::CurationSession::errorOccurred,
                         [&](const QString& message) { failure = message; });
        const auto linking = Clock::now();
        session.rankers()->linkWithRun(run, curation::LinkMode::Knn);
        while (session.rankers()->runLinkingUnderWay() || (!session.rankers()->runRanker() && failure.isEmpty()))
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 100);
        if (!session.rankers()->runRanker()) {
            std::fprintf(stderr, "linking with %s failed: %s\n", run.toUtf8().constData(),
                         failure.toUtf8().constData());
            return 1;
        }
        runMs = msSince(linking);
    }

    std::size_t mentions = 0;
    for (const auto& split : project->splits)
        for (const auto& document : split.corpus.documents()) mentions += document.mentions.size();

    std::vector<double> queueMs;
    std::size_t queued = 0;
    for (int repeat = 0; repeat < 7; ++repeat) {
        const auto start = Clock::now();
        queued = ui::reviewQueueOf(session).size();
        queueMs.push_back(msSince(start));
    }

    std::vector<double> previewMs, sameSurfaceMs, datastoreMs;
    std::size_t listed = 0, largest = 0, measured = 0, reached = 0, largestReach = 0;
    for (const auto& split : project->splits) {
        if (split.split != "dev") continue;
        for (const auto& document : split.corpus.documents())
            for (const auto& mention : document.mentions) {
                if (measured == sample) break;
                ++measured;
                const project::MentionKey key{split.split, document.pmid(), mention.start, mention.end};
                for (const auto& row : session.rankers()->rankCandidates(key, mention, 10)) {
                    const auto start = Clock::now();
                    const auto same = session.decisions()->sameSurface(key, mention, row.entity);
                    sameSurfaceMs.push_back(msSince(start));
                    for (const auto& ref : same) (void)session.rankers()->proposal(ref.key);
                    const auto datastoreStart = Clock::now();
                    const auto reach = session.rankers()->datastoreMoves(key, row.entity);
                    if (session.rankers()->runRanker()) datastoreMs.push_back(msSince(datastoreStart));
                    previewMs.push_back(msSince(start));
                    listed += same.size();
                    largest = std::max(largest, same.size());
                    reached += reach.size();
                    largestReach = std::max(largestReach, reach.size());
                }
            }
    }

    std::printf("machine: %s, %u threads; %zu mentions in the project, every proposal ranked in %.0f ms\n",
                cpuModel().c_str(), std::thread::hardware_concurrency(), mentions, rankingMs);
    if (session.rankers()->runRanker())
        std::printf("linked with %s in %.0f ms\n", session.rankers()->rankerDescription().toUtf8().constData(), runMs);
    report.parameters() = {{"mentions_sampled", sample}, {"run", run.toStdString()}};
    auto& figures = report.figures();
    figures["project_mentions"] = mentions;
    figures["every_proposal_ranked_ms"] = rankingMs;
    if (session.rankers()->runRanker()) {
        figures["ranker"] = session.rankers()->rankerDescription().toStdString();
        figures["run_linked_ms"] = runMs;
    }
    figures["undecided_mentions_queued"] = queued;
    figures["dev_mentions_measured"] = measured;
    figures["listed_in_all"] = listed;
    figures["largest_listing"] = largest;
    const auto timingRow = [](const char* what, const std::vector<double>& ms) {
        return nlohmann::ordered_json{{"what", what},
                                      {"n", ms.size()},
                                      {"median_ms", quantile(ms, 0.5)},
                                      {"p99_ms", quantile(ms, 0.99)},
                                      {"max_ms", quantile(ms, 1.0)}};
    };
    auto& timings = figures["timings"] = nlohmann::ordered_json::array();
    timings.push_back(timingRow("whole review queue (F8, Worth reviewing)", queueMs));
    timings.push_back(timingRow("reach preview per candidate", previewMs));
    timings.push_back(timingRow("of which DecisionLog::sameSurface", sameSurfaceMs));
    if (!datastoreMs.empty()) {
        timings.push_back(timingRow("of which RankerHost::datastoreMoves", datastoreMs));
        figures["datastore_moved_in_all"] = reached;
        figures["datastore_largest_move"] = largestReach;
    }
    std::printf("| what | n | median | p99 | max | note |\n| --- | ---: | ---: | ---: | ---: | --- |\n");
    std::printf(
        "| whole review queue (F8, Worth reviewing) | %zu | %.1f ms | %.1f ms | %.1f ms | %zu undecided mentions |\n",
        queueMs.size(), quantile(queueMs, 0.5), quantile(queueMs, 0.99), quantile(queueMs, 1.0), queued);
    std::printf(
        "| reach preview per candidate (%s) | %zu | %.2f ms | %.2f ms | %.2f ms | %zu dev mentions x 10 candidates; "
        "%zu listed in all, at most %zu for one |\n",
        session.rankers()->runRanker() ? "run, same text and datastore" : "sparse, same text", previewMs.size(),
        quantile(previewMs, 0.5), quantile(previewMs, 0.99), quantile(previewMs, 1.0), measured, listed, largest);
    std::printf(
        "| of which DecisionLog::sameSurface | %zu | %.2f ms | %.2f ms | %.2f ms | a pass over every mention's "
        "text, the known proposal of each |\n",
        sameSurfaceMs.size(), quantile(sameSurfaceMs, 0.5), quantile(sameSurfaceMs, 0.99),
        quantile(sameSurfaceMs, 1.0));
    if (!datastoreMs.empty())
        std::printf(
            "| of which RankerHost::datastoreMoves | %zu | %.2f ms | %.2f ms | %.2f ms | the key added for a "
            "moment, the mentions it reaches ranked again; %zu moved in all, at most %zu for one candidate |\n",
            datastoreMs.size(), quantile(datastoreMs, 0.5), quantile(datastoreMs, 0.99), quantile(datastoreMs, 1.0),
            reached, largestReach);
    return 0;
}
