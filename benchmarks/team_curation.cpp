// A team curating one corpus on one PostgreSQL server: N simulated curators, each a
// `linkscope-cli simulate-curation --curator` process with a login of its own, decide at a set
// rate (one decision a second by default) through claims on NCBI Disease's dev split, ranked by
// the sparse ranker over MEDIC. The benchmark starts the server itself (initdb into a temporary
// folder, Unix socket only, commits durable: fsync on), as the tests do
// (tests/common/postgres_server.h), and one project per run.
//
// Measured per run:
//  - sustained decisions per second: the decisions committed while every curator was deciding
//    (from the last curator's first decision to the first curator's last), over that time;
//  - commit latency: how long each record() took in the curator (p50, p99);
//  - commit to visible: this benchmark LISTENs as another client and reads every decision when
//    the server announces it; the time from the decision's timestamp (taken by the curator as it
//    records) to that read (p50, p99). The curators measure the same for each other, and the
//    highest of their p99s is reported too;
//  - commit to re-ranked: for each decision a curator received from another, from the moment the
//    committing curator's record() returned to the moment the receiving curator's linker and
//    queue had taken it (the queue ranked again), pooled over every pair of curators (p50, p99).
//    The commit is reported when record() returns, a little after the server committed, so this
//    is the lower bound; each curator's own figure from the decision's timestamp (taken before
//    the commit) is the upper bound, and the highest of their p99s is reported too;
//  - conflicts and reconnects the curators counted.
//
//   team_curation [--curators 8,32] [--rate 1] [--seconds 20] [--cli PATH] [--data DIR] [--json]
//
// Each curator stops after rate x seconds decisions; 32 x 20 stays below the split's mentions, so
// that no curator runs out of work inside the window.
#include <QCoreApplication>
#include <QProcess>

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_report.h"
#include "postgres_server.h"
#include "project/project_store.h"
#include "team_setup.h"

namespace fs = std::filesystem;
using namespace linkscope;
using SystemTime = std::chrono::system_clock::time_point;

namespace {

struct Options {
    std::vector<int> curators{8, 32};
    double rate = 1.0;
    double seconds = 20.0;
    fs::path cli = LINKSCOPE_CLI_PATH;
    fs::path data;
};

fs::path defaultData() {
    if (const char* given = std::getenv("LINKSCOPE_DATA_DIR")) return given;
    return LINKSCOPE_DEFAULT_DATA_DIR;
}

Options parse(int argc, char** argv) {
    Options options;
    options.data = defaultData();
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--curators") {
            options.curators.clear();
            std::stringstream list(value());
            for (std::string item; std::getline(list, item, ',');) options.curators.push_back(std::stoi(item));
        } else if (arg == "--rate") {
            options.rate = std::stod(value());
        } else if (arg == "--seconds") {
            options.seconds = std::stod(value());
        } else if (arg == "--cli") {
            options.cli = value();
        } else if (arg == "--data") {
            options.data = value();
        } else {
            throw std::runtime_error("unknown option " + arg +
                                     " (--curators N,M --rate D --seconds S --cli PATH --data DIR --json)");
        }
    }
    if (options.curators.empty() || options.rate <= 0.0 || options.seconds <= 0.0)
        throw std::runtime_error("give --curators, --rate and --seconds above 0");
    return options;
}

double quantile(std::vector<double> values, double q) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

double secondsBetween(SystemTime a, SystemTime b) { return std::chrono::duration<double>(b - a).count(); }

// One decision as the observing client read it.
struct Seen {
    std::string login;
    SystemTime decided;
    double visibleMs = 0.0;
};

