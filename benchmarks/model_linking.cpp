// The GUI's "link with a trained run" on a real project, without the GUI:
// curation::ModelCandidates built on a project (model loaded, KB names encoded, training
// datastore, every mention encoded and ranked), then a curator's decisions fed one by one, as
// the GUI's ranker host (ui/ranker_host.h) feeds them on the GUI thread:
//   build    the worker's part, by stage, and the peak memory;
//   rank     the candidate list of one mention (what selecting a mention costs);
//   feed     one decision: its key added and the mentions it reaches found;
//   rerank   those mentions ranked again, 24 at a time (what the ranker host does per event-loop
//            turn), and all of them;
//   unfeed   its undo (keys removed, mentions found; their re-ranking is timed with rerank).
// The pass over every mention's vector that a feed makes is also timed apart (reachOf, before
// each feed), and the slowest feeds are listed with what they reached.
// The decisions walk the test split in order: each mention is corrected to its gold ids (or
// accepted when the proposal is already right), as a curator working through the documents.
//
// The memory the mentions take (ModelCandidates::mentionMemoryBytes: vectors, model lists, texts,
// keys, proposals) is printed with the build; --float-budget BYTES sets the size above which the
// mention vectors are kept in half precision (0: always; curation/target_vectors.h).
//
// Usage: model_linking MANIFEST RUN [--decisions 300] [--mode knn|sieve|model] [--float-budget BYTES]
//                      [--json]
// Prints a markdown table on stdout, progress on stderr; with --json the figures as one JSON
// object on stdout instead (json_report.h).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "curation/model_candidates.h"
#include "json_report.h"
#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "util/huge_pages.h"

using namespace linkscope;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double peakMegabytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

struct Summary {
    double median = 0, p95 = 0, max = 0;
};
Summary summarize(std::vector<double> values) {
    if (values.empty()) return {};
    std::sort(values.begin(), values.end());
    return {values[values.size() / 2], values[std::min(values.size() - 1, values.size() * 95 / 100)], values.back()};
}

