// The GUI thread's longest event-loop stall during the two heaviest jobs (the budget: the GUI
// thread never blocks for more than 100 ms): (a) the main window opening a project, with the
// knowledge base indexed for search and the candidate ranker built, (b) a short training run
// through the training dock's worker (compact encoder, tiny schedule), and with --run (c) linking
// every mention with a trained run, then 100 decisions fed to its kNN datastore.
//
// A QTimer fires every 5 ms on the GUI thread; the gap between two ticks beyond 5 ms is time the
// event loop could not serve the user. Prints a markdown table: phase, duration, longest gap,
// 99th-percentile gap, with the machine and the date; per phase, when each stall over 100 ms
// ended and what filled it (the events delivered in it and their time, the GUI thread's CPU time,
// its wait on a run queue, preemptions and page faults, the whole process's CPU time, and how
// late a real-time probe thread woke in it (cpu_pause_probe.h): a stall in which that probe woke
// late by as much is one in which no CPU of the machine ran the process), and every event delivery over 50 ms on the GUI thread with its
// receiver, the thread's CPU time and its page faults meanwhile (TimedApplication), to tell the
// GUI's own work from waiting. On standard error, "stall sample" lines: the GUI thread sampled
// during each stall over 100 ms (thread_sampler.h: its system call, kernel wait and stack).
//
//   QT_QPA_PLATFORM=offscreen ui_stall [--demo | --manifest FILE] [--preset NAME] [--run RUN_DIR] [--no-training]
//                                      [--team-curators N [--team-seconds S]] [--json]
// Data: NCBI Disease (train, dev, test) with MEDIC from ../shared/data (or $LINKSCOPE_DATA_DIR)
// when present, else (or with --demo) the demo project; --manifest opens any project manifest
// (the UMLS + MedMentions-size one of benchmarks/generate_umls_medmentions.py). With --json, the
// table's rows, each stall over 100 ms and each long event delivery as one JSON object on standard
// output (json_report.h). Not a test: it asserts nothing.
//
// With --team-curators N (off by default) it measures instead the window on a team project while
// others write: it starts a PostgreSQL server of its own and a team project on NCBI Disease (train,
// dev) with MEDIC (team_setup.h, as team_curation does), opens it in the window as a curator's
// login (the worker connect, then the live updates), links --run when given, starts N simulated
// curators (separate `linkscope-cli simulate-curation` processes) at one decision a second each,
// and measures the stalls over --team-seconds (30 by default) from the first decision the window
// received, counting the decisions it took in and the mentions ranked again.
#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEvent>
#include <QPointer>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <QUndoStack>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "cpu_pause_probe.h"
#include "curation/augmented_linker.h"
#include "curation_session.h"
#include "json_report.h"
#include "knowledge_base_dock.h"
#include "main_window.h"
#include "postgres_server.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "team_setup.h"
#include "thread_sampler.h"
#include "training_panel.h"
#include "training_worker.h"
#include "util/huge_pages.h"

namespace {

namespace fs = std::filesystem;
using namespace linkscope;
using namespace linkscope::ui;

constexpr int kTickMs = 5;

// An event delivered on the GUI thread that took long, with what the thread did meanwhile.
struct LongEvent {
    double at = 0;         ///< seconds into the phase when it ended
    double wallMs = 0;     ///< the delivery's wall time
    double cpuMs = 0;      ///< the GUI thread's CPU time during it
    long pageFaults = 0;   ///< the GUI thread's page faults (minor and major) during it
    std::string receiver;  ///< the receiver's class (and object name)
    int type = 0;          ///< QEvent::Type (43: a queued signal, 1: a timer)
};

// The application, timing every event delivered on the GUI thread (the outermost delivery of
// each, so a nested one is counted once): those over kLongEventMs are kept. A stall with such a
// delivery is the GUI's own work, and the receiver says whose; a long delivery with little CPU
// time, or a stall with no long delivery, is time the thread waited (preempted by the workers, or
// blocked in the kernel, e.g. on page faults).
class TimedApplication : public QApplication {
public:
    static constexpr double kLongEventMs = 50.0;

    TimedApplication(int& argc, char** argv) : QApplication(argc, argv) {
        clock_.start();
        // This thread's scheduler statistics (opened here, on the GUI thread: the link names the
        // thread that opens it). -1 where the kernel has no schedstats; the waits then read 0.
        schedstat_ = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    }
    ~TimedApplication() override {
        if (schedstat_ >= 0) ::close(schedstat_);
    }

    bool notify(QObject* receiver, QEvent* event) override {
        if (QThread::currentThread() != thread() || depth_ > 0) return QApplication::notify(receiver, event);
        const qint64 start = clock_.nsecsElapsed();
        const double cpuStart = threadCpuMs();
        const long faultsStart = threadPageFaults();
        const int type = static_cast<int>(event->type());
        // Named only when the delivery was long (no string per event on the thread measured);
        // the class is static data, the object may be gone by then (a deferred delete).
        const QMetaObject* meta = receiver->metaObject();
        const QPointer<QObject> alive(receiver);
        ++depth_;
        bool handled = false;
        try {
            handled = QApplication::notify(receiver, event);
        } catch (...) {
            --depth_;
            throw;
        }
        --depth_;
        const qint64 end = clock_.nsecsElapsed();
        deliveredNs_ += end - start;
        ++deliveries_;
        const double wallMs = double(end - start) / 1e6;
        if (wallMs > kLongEventMs) {
            std::string name = meta->className();
            if (alive && !alive->objectName().isEmpty()) name += " \"" + alive->objectName().toStdString() + "\"";
            long_.push_back({double(end) / 1e9, wallMs, threadCpuMs() - cpuStart, threadPageFaults() - faultsStart,
                             std::move(name), type});
        }
        return handled;
    }
    qint64 nowNs() const { return clock_.nsecsElapsed(); }