nlohmann::ordered_json runTeam(test::PostgresServer& server, const Options& options, const std::string& manifest,
                               int curators) {
    const std::string owner = server.newDatabase();
    if (owner.empty()) throw std::runtime_error(server.why().toStdString());
    const std::string database = test::PostgresServer::databaseOf(owner);
    bench::createTeamProject(options.cli, manifest, owner);
    auto observer = project::ProjectStore::open(owner);
    for (int c = 0; c < curators; ++c) observer.grant("curator" + std::to_string(c), project::TeamRole::Curator);
    observer.listenForChanges();
    std::int64_t revision = observer.changesSince(0).revision;

    const int limit = std::max(1, static_cast<int>(std::lround(options.rate * options.seconds)));
    std::vector<std::unique_ptr<QProcess>> processes;
    for (int c = 0; c < curators; ++c) {
        const std::string login = "curator" + std::to_string(c);
        auto process =
            bench::startCurator(options.cli, options.data, server.uriOf(database, login), login, options.rate, limit);
        processes.push_back(std::move(process));
    }

    std::vector<Seen> seen;
    const auto readChanges = [&] {
        if (!observer.takeChangeNotifications()) return;
        const project::LiveChanges changes = observer.changesSince(revision);
        const SystemTime now = std::chrono::system_clock::now();
        for (const project::Decision& d : changes.decisions) {
            if (d.state != project::DecisionState::Done) continue;
            if (const auto stamp = project::parseUtcTimestamp(d.timestamp))
                seen.push_back({d.login, *stamp, std::chrono::duration<double, std::milli>(now - *stamp).count()});
        }
        revision = std::max(revision, changes.revision);
    };
    const auto running = [&] {
        return std::any_of(processes.begin(), processes.end(),
                           [](const auto& p) { return p->state() != QProcess::NotRunning && !p->waitForFinished(0); });
    };
    while (running()) {
        pollfd socket{observer.changeSocket(), POLLIN, 0};
        ::poll(&socket, 1, 20);
        readChanges();
    }
    readChanges();

    // The curators' own reports.
    std::vector<double> commits;
    std::size_t conflicts = 0, reconnects = 0, decided = 0, failed = 0;
    double worstCuratorVisibleP99 = 0.0, worstCuratorRerankedP99 = 0.0;
    std::vector<nlohmann::json> reports;
    for (auto& process : processes) {
        const QByteArray out = process->readAllStandardOutput();
        if (process->exitStatus() != QProcess::NormalExit || process->exitCode() != 0) {
            ++failed;
            continue;
        }
        const nlohmann::json report = nlohmann::json::parse(out.constData());
        decided += report["decided"].get<std::size_t>();
        conflicts += report["conflicts"].get<std::size_t>();
        reconnects += report["reconnects"].get<std::size_t>();
        worstCuratorVisibleP99 = std::max(worstCuratorVisibleP99, report["visible_ms"]["p99"].get<double>());
        worstCuratorRerankedP99 = std::max(worstCuratorRerankedP99, report["reranked_ms"]["p99"].get<double>());
        for (const auto& d : report["decisions"]) commits.push_back(d["commit_ms"].get<double>());
        reports.push_back(report);
    }
    // Commit to re-ranked: each received decision beside its curator's commit.
    const auto decisionKey = [](const std::string& login, const nlohmann::json& d) {
        return login + '\t' + d["split"].get<std::string>() + '\t' + d["document"].get<std::string>() + '\t' +
               std::to_string(d["start"].get<std::size_t>()) + '\t' + std::to_string(d["end"].get<std::size_t>());
    };
    std::map<std::string, double> committedAt;
    for (const nlohmann::json& report : reports)
        for (const auto& d : report["decisions"])
            committedAt[decisionKey(report["login"].get<std::string>(), d)] = d["committed_at_ms"].get<double>();
    std::vector<double> reranked;
    for (const nlohmann::json& report : reports)
        for (const auto& r : report["received"])
            if (const auto it = committedAt.find(decisionKey(r["login"].get<std::string>(), r));
                it != committedAt.end())
                reranked.push_back(r["reranked_at_ms"].get<double>() - it->second);

    // The window in which every curator was deciding.
    std::map<std::string, std::pair<SystemTime, SystemTime>> span;
    for (const Seen& s : seen) {
        auto [it, inserted] = span.try_emplace(s.login, s.decided, s.decided);
        it->second.first = std::min(it->second.first, s.decided);
        it->second.second = std::max(it->second.second, s.decided);
    }
    SystemTime from = SystemTime::min(), to = SystemTime::max();
    for (const auto& [login, times] : span) {
        from = std::max(from, times.first);
        to = std::min(to, times.second);
    }
    std::size_t inWindow = 0;
    for (const Seen& s : seen) inWindow += s.decided >= from && s.decided <= to ? 1 : 0;
    const double window = span.empty() || to <= from ? 0.0 : secondsBetween(from, to);
    std::vector<double> visible;
    for (const Seen& s : seen) visible.push_back(s.visibleMs);

    std::cerr << curators << " curators: " << seen.size() << " decisions, sustained "
              << (window > 0 ? static_cast<double>(inWindow) / window : 0.0) << "/s over " << window
              << " s, visible p50 " << quantile(visible, 0.5) << " ms p99 " << quantile(visible, 0.99)
              << " ms, re-ranked p50 " << quantile(reranked, 0.5) << " ms p99 " << quantile(reranked, 0.99) << " ms\n";
    return {{"curators", curators},
            {"rate_per_curator", options.rate},
            {"decisions", seen.size()},
            {"reported_decided", decided},
            {"failed_curators", failed},
            {"all_deciding_s", window},
            {"sustained_per_s", window > 0 ? static_cast<double>(inWindow) / window : 0.0},
            {"commit_p50_ms", quantile(commits, 0.5)},
            {"commit_p99_ms", quantile(commits, 0.99)},
            {"visible_p50_ms", quantile(visible, 0.5)},
            {"visible_p99_ms", quantile(visible, 0.99)},
            {"curators_worst_visible_p99_ms", worstCuratorVisibleP99},
            {"reranked_count", reranked.size()},
            {"reranked_p50_ms", quantile(reranked, 0.5)},
            {"reranked_p99_ms", quantile(reranked, 0.99)},
            {"curators_worst_reranked_p99_ms", worstCuratorRerankedP99},
            {"conflicts", conflicts},
            {"reconnects", reconnects}};
}

}  // namespace