std::string joined(const std::vector<std::string>& ids) {
    std::string text;
    for (const std::string& id : ids) text += (text.empty() ? "" : "|") + id;
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    // As the application starts (util/huge_pages.h); LINKSCOPE_HUGE_PAGES=0 measures without.
    linkscope::util::restartWithHugePages(argv);
    linkscope::bench::JsonReport report("model_linking", argc, argv);
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: model_linking MANIFEST RUN [--decisions N] [--mode knn|sieve|model] [--float-budget "
                     "BYTES] [--json]\n");
        return 2;
    }
    std::size_t decisionCount = 300;
    curation::ModelCandidatesOptions options;
    options.run = argv[2];
    for (int i = 3; i + 1 < argc; i += 2) {
        const std::string_view flag = argv[i];
        if (flag == "--decisions")
            decisionCount = std::strtoul(argv[i + 1], nullptr, 10);
        else if (flag == "--float-budget")
            options.floatVectorBudget = std::strtoull(argv[i + 1], nullptr, 10);
        else if (flag == "--mode") {
            const std::string_view mode = argv[i + 1];
            options.mode = mode == "sieve"   ? curation::LinkMode::Sieve
                           : mode == "model" ? curation::LinkMode::Model
                                             : curation::LinkMode::Knn;
        }
    }
    auto start = Clock::now();
    auto project = std::make_shared<const LoadedProject>(loadProject(readProjectManifest(argv[1])));
    const double loadMs = msSince(start);
    std::size_t mentions = 0;
    for (const SplitCorpus& split : project->splits)
        for (const Document& document : split.corpus.documents()) mentions += document.mentions.size();

    // The worker's build, stage by stage.
    std::vector<std::pair<std::string, double>> stages;
    std::string stage;
    Clock::time_point stageStart = Clock::now();
    ProgressSink progress;
    progress.report = [&](std::string_view name, double) {
        if (name == stage) return;
        if (!stage.empty()) stages.emplace_back(stage, msSince(stageStart));
        stage = name;
        stageStart = Clock::now();
        // With the seconds since the build started: a run stopped before its table still tells
        // how long its stages took.
        std::fprintf(stderr, "[%.1f s] %s\n", msSince(start) / 1000.0, stage.c_str());
    };
    start = Clock::now();
    curation::ModelCandidates model(project, options, {}, progress);
    const double buildMs = msSince(start);
    if (!stage.empty()) stages.emplace_back(stage, msSince(stageStart));
    const double peak = peakMegabytes();

    // The test split's mentions, in document order.
    std::vector<std::pair<project::MentionKey, const Mention*>> walk;
    for (const SplitCorpus& split : project->splits)
        if (split.split == "test")
            for (const Document& document : split.corpus.documents())
                for (const Mention& mention : document.mentions)
                    if (!mention.ids.cuiLess && !mention.ids.ids.empty())
                        walk.push_back({{split.split, document.pmid(), mention.start, mention.end}, &mention});
    if (walk.size() > decisionCount) walk.resize(decisionCount);

    std::vector<double> rankMs, feedMs, unfeedMs, reranked, batchMs, allMs, reachPassMs;
    constexpr std::size_t kBatch = 24;  // ui/ranker_host.cpp's kRerankBatch
    const auto rerankAll = [&](const std::vector<project::MentionKey>& reached) {
        const auto all = Clock::now();
        std::size_t changed = 0;
        for (std::size_t from = 0; from < reached.size(); from += kBatch) {
            const auto t = Clock::now();
            const auto batch = std::span(reached).subspan(from, std::min(kBatch, reached.size() - from));
            changed += model.rerank(batch).topChanged.size();
            batchMs.push_back(msSince(t));
        }
        allMs.push_back(msSince(all));
        return changed;
    };
    std::size_t topChanged = 0, corrections = 0;
    std::int64_t id = 0;
    for (const auto& [key, mention] : walk) {
        if (id % 25 == 0)
            std::fprintf(stderr, "[%.1f s] decision %lld of %zu\n", msSince(start) / 1000.0,
                         static_cast<long long>(id) + 1, walk.size());
        auto t = Clock::now();
        const auto rows = model.rank(key, 20);
        rankMs.push_back(msSince(t));
        project::Decision decision;
        decision.id = ++id;
        decision.mention = key;
        decision.newLink = joined(mention->ids.ids);
        const bool right = !rows.empty() && rows.front().entity == decision.newLink;
        decision.kind = right ? project::DecisionKind::Accept : project::DecisionKind::Correct;
        corrections += right ? 0 : 1;
        // The pass over every mention's vector that feed() makes too, timed apart (reachOf): a
        // slow feed with a fast pass is not the pass's doing.
        t = Clock::now();
        (void)model.reachOf(key);
        reachPassMs.push_back(msSince(t));
        t = Clock::now();
        const auto reached = model.feed(decision);
        feedMs.push_back(msSince(t));
        reranked.push_back(static_cast<double>(reached.size()));
        topChanged += rerankAll(reached);
    }
    // Undo the second half, newest first.
    for (std::int64_t undo = id; undo > id / 2; --undo) {
        const auto t = Clock::now();
        const auto reached = model.unfeed(undo);
        unfeedMs.push_back(msSince(t));
        rerankAll(reached);
    }

    const Summary rank = summarize(rankMs), feed = summarize(feedMs), unfeed = summarize(unfeedMs),
                  reach = summarize(reranked), batch = summarize(batchMs), all = summarize(allMs);
    std::printf("project: %s, %zu mentions; run: %s (%s)\n\n", project->manifest.name.c_str(), mentions,
                options.run.string().c_str(), model.description().c_str());
    std::printf("| step | time |\n|---|---|\n");
    std::printf("| load project (KB + corpora) | %.1f s |\n", loadMs / 1000.0);
    for (const auto& [name, ms] : stages) std::printf("| build: %s | %.1f s |\n", name.c_str(), ms / 1000.0);
    std::printf("| build, total | %.1f s (peak RSS %.0f MB) |\n\n", buildMs / 1000.0, peak);
    const double mentionBytes = static_cast<double>(model.mentionMemoryBytes());
    std::printf("mentions held in %.1f MB (%.0f bytes a mention; vectors in %s precision)\n\n", mentionBytes / 1e6,
                mentionBytes / static_cast<double>(std::max<std::size_t>(mentions, 1)),
                model.halfPrecisionVectors() ? "half" : "float");
    std::printf("%zu decisions on the test split (%zu corrections), %zu undone; %zu proposals changed in all\n\n",
                walk.size(), corrections, unfeedMs.size(), topChanged);
    std::printf("| per decision | median | p95 | max |\n|---|---|---|---|\n");
    std::printf("| rank one mention (k = 20) | %.2f ms | %.2f ms | %.2f ms |\n", rank.median, rank.p95, rank.max);
    std::printf("| feed (key added, reached mentions found) | %.2f ms | %.2f ms | %.2f ms |\n", feed.median, feed.p95,
                feed.max);
    std::printf("| mentions reached | %.0f | %.0f | %.0f |\n", reach.median, reach.p95, reach.max);
    std::printf("| re-rank %zu of them (one event-loop turn) | %.2f ms | %.2f ms | %.2f ms |\n", kBatch, batch.median,
                batch.p95, batch.max);
    std::printf("| re-rank all reached (decision or undo) | %.2f ms | %.2f ms | %.2f ms |\n", all.median, all.p95,
                all.max);
    std::printf("| unfeed (undo: keys removed, mentions found) | %.2f ms | %.2f ms | %.2f ms |\n", unfeed.median,
                unfeed.p95, unfeed.max);
    const Summary pass = summarize(reachPassMs);
    std::printf("| reach pass alone (reachOf, before each feed) | %.2f ms | %.2f ms | %.2f ms |\n", pass.median,
                pass.p95, pass.max);
    report.parameters() = {{"manifest", argv[1]},
                           {"run", options.run.string()},
                           {"decisions", decisionCount},
                           {"float_budget", options.floatVectorBudget},
                           {"ranker", model.description()}};
    auto& figures = report.figures();
    figures["project"] = project->manifest.name;
    figures["mentions"] = mentions;
    figures["load_project_s"] = loadMs / 1000.0;
    auto& stageRows = figures["build_stages"] = nlohmann::ordered_json::array();
    for (const auto& [name, ms] : stages) stageRows.push_back({{"stage", name}, {"seconds", ms / 1000.0}});
    figures["build_s"] = buildMs / 1000.0;
    figures["build_peak_rss_mb"] = peak;
    figures["mention_memory_mb"] = mentionBytes / 1e6;
    figures["half_precision_vectors"] = model.halfPrecisionVectors();
    figures["decisions_made"] = walk.size();
    figures["corrections"] = corrections;
    figures["undone"] = unfeedMs.size();
    figures["proposals_changed"] = topChanged;
    const auto summaryRow = [](const char* what, const Summary& s) {
        return nlohmann::ordered_json{{"per_decision", what}, {"median", s.median}, {"p95", s.p95}, {"max", s.max}};
    };
    figures["per_decision"] = {summaryRow("rank one mention (k = 20), ms", rank),
                               summaryRow("feed, ms", feed),
                               summaryRow("mentions reached", reach),
                               summaryRow("re-rank one event-loop turn's batch, ms", batch),
                               summaryRow("re-rank all reached, ms", all),
                               summaryRow("unfeed (undo), ms", unfeed),
                               summaryRow("reach pass alone, ms", pass)};
    // The slowest feeds, with what each reached and its own reach pass.
    std::vector<std::size_t> order(feedMs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return feedMs[a] > feedMs[b]; });
    std::printf("\nslowest feeds:");
    for (std::size_t i = 0; i < std::min<std::size_t>(5, order.size()); ++i)
        std::printf("%s decision %zu %.2f ms (reached %.0f, its reach pass %.2f ms)", i == 0 ? "" : ";", order[i] + 1,
                    feedMs[order[i]], reranked[order[i]], reachPassMs[order[i]]);
    std::printf("\n");
    return 0;
}