    /// What the GUI thread had done up to now (called on it): the wall time of the outermost
    /// event deliveries so far and their number, its CPU time, page faults and involuntary
    /// context switches (preemptions). Differences between two ticks of the stall timer say
    /// what filled a stall between them.
    struct Usage {
        qint64 deliveredNs = 0;
        std::size_t deliveries = 0;
        double cpuMs = 0;
        long pageFaults = 0;
        long preemptions = 0;
        double runQueueMs = 0;    ///< time the thread waited on a run queue, runnable but not running
        double processCpuMs = 0;  ///< CPU time of every thread of the process (the workers too)
    };
    Usage usage() const {
        rusage thread{};
        getrusage(RUSAGE_THREAD, &thread);
        timespec process{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &process);
        return {deliveredNs_,
                deliveries_,
                threadCpuMs(),
                thread.ru_minflt + thread.ru_majflt,
                thread.ru_nivcsw,
                runQueueMs(),
                double(process.tv_sec) * 1e3 + double(process.tv_nsec) / 1e6};
    }
    /// The long deliveries since the last call, their times in seconds after `sinceNs`.
    std::vector<LongEvent> takeLongEvents(qint64 sinceNs) {
        std::vector<LongEvent> taken;
        for (LongEvent& event : long_)
            if (event.at * 1e9 >= double(sinceNs)) {
                event.at -= double(sinceNs) / 1e9;
                taken.push_back(std::move(event));
            }
        long_.clear();
        return taken;
    }

private:
    // The second field of schedstat: nanoseconds spent runnable on a run queue, not running.
    double runQueueMs() const {
        if (schedstat_ < 0) return 0;
        char text[128];
        const ssize_t read = ::pread(schedstat_, text, sizeof text - 1, 0);
        if (read <= 0) return 0;
        text[read] = '\0';
        unsigned long long onCpu = 0, waiting = 0;
        if (std::sscanf(text, "%llu %llu", &onCpu, &waiting) != 2) return 0;
        return double(waiting) / 1e6;
    }
    static double threadCpuMs() {
        timespec now{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
    }
    static long threadPageFaults() {
        rusage usage{};
        getrusage(RUSAGE_THREAD, &usage);
        return usage.ru_minflt + usage.ru_majflt;
    }

    QElapsedTimer clock_;
    int depth_ = 0;
    qint64 deliveredNs_ = 0;
    std::size_t deliveries_ = 0;
    std::vector<LongEvent> long_;
    int schedstat_ = -1;
};

// A gap between two ticks over the target, with what the GUI thread did in it.
struct Stall {
    double at = 0;           ///< seconds into the phase when it ended
    double ms = 0;           ///< the gap
    double eventsMs = 0;     ///< wall time of the events delivered in it (the tick's own not counted)
    std::size_t events = 0;  ///< their number
    double cpuMs = 0;        ///< the GUI thread's CPU time in it
    long pageFaults = 0;
    long preemptions = 0;     ///< involuntary context switches of the GUI thread
    double runQueueMs = 0;    ///< the GUI thread's wait for a core in it
    double processCpuMs = 0;  ///< CPU time of the whole process in it (0 with the workers busy: nothing ran)
    double probeLateMs = 0;   ///< the latest wake-up of the real-time probe in it (cpu_pause_probe.h)
    std::vector<bench::ThreadSampler::Sample> samples;  ///< the GUI thread, sampled in the stall
};

// Gaps between the ticks of a 5 ms timer on the GUI thread, from start() to stop().
class StallMeter {
public:
    StallMeter(TimedApplication& app, bench::ThreadSampler& sampler, bench::CpuPauseProbe& probe)
        : app_(&app), sampler_(&sampler), probe_(&probe) {
        timer_.setInterval(kTickMs);
        timer_.setTimerType(Qt::PreciseTimer);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            sampler_->beat();
            const std::int64_t nowSteady = bench::ThreadSampler::nowNs();
            const qint64 now = clock_.nsecsElapsed();
            const TimedApplication::Usage usage = app_->usage();
            const double probeLateMs = probe_->takeLongestLateMs();
            const double gapMs = double(now - last_) / 1e6;
            gapsMs_.push_back(gapMs);
            // When each stall over the target ended, to line it up with what the window did then,
            // and whether the GUI thread worked in it (events, CPU) or waited (preempted, faults).
            if (gapMs > kTargetMs)
                stalls_.push_back({double(now) / 1e9, gapMs, double(usage.deliveredNs - lastUsage_.deliveredNs) / 1e6,
                                   usage.deliveries - lastUsage_.deliveries, usage.cpuMs - lastUsage_.cpuMs,
                                   usage.pageFaults - lastUsage_.pageFaults, usage.preemptions - lastUsage_.preemptions,
                                   usage.runQueueMs - lastUsage_.runQueueMs,
                                   usage.processCpuMs - lastUsage_.processCpuMs, probeLateMs,
                                   sampler_->take(lastSteady_, nowSteady)});
            last_ = now;
            lastSteady_ = nowSteady;
            lastUsage_ = usage;
        });
    }
    void start() {
        gapsMs_.clear();
        stalls_.clear();
        startNs_ = app_->nowNs();
        (void)app_->takeLongEvents(startNs_);
        clock_.start();
        last_ = 0;
        lastUsage_ = app_->usage();
        lastSteady_ = bench::ThreadSampler::nowNs();
        sampler_->setActive(true);
        timer_.start();
    }
    struct Result {
        double seconds = 0;
        double longestMs = 0;
        double p99Ms = 0;
        std::size_t ticks = 0;
        std::vector<Stall> stalls;          ///< gaps over kTargetMs
        std::vector<LongEvent> longEvents;  ///< deliveries over TimedApplication::kLongEventMs
    };
    static constexpr double kTargetMs = 100.0;
    Result stop() {
        timer_.stop();
        sampler_->setActive(false);
        Result result;
        result.seconds = double(clock_.nsecsElapsed()) / 1e9;
        result.ticks = gapsMs_.size();
        result.stalls = stalls_;
        result.longEvents = app_->takeLongEvents(startNs_);
        if (gapsMs_.empty()) return result;
        std::vector<double> sorted = gapsMs_;
        std::sort(sorted.begin(), sorted.end());
        result.longestMs = sorted.back();
        const auto index = static_cast<std::size_t>(std::ceil(0.99 * double(sorted.size()))) - 1;
        result.p99Ms = sorted[std::min(index, sorted.size() - 1)];
        return result;
    }

private:
    TimedApplication* app_;
    bench::ThreadSampler* sampler_;
    bench::CpuPauseProbe* probe_;
    std::int64_t lastSteady_ = 0;
    qint64 startNs_ = 0;
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = 0;
    TimedApplication::Usage lastUsage_;
    std::vector<double> gapsMs_;
    std::vector<Stall> stalls_;
};