int main(int argc, char** argv) {
    bench::JsonReport report("team_curation", argc, argv);
    QCoreApplication app(argc, argv);
    try {
        const Options options = parse(argc, argv);
        if (const std::string missing = bench::missingTeamData(options.data); !missing.empty())
            throw std::runtime_error("missing " + missing + " (--data DIR)");
        test::PostgresServer server;
        if (!server.start(test::PostgresServer::Durability::Full))
            throw std::runtime_error(
                (server.skipReason().isEmpty() ? server.why() : server.skipReason()).toStdString());
        const int most = *std::max_element(options.curators.begin(), options.curators.end());
        QString roles;
        for (int c = 0; c < most; ++c) roles += QStringLiteral("CREATE ROLE curator%1 LOGIN; ").arg(c);
        if (!server.sql("postgres", roles)) throw std::runtime_error(server.why().toStdString());
        const std::string manifest =
            bench::writeTeamManifest(options.data, server.socketFolder().toStdString(), "team_curation");

        auto& parameters = report.parameters();
        parameters["corpus"] = "NCBI Disease dev, sparse ranker over MEDIC";
        parameters["server"] = "PostgreSQL on a Unix socket, fsync on, started by the benchmark";
        parameters["rate_per_curator"] = options.rate;
        parameters["seconds_per_curator"] = options.seconds;
        auto& runs = report.figures()["runs"];
        runs = nlohmann::ordered_json::array();
        for (const int curators : options.curators) runs.push_back(runTeam(server, options, manifest, curators));
        if (!report.enabled()) std::cout << runs.dump(2) << '\n';
    } catch (const std::exception& e) {
        std::cerr << "team_curation: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