// Runs the event loop until `done` or the timeout; false on timeout.
bool waitFor(const std::function<bool()>& done, int timeoutSeconds) {
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > qint64(timeoutSeconds) * 1000) return false;
        // Sleeps until an event comes (the meter's ticks come every 5 ms): no busy loop taking
        // a core from the workers being measured.
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

// Lets freshly shown widgets paint before a phase, so their first paint is not counted in it.
void settle() {
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 300) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
}

fs::path dataDirectory() {
    if (const char* env = std::getenv("LINKSCOPE_DATA_DIR"); env && *env) return env;
    return LINKSCOPE_DEFAULT_DATA_DIR;
}

void writeText(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + file.string());
}

std::string readText(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A manifest over the shared files in place (nothing is copied), or empty when they are absent.
fs::path sharedManifest(const fs::path& folder) {
    const fs::path data = dataDirectory();
    const fs::path kb = data / "medic" / "medic_06Jul2012.txt";
    const fs::path train = data / "ncbi-disease" / "NCBItrainset_corpus.txt";
    const fs::path dev = data / "ncbi-disease" / "NCBIdevelopset_corpus.txt";
    const fs::path test = data / "ncbi-disease" / "NCBItestset_corpus.txt";
    for (const auto& file : {kb, train, dev, test})
        if (!fs::exists(file)) return {};
    const nlohmann::json manifest = {
        {"format", "linkscope-project-manifest"},
        {"version", 1},
        {"name", "NCBI Disease + MEDIC (ui_stall)"},
        {"knowledgeBase", {{"path", kb.string()}, {"format", "medic"}}},
        {"corpora",
         {{{"split", "train"}, {"path", train.string()}, {"format", "pubtator"}},
          {{"split", "dev"}, {"path", dev.string()}, {"format", "pubtator"}},
          {{"split", "test"}, {"path", test.string()}, {"format", "pubtator"}}}},
    };
    const fs::path file = folder / "ncbi-medic.json";
    writeText(file, manifest.dump(2));
    return file;
}

// Appends the phase, its stalls and its long event deliveries to the report's figures.
void addToReport(nlohmann::ordered_json& figures, const char* phase, const StallMeter::Result& r,
                 const std::string& note) {
    figures["phases"].push_back({{"phase", phase},
                                 {"seconds", r.seconds},
                                 {"longest_stall_ms", r.longestMs},
                                 {"p99_gap_ms", r.p99Ms},
                                 {"ticks", r.ticks},
                                 {"stalls_over_100_ms", r.stalls.size()},
                                 {"note", note}});
    for (const Stall& stall : r.stalls)
        figures["stalls"].push_back({{"phase", phase},
                                     {"ms", stall.ms},
                                     {"at_s", stall.at},
                                     {"events", stall.events},
                                     {"events_ms", stall.eventsMs},
                                     {"cpu_ms", stall.cpuMs},
                                     {"run_queue_ms", stall.runQueueMs},
                                     {"preemptions", stall.preemptions},
                                     {"page_faults", stall.pageFaults},
                                     {"process_cpu_ms", stall.processCpuMs},
                                     {"probe_late_ms", stall.probeLateMs}});
    for (const LongEvent& e : r.longEvents)
        figures["long_events"].push_back({{"phase", phase},
                                          {"wall_ms", e.wallMs},
                                          {"cpu_ms", e.cpuMs},
                                          {"page_faults", e.pageFaults},
                                          {"event", e.type},
                                          {"receiver", e.receiver},
                                          {"at_s", e.at}});
}

void printRow(const char* phase, const StallMeter::Result& r, const std::string& note,
              nlohmann::ordered_json& figures) {
    addToReport(figures, phase, r, note);
    std::string stalls;
    for (const Stall& stall : r.stalls) {
        char one[360];
        std::snprintf(
            one, sizeof one,
            "%s%.0f ms at %.1f s (%zu events %.0f ms, CPU %.0f ms, run-queue wait %.0f ms, %ld preemptions, %ld page "
            "faults; process CPU %.0f ms; probe woke up to %.0f ms late)",
            stalls.empty() ? "" : ", ", stall.ms, stall.at, stall.events, stall.eventsMs, stall.cpuMs, stall.runQueueMs,
            stall.preemptions, stall.pageFaults, stall.processCpuMs, stall.probeLateMs);
        stalls += one;
    }
    if (!stalls.empty()) stalls = "; stalls over 100 ms: " + stalls;
    std::string events;
    for (const LongEvent& e : r.longEvents) {
        char one[400];
        std::snprintf(one, sizeof one, "%s%.0f ms (CPU %.0f ms, %ld page faults) event %d to %s at %.1f s",
                      events.empty() ? "" : ", ", e.wallMs, e.cpuMs, e.pageFaults, e.type, e.receiver.c_str(), e.at);
        events += one;
    }
    if (!events.empty()) stalls += "; event deliveries over 50 ms: " + events;
    // The GUI thread's samples in each stall, on standard error (stack frames innermost first).
    for (const Stall& stall : r.stalls) {
        for (const auto& sample : stall.samples) {
            std::fprintf(stderr, "stall sample | %s | stall of %.0f ms ending at %.1f s | syscall %s | wchan %s |",
                         phase, stall.ms, stall.at, sample.syscall.c_str(), sample.wchan.c_str());
            for (std::size_t i = 0; i < sample.frames.size() && i < 24; ++i)
                std::fprintf(stderr, " %s <", sample.frames[i].c_str());
            std::fprintf(stderr, "\n");
        }
    }
    std::printf("| %s | %.1f s | %.1f ms | %.1f ms | %zu | %s%s |\n", phase, r.seconds, r.longestMs, r.p99Ms, r.ticks,
                note.c_str(), stalls.c_str());
    std::fflush(stdout);  // a row as soon as its phase ends, even when redirected to a file
}

}  // namespace

namespace {

// The candidates of the first 20 mentions of the test split (or of the first split), each asked
// for as the Candidates dock asks on the GUI thread.
struct CandidateTimes {
    std::size_t mentions = 0, withRows = 0;
    double median = 0.0, max = 0.0;
};
CandidateTimes timeCandidates(const MainWindow& window) {
    CandidateTimes times;
    if (!window.project()) return times;
    std::vector<double> ms;
    const SplitCorpus* pick = nullptr;
    for (const SplitCorpus& split : window.project()->splits)
        if (!pick || split.split == "test") pick = &split;
    for (const Document& document : pick ? pick->corpus.documents() : std::span<const Document>())
        for (const Mention& mention : document.mentions) {
            if (ms.size() == 20) break;
            QElapsedTimer clock;
            clock.start();
            const auto rows = window.session()->rankers()->rankCandidates(
                {pick->split, document.pmid(), mention.start, mention.end}, mention);
            ms.push_back(double(clock.nsecsElapsed()) / 1e6);
            times.withRows += rows.empty() ? 0 : 1;
        }
    std::sort(ms.begin(), ms.end());
    times.mentions = ms.size();
    if (!ms.empty()) {
        times.median = ms[ms.size() / 2];
        times.max = ms.back();
    }
    return times;
}

}  // namespace

namespace {

struct TeamOptions {
    int curators = 0;  ///< simulated curators; 0: no team mode
    double seconds = 30.0;
    double rate = 1.0;  ///< decisions a second per curator
    std::string run;    ///< a trained run to link with, or empty (the sparse ranker)
};

// The window on a team project while N simulated curators write (see the header comment).
int runTeamStalls(TimedApplication& app, bench::ThreadSampler& sampler, bench::JsonReport& report,
                  const TeamOptions& options, const fs::path& folder) {
    const fs::path data = dataDirectory();
    const fs::path cli = LINKSCOPE_CLI_PATH;
    if (const std::string missing = bench::missingTeamData(data); !missing.empty()) {
        std::fprintf(stderr, "ui_stall: missing %s (LINKSCOPE_DATA_DIR)\n", missing.c_str());
        return 1;
    }
    test::PostgresServer server;
    if (!server.start(test::PostgresServer::Durability::Full)) {
        std::fprintf(stderr, "ui_stall: no server: %s\n",
                     qPrintable(server.skipReason().isEmpty() ? server.why() : server.skipReason()));
        return 1;
    }
    const std::string gui = "gui_curator";
    QString roles = QStringLiteral("CREATE ROLE %1 LOGIN; ").arg(QString::fromStdString(gui));
    for (int c = 0; c < options.curators; ++c) roles += QStringLiteral("CREATE ROLE curator%1 LOGIN; ").arg(c);
    if (!server.sql("postgres", roles)) {
        std::fprintf(stderr, "ui_stall: %s\n", qPrintable(server.why()));
        return 1;
    }
    const std::string owner = server.newDatabase();
    if (owner.empty()) {
        std::fprintf(stderr, "ui_stall: %s\n", qPrintable(server.why()));
        return 1;
    }
    const std::string database = test::PostgresServer::databaseOf(owner);
    try {
        bench::createTeamProject(cli, bench::writeTeamManifest(data, folder, "ui_stall_team"), owner);
        auto store = project::ProjectStore::open(owner);
        store.grant(gui, project::TeamRole::Curator);
        for (int c = 0; c < options.curators; ++c)
            store.grant("curator" + std::to_string(c), project::TeamRole::Curator);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ui_stall: %s\n", e.what());
        return 1;
    }

    bench::CpuPauseProbe probe;
    std::printf("# UI event-loop stalls on a team project (timer every %d ms on the GUI thread)\n\n", kTickMs);
    std::printf("Machine: %s, %d hardware threads, Qt %s, platform %s. Date: %s.\n",
                qPrintable(QSysInfo::prettyProductName()), QThread::idealThreadCount(), qVersion(),
                qPrintable(QGuiApplication::platformName()),
                qPrintable(QDateTime::currentDateTime().toString(Qt::ISODate)));
    std::printf(
        "Data: NCBI Disease (train/dev) + MEDIC on a PostgreSQL server of the benchmark's (Unix socket, fsync on); "
        "%d simulated curators at %.0f decision(s) a second each, the window a curator too.\n\n",
        options.curators, options.rate);
    std::printf("| phase | duration | longest stall | p99 gap | ticks | note |\n|---|---|---|---|---|---|\n");
    std::fflush(stdout);
    report.parameters() = {{"data", "NCBI Disease (train/dev) + MEDIC, team project on PostgreSQL"},
                           {"team_curators", options.curators},
                           {"team_seconds", options.seconds},
                           {"rate_per_curator", options.rate},
                           {"run", options.run},
                           {"tick_ms", kTickMs},
                           {"platform", QGuiApplication::platformName().toStdString()}};
    auto& figures = report.figures();
    figures["probe_realtime"] = probe.realtime();
    figures["phases"] = nlohmann::ordered_json::array();
    figures["stalls"] = nlohmann::ordered_json::array();
    figures["long_events"] = nlohmann::ordered_json::array();

    // Open the team project as a curator's login: connect on the worker, then live.
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    CurationSession* session = window.session();
    bool loaded = false, failed = false;
    QObject::connect(&window, &MainWindow::projectLoaded, [&] { loaded = true; });
    QObject::connect(&window, &MainWindow::projectFailed, [&](const QString& message) {
        failed = true;
        std::fprintf(stderr, "project failed: %s\n", qPrintable(message));
    });
    StallMeter meter(app, sampler, probe);
    settle();
    meter.start();
    window.openProject(QString::fromStdString(server.uriOf(database, gui)));
    const auto live = [&] { return session->live()->state() == TeamLiveUpdates::State::Live; };
    const bool opened =
        waitFor([&] { return failed || (loaded && live() && session->rankers()->proposalsAvailable()); }, 1800);
    printRow("open team project + live + proposals", meter.stop(),
             failed ? "FAILED" : (opened ? "live as " + gui : std::string("timed out")), figures);
    if (!opened || failed) return 1;

    if (!options.run.empty()) {
        bool linked = false, stopped = false;
        QObject::connect(session->rankers(), &RankerHost::runLinked, [&] { linked = true; });
        QObject::connect(session->rankers(), &RankerHost::runLinkingCancelled, [&] { stopped = true; });
        settle();
        meter.start();
        session->rankers()->linkWithRun(QString::fromStdString(options.run), curation::LinkMode::Knn);
        waitFor([&] { return linked || stopped; }, 3600);
        printRow("link with a trained run (kNN)", meter.stop(),
                 linked ? session->rankers()->rankerDescription().toStdString() : std::string("FAILED"), figures);
        if (!linked) return 1;
    }

    // What the window took in from the others, and the mentions it ranked again meanwhile.
    std::size_t batches = 0, changedMentions = 0, reranked = 0, topChanged = 0;
    QObject::connect(session->live(), &TeamLiveUpdates::remoteDecisionsTaken, [&](int changed) {
        ++batches;
        changedMentions += static_cast<std::size_t>(changed);
    });
    QObject::connect(session->rankers(), &RankerHost::rankingsChanged,
                     [&](const std::vector<project::MentionKey>& mentions, int top) {
                         reranked += mentions.size();
                         topChanged += static_cast<std::size_t>(top);
                     });
    int lostConnection = 0;
    QObject::connect(session->live(), &TeamLiveUpdates::stateChanged, [&](TeamLiveUpdates::State state) {
        if (state == TeamLiveUpdates::State::Lost) ++lostConnection;
    });

    // The curators start (each loads MEDIC and ranks the dev split) until the first decision
    // reaches the window; each decides for longer than the window measured, and is stopped after.
    const int limit = static_cast<int>(std::lround(options.rate * (options.seconds + 600)));
    std::vector<std::unique_ptr<QProcess>> curators;
    settle();
    meter.start();
    for (int c = 0; c < options.curators; ++c) {
        const std::string login = "curator" + std::to_string(c);
        curators.push_back(bench::startCurator(cli, data, server.uriOf(database, login), login, options.rate, limit));
    }
    const bool arrived = waitFor([&] { return changedMentions > 0; }, 600);
    printRow("curators starting (until the first decision arrives)", meter.stop(),
             arrived ? std::to_string(options.curators) + " simulate-curation processes loading, then deciding"
                     : std::string("no decision arrived in 10 minutes"),
             figures);
    const auto stopCurators = [&] {
        for (auto& process : curators) {
            process->kill();
            process->waitForFinished(10000);
        }
    };
    if (!arrived) {
        stopCurators();
        return 1;
    }

    const std::size_t batchesBefore = batches, changedBefore = changedMentions, rerankedBefore = reranked,
                      topBefore = topChanged;
    meter.start();
    QElapsedTimer window_;
    window_.start();
    waitFor([&] { return double(window_.elapsed()) / 1000.0 >= options.seconds; }, int(options.seconds) + 60);
    const StallMeter::Result writing = meter.stop();
    int running = 0;
    for (const auto& process : curators) running += process->state() == QProcess::Running ? 1 : 0;
    const std::size_t received = changedMentions - changedBefore;
    char note[300];
    std::snprintf(note, sizeof note,
                  "%zu decided mentions taken in (%zu arrivals), %zu mentions ranked again (%zu top changed); "
                  "%d of %d curators running; connection lost %d times",
                  received, batches - batchesBefore, reranked - rerankedBefore, topChanged - topBefore, running,
                  options.curators, lostConnection);
    printRow("others writing (live decisions arrive, queue re-ranks)", writing, note, figures);
    figures["team"] = {{"curators", options.curators},
                       {"curators_running_at_end", running},
                       {"window_s", writing.seconds},
                       {"longest_stall_ms", writing.longestMs},
                       {"p99_gap_ms", writing.p99Ms},
                       {"stalls_over_100_ms", writing.stalls.size()},
                       {"decisions_received", received},
                       {"decisions_received_per_s", writing.seconds > 0 ? double(received) / writing.seconds : 0.0},
                       {"arrivals", batches - batchesBefore},
                       {"mentions_reranked", reranked - rerankedBefore},
                       {"top_changed", topChanged - topBefore},
                       {"connection_lost", lostConnection}};
    stopCurators();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    // As the application starts (app/gui/main.cpp): large blocks in 2 MiB pages where the
    // kernel gives them on request; LINKSCOPE_HUGE_PAGES=0 measures without.
    util::restartWithHugePages(argv);
    bench::JsonReport report("ui_stall", argc, argv);
    TimedApplication app(argc, argv);
    bench::ThreadSampler sampler;  // the GUI thread (this one) during stalls
    QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeBenchmarks"));
    bool demo = false, withTraining = true;
    std::string presetName = "triplet";
    std::string run;
    fs::path givenManifest;
    TeamOptions team;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument == "--demo")
            demo = true;
        else if (argument == "--preset" && i + 1 < argc)
            presetName = argv[++i];
        else if (argument == "--run" && i + 1 < argc)
            run = argv[++i];
        else if (argument == "--no-training")
            withTraining = false;
        else if (argument == "--manifest" && i + 1 < argc)
            givenManifest = fs::absolute(argv[++i]);
        else if (argument == "--team-curators" && i + 1 < argc)
            team.curators = std::atoi(argv[++i]);
        else if (argument == "--team-seconds" && i + 1 < argc)
            team.seconds = std::atof(argv[++i]);
        else {
            std::fprintf(stderr,
                         "usage: ui_stall [--demo | --manifest FILE] [--preset NAME] [--run RUN_DIR] [--no-training] "
                         "[--team-curators N [--team-seconds S]] [--json]\n");
            return 2;
        }
    }

    QTemporaryDir temp;
    if (!temp.isValid()) return 1;
    const fs::path folder = temp.path().toStdString();
    // Settings and the project file the window keeps for a manifest stay in the temporary folder.
    qputenv("XDG_CONFIG_HOME", temp.path().toUtf8());
    qputenv("XDG_DATA_HOME", temp.path().toUtf8());

    if (team.curators > 0) {
        team.run = run;
        return runTeamStalls(app, sampler, report, team, folder);
    }

    fs::path manifest = givenManifest;
    if (manifest.empty() && !demo) manifest = sharedManifest(folder);
    const bool shared = !manifest.empty() && givenManifest.empty();
    if (manifest.empty()) manifest = fs::path(LINKSCOPE_SOURCE_DIR) / "resources" / "demo" / "demo-project.json";

    bench::CpuPauseProbe probe;  // a real-time thread: its late wake-ups are time no CPU ran it
    std::printf("# UI event-loop stalls (timer every %d ms on the GUI thread)\n\n", kTickMs);
    std::printf("Machine: %s, %d hardware threads, Qt %s, platform %s. Date: %s.\n",
                qPrintable(QSysInfo::prettyProductName()), QThread::idealThreadCount(), qVersion(),
                qPrintable(QGuiApplication::platformName()),
                qPrintable(QDateTime::currentDateTime().toString(Qt::ISODate)));
    const std::string data = !givenManifest.empty() ? "the manifest " + givenManifest.string()
                             : shared ? std::string("NCBI Disease (train/dev/test) + MEDIC from the shared data")
                                      : std::string("the demo project");
    std::printf("Data: %s.\n", data.c_str());
    std::printf("CPU pause probe: %s.\n",
                probe.realtime() ? "real-time (SCHED_FIFO 1)" : "normal priority (SCHED_FIFO refused)");
    std::printf("Huge pages for malloc's blocks (util/huge_pages.h): %s.\n\n",
                util::hugePagesRequested() ? "asked for (GLIBC_TUNABLES glibc.malloc.hugetlb)" : "not asked for");
    std::printf("| phase | duration | longest stall | p99 gap | ticks | note |\n|---|---|---|---|---|---|\n");
    std::fflush(stdout);
    report.parameters() = {{"data", data},       {"preset", presetName},
                           {"run", run},         {"training", withTraining},
                           {"tick_ms", kTickMs}, {"platform", QGuiApplication::platformName().toStdString()}};
    auto& figures = report.figures();
    figures["probe_realtime"] = probe.realtime();
    figures["huge_pages_asked"] = util::hugePagesRequested();
    figures["phases"] = nlohmann::ordered_json::array();
    figures["stalls"] = nlohmann::ordered_json::array();
    figures["long_events"] = nlohmann::ordered_json::array();

    // (a) Open the project: load on the loader's worker, then the KB search index and the
    // candidate ranker, each on its own worker, with the window shown and repainting.
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    bool loaded = false, failed = false, indexed = false, candidates = false;
    QObject::connect(&window, &MainWindow::projectLoaded, [&] { loaded = true; });
    QObject::connect(&window, &MainWindow::projectFailed, [&](const QString& message) {
        failed = true;
        std::fprintf(stderr, "project failed: %s\n", qPrintable(message));
    });
    QObject::connect(window.knowledgeBaseDock(), &KnowledgeBaseDock::searchIndexReady, [&] { indexed = true; });
    // When each part became usable, in seconds after openProject (the targets: the
    // window usable within 30 s, a selected mention's candidates within 1 s).
    QElapsedTimer sinceOpen;
    double loadedAt = 0, indexedAt = 0, candidatesAt = 0;
    bool proposals = false;
    CandidateTimes early;
    QObject::connect(&window, &MainWindow::projectLoaded, [&] {
        loadedAt = double(sinceOpen.elapsed()) / 1000.0;
        if (!window.session()->rankers()->sparseRankerBuilt()) early = timeCandidates(window);
    });
    QObject::connect(window.knowledgeBaseDock(), &KnowledgeBaseDock::searchIndexReady,
                     [&] { indexedAt = double(sinceOpen.elapsed()) / 1000.0; });
    QObject::connect(window.session()->rankers(), &RankerHost::rankerReady, [&] {
        candidates = true;
        candidatesAt = double(sinceOpen.elapsed()) / 1000.0;
    });
    QObject::connect(window.session()->rankers(), &RankerHost::proposalsComplete, [&] { proposals = true; });
    StallMeter meter(app, sampler, probe);
    settle();
    meter.start();
    sinceOpen.start();
    window.openProject(QString::fromStdString(manifest.string()));
    const bool opened = waitFor([&] { return failed || (loaded && indexed && candidates); }, 1800);
    const StallMeter::Result open = meter.stop();
    char when[200];
    std::snprintf(when, sizeof when, "; project shown at %.1f s, KB search at %.1f s, candidate ranker at %.1f s",
                  loadedAt, indexedAt, candidatesAt);
    printRow(
        "open project + index KB + candidates", open,
        failed ? "FAILED" : (opened ? "loaded, indexed, ranker built" + std::string(when) : std::string("timed out")),
        figures);
    figures["project_shown_s"] = loadedAt;
    figures["kb_search_ready_s"] = indexedAt;
    figures["candidate_ranker_ready_s"] = candidatesAt;
    if (!opened || failed || !window.project()) return 1;

    // A selected mention's candidates, as the Candidates dock asks for them on the GUI thread:
    // the first 20 mentions of the test split (or of the first split); also when the window came
    // up, before the ranker was built (the exact-name candidates).
    if (early.mentions > 0)
        std::printf(
            "| candidates of a selected mention before the ranker (%zu mentions, at %.1f s) | median %.3f ms "
            "| max %.3f ms | | | exact names; %zu of them with a candidate |\n",
            early.mentions, loadedAt, early.median, early.max, early.withRows);
    if (early.mentions > 0)
        figures["candidates_before_ranker"] = {{"mentions", early.mentions},
                                               {"median_ms", early.median},
                                               {"max_ms", early.max},
                                               {"with_a_candidate", early.withRows}};
    if (const CandidateTimes times = timeCandidates(window); times.mentions > 0) {
        std::printf(
            "| candidates of a selected mention (%zu mentions) | median %.1f ms | max %.1f ms | | | on the GUI thread "
            "|\n",
            times.mentions, times.median, times.max);
        figures["candidates"] = {{"mentions", times.mentions}, {"median_ms", times.median}, {"max_ms", times.max}};
    }
    std::fflush(stdout);
    // A document opened while every mention's proposal is still being ranked: the last document
    // of the last split, which project order would rank last, is asked for first.
    if (!proposals) {
        const SplitCorpus* last = nullptr;
        const Document* far = nullptr;
        for (const SplitCorpus& split : window.project()->splits)
            for (const Document& document : split.corpus.documents())
                if (!document.mentions.empty()) {
                    last = &split;
                    far = &document;
                }
        if (far) {
            const Mention& mention = far->mentions.front();
            const project::MentionKey key{last->split, far->pmid(), mention.start, mention.end};
            const bool before = window.session()->rankers()->proposal(key).has_value();
            QElapsedTimer clock;
            clock.start();
            window.showMention(QString::fromStdString(key.split), QString::fromStdString(key.document),
                               static_cast<int>(key.start), static_cast<int>(key.end));
            const bool known = waitFor([&] { return window.session()->rankers()->proposal(key).has_value(); }, 600);
            std::printf(
                "| proposals of a document opened while ranking (PMID %s, %zu mentions) | %.2f s | | | | %s |\n",
                key.document.c_str(), far->mentions.size(), double(clock.nsecsElapsed()) / 1e9,
                before  ? "already ranked"
                : known ? "ranked before the documents ahead of it"
                        : "not ranked in 10 minutes");
            std::fflush(stdout);
            figures["document_opened_while_ranking"] = {{"mentions", far->mentions.size()},
                                                        {"seconds", double(clock.nsecsElapsed()) / 1e9},
                                                        {"outcome", before  ? "already ranked"
                                                                    : known ? "ranked first"
                                                                            : "not ranked in 10 minutes"}};
        }
    }
    // The review filters need every mention's proposal: ranked on the worker after the ranker.
    if (!proposals) {
        settle();
        meter.start();
        const bool ranked = waitFor([&] { return proposals; }, 3600);
        printRow("proposals for every mention (review filters)", meter.stop(),
                 ranked ? "ranked on the worker" : "timed out after an hour", figures);
    }

    // (c) Linking every mention with a trained run (its worker), then 100 decisions made one per
    // 50 ms on the test split, each stored and fed to the datastore on the GUI thread.
    if (!run.empty()) {
        CurationSession* session = window.session();
        bool linked = false, stopped = false;
        QObject::connect(session->rankers(), &RankerHost::runLinked, [&] { linked = true; });
        QObject::connect(session->rankers(), &RankerHost::runLinkingCancelled, [&] { stopped = true; });
        QObject::connect(session, &CurationSession::errorOccurred,
                         [&](const QString& message) { std::fprintf(stderr, "%s\n", qPrintable(message)); });
        settle();
        meter.start();
        session->rankers()->linkWithRun(QString::fromStdString(run), curation::LinkMode::Knn);
        waitFor([&] { return linked || stopped; }, 3600);
        printRow("link with a trained run (kNN)", meter.stop(),
                 linked ? session->rankers()->rankerDescription().toStdString() : std::string("FAILED"), figures);
        if (!linked) return 1;
        std::vector<std::pair<project::MentionKey, const Mention*>> walk;
        for (const SplitCorpus& split : window.project()->splits)
            if (split.split == "test")
                for (const Document& document : split.corpus.documents())
                    for (const Mention& mention : document.mentions)
                        if (walk.size() < 100 && !mention.ids.cuiLess)
                            walk.push_back({{split.split, document.pmid(), mention.start, mention.end}, &mention});
        std::size_t done = 0;
        settle();
        meter.start();
        QTimer decider;
        QObject::connect(&decider, &QTimer::timeout, [&] {
            if (done >= walk.size()) return;
            const auto& [key, mention] = walk[done++];
            std::string gold;
            for (const std::string& id : mention->ids.ids) gold += (gold.empty() ? "" : "|") + id;
            session->decisions()->decide(key, *mention, project::DecisionKind::Correct, gold);
        });
        decider.start(50);
        waitFor([&] { return done >= walk.size(); }, 600);
        decider.stop();
        printRow("100 decisions fed to the datastore", meter.stop(),
                 std::to_string(session->decisions()->undoStack()->count()) + " decisions stored", figures);
    }

    // (b) A short training through the dock's worker, the panel shown with its live charts.
    if (!withTraining) return 0;
    if (!TrainingWorker::isAvailable()) {
        std::printf("| training | - | - | - | - | not run: this build has no LibTorch |\n");
        figures["training"] = "not run: this build has no LibTorch";
        return 0;
    }
    const fs::path models = folder / "models";
    fs::create_directories(models);
    const fs::path source = fs::path(LINKSCOPE_SOURCE_DIR) / "models";
    auto preset = nlohmann::json::parse(readText(source / (presetName + ".json")));
    preset["schedules"]["tiny"] = {{"epochs", 1}, {"max_train_mentions", 256}, {"max_dev_mentions", 200}};
    writeText(models / (presetName + ".json"), preset.dump(2));
    writeText(models / "compact-encoder.json", readText(source / "compact-encoder.json"));

    // The window keeps the project alive for the whole run: a non-owning pointer to it.
    const std::shared_ptr<const LoadedProject> project(std::shared_ptr<const LoadedProject>(), window.project());
    TrainingPanel panel;
    panel.resize(500, 800);
    panel.show();
    panel.setModelsDirectory(QString::fromStdString(models.string()));
    panel.setProject(project);
    panel.setRunsFolder(temp.filePath(QStringLiteral("runs")));
    panel.presetCombo()->setCurrentIndex(panel.presetCombo()->findText(QString::fromStdString(presetName)));
    panel.scheduleCombo()->setCurrentIndex(panel.scheduleCombo()->findText(QStringLiteral("tiny")));
    bool trained = false, trainingFailed = false;
    QString failure;
    QObject::connect(&panel, &TrainingPanel::runFinished, [&] { trained = true; });
    QObject::connect(&panel, &TrainingPanel::trainingFailed, [&](const QString& message) {
        trainingFailed = true;
        failure = message;
    });
    int updates = 0;
    QObject::connect(panel.worker(), &TrainingWorker::progress, [&] { ++updates; });

    settle();
    meter.start();
    if (!panel.start()) {
        std::printf("| training | - | - | - | - | could not start |\n");
        return 1;
    }
    const bool ended = waitFor([&] { return trained || trainingFailed; }, 3600);
    const StallMeter::Result training = meter.stop();
    std::string note = trainingFailed ? "FAILED: " + failure.toStdString()
                       : ended        ? presetName + ", compact encoder, 1 epoch of 256 mentions, dev 200; " +
                                     std::to_string(updates) + " progress updates"
                               : std::string("timed out");
    printRow("training (worker)", training, note, figures);
    return trained ? 0 : 1;
}
