// startup: what starting a command costs, as whole processes. Each case is started with
// posix_spawn N times (after one untimed run that warms the page cache); each run's wall time
// (spawn to wait4), CPU time (user + system from wait4's rusage, all threads and any program the
// command execs in the same process) and peak resident set (ru_maxrss) are kept, and the median,
// minimum and maximum reported. One further run with LD_DEBUG=files (LD_DEBUG_OUTPUT: glibc
// appends to one file per process id, across exec) counts the program images the process ran (2
// where it exec'ed once: a restart with huge pages, or the hand-over to another program) and the
// shared objects the last image loaded, at its start and through dlopen ("generating link map").
//
// Cases (each skipped with a message where its input is missing):
//   version      linkscope-cli --version
//   stats        linkscope-cli stats on the demo project's corpora and vocabulary
//   eval         linkscope-cli eval --method sparse on NCBI Disease test against MEDIC (docs/results.md)
//   peer         the scikit-learn peer of that eval: /usr/bin/python3 benchmarks/sklearn_sparse.py
//                --repeat 1 on BioSyn's preprocessed test set (its whole process, import included);
//                skipped where scikit-learn is not installed for that Python
//   encode       linkscope-cli encode --model M of eight names, M a compact encoder that
//                `init-model` writes first from the demo project (a command that needs LibTorch)
//   gui_version  linkscope --version, offscreen: the GUI's loader, static initialisers and
//                QApplication, without a window
//   gui          linkscope --measure-first-paint on the demo project, offscreen: the GUI prints
//                the milliseconds from its process start to its window's first paint and quits
//                (app/gui/first_paint_probe.h); a baseline without that option is skipped
// With --baseline-cli (and --baseline-gui) every case also runs with those programs, runs of the
// two alternating, and the targets compare the two.
//
//   startup [--cli PATH] [--gui PATH] [--baseline-cli PATH] [--baseline-gui PATH] [--runs N]
//           [--cases LIST] [--data DIR] [--demo DIR] [--python PATH] [--json]
//     --cli PATH           the linkscope-cli to measure (default: the one beside this program)
//     --gui PATH           the linkscope GUI to measure (default: the one beside this program)
//     --baseline-cli PATH  an earlier build's linkscope-cli to measure in the same run
//     --baseline-gui PATH  an earlier build's linkscope to measure in the same run
//     --runs N             timed runs of each case and program (default 5)
//     --cases LIST         comma-separated cases (default: all of the above)
//     --data DIR           the shared data (default $LINKSCOPE_DATA_DIR, else ../shared/data)
//     --demo DIR           the demo project's folder (default resources/demo of the source tree)
//     --python PATH        the peer's Python (default /usr/bin/python3)
//     --json               the figures as one JSON object on standard output (json_report.h)
// It exits with status 1 when a case's program failed; a target not met is reported, not an error.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "json_report.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Command {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;  // added to (or replacing in) this program's environment
    fs::path input;                          // standard input; /dev/null when empty
};

struct Sample {
    double wallMs = 0;
    double cpuMs = 0;
    double peakRssMiB = 0;
};

struct Outcome {
    std::optional<Sample> sample;  // empty when the process failed
    std::string failure;           // why, with the tail of its output
    pid_t pid = 0;
};

std::string tailOf(const fs::path& file, std::size_t bytes) {
    std::ifstream in(file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

/// Starts the command, waits for it, and returns its figures; output goes to `log`.
Outcome runOnce(const Command& command, const fs::path& log) {
    std::map<std::string, std::string> env;
    for (char** entry = environ; *entry; ++entry) {
        const std::string_view text(*entry);
        const auto equals = text.find('=');
        if (equals != std::string_view::npos)
            env[std::string(text.substr(0, equals))] = std::string(text.substr(equals + 1));
    }
    for (const auto& [key, value] : command.env) env[key] = value;
    std::vector<std::string> envText;
    envText.reserve(env.size());
    for (const auto& [key, value] : env) envText.push_back(key + "=" + value);
    std::vector<char*> envp, argv;
    for (auto& text : envText) envp.push_back(text.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = command.argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string input = command.input.empty() ? std::string("/dev/null") : command.input.string();
    const std::string output = log.string();
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, input.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);

    const auto started = Clock::now();
    pid_t pid = 0;
    const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) return {std::nullopt, args[0] + ": " + std::strerror(error)};
    int status = 0;
    struct rusage usage {};
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) return {std::nullopt, std::string("wait4: ") + std::strerror(errno)};
    }
    const double wall = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string why = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                            : "signal " + std::to_string(WTERMSIG(status));
        return {std::nullopt, args[0] + " failed (" + why + "): " + tailOf(log, 600), pid};
    }
    auto ms = [](const timeval& t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
    return {Sample{wall, ms(usage.ru_utime) + ms(usage.ru_stime), usage.ru_maxrss / 1024.0}, {}, pid};
}

struct Loaded {
    int images = 0;     // program images the process ran: 2 when it exec'ed once
    int libraries = 0;  // shared objects the last image loaded, at its start and through dlopen
};

/// What the dynamic loader loaded while the command ran (see the header). A new image starts
/// where, after the loader handed control to a program or finished a dlopen, a library is
/// loaded as a program's dependency rather than through dlopen.
std::optional<Loaded> librariesLoaded(Command command, const fs::path& scratch) {
    const fs::path folder = scratch / "ld-debug";
    fs::remove_all(folder);
    fs::create_directories(folder);
    command.env["LD_DEBUG"] = "files";
    command.env["LD_DEBUG_OUTPUT"] = (folder / "ld").string();
    const Outcome outcome = runOnce(command, scratch / "ld-debug.log");
    if (!outcome.sample) return std::nullopt;
    // Only the command's own process (one it starts writes a file of its own).
    std::ifstream in(folder / ("ld." + std::to_string(outcome.pid)));
    if (!in) return std::nullopt;
    Loaded loaded;
    bool armed = true;
    for (std::string line; std::getline(in, line);) {
        if (line.find("transferring control:") != std::string::npos ||
            line.find("calling init:") != std::string::npos) {
            armed = true;
        } else if (line.find("dynamically loaded by") != std::string::npos) {
            armed = false;
        } else if (line.find("needed by") != std::string::npos && armed) {
            ++loaded.images;
            loaded.libraries = 0;
            armed = false;
        } else if (line.find("generating link map") != std::string::npos) {
            ++loaded.libraries;
        }
    }
    return loaded;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

fs::path besideThisProgram(const char* name) {
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    return error ? fs::path(name) : self.parent_path() / name;
}

int usage() {
    std::cerr << "usage: startup [--cli PATH] [--gui PATH] [--baseline-cli PATH] [--baseline-gui PATH] [--runs N]\n"
                 "               [--cases version,stats,eval,peer,encode,gui_version,gui] [--data DIR] [--demo DIR]\n"
                 "               [--python PATH] [--json]\n";
    return 2;
}

struct Case {
    std::string name;
    std::string what;
    Command command;          // with the measured programs
    Command baselineCommand;  // with the baseline's programs; empty argv: none
};

/// The GUI's first-paint report (app/gui/first_paint_probe.h: a JSON line with "first_paint_ms"),
/// or -1 where the output holds none.
double reportedPaintMs(const fs::path& log) {
    static constexpr std::string_view key = "\"first_paint_ms\": ";
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) {
        const auto at = line.find(key);
        if (at != std::string::npos && line.compare(at + key.size(), 4, "null") != 0)
            return std::atof(line.c_str() + at + key.size());
    }
    return -1;
}

}  // namespace

int main(int argc, char** argv) {
    linkscope::bench::JsonReport report("startup", argc, argv);
    fs::path cli = besideThisProgram("linkscope-cli"), gui = besideThisProgram("linkscope");
    fs::path baselineCli, baselineGui;
    int runs = 5;
    std::set<std::string> cases = {"version", "stats", "eval", "peer", "encode", "gui_version", "gui"};
    const char* dataEnv = std::getenv("LINKSCOPE_DATA_DIR");
    fs::path data = dataEnv ? fs::path(dataEnv) : fs::path(LINKSCOPE_DEFAULT_DATA_DIR);
    fs::path demo = fs::path(LINKSCOPE_SOURCE_DIR) / "resources" / "demo";
    fs::path python = "/usr/bin/python3";
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (i + 1 >= argc) return usage();
        const std::string value = argv[++i];
        if (arg == "--cli")
            cli = value;
        else if (arg == "--gui")
            gui = value;
        else if (arg == "--baseline-cli")
            baselineCli = value;
        else if (arg == "--baseline-gui")
            baselineGui = value;
        else if (arg == "--runs")
            runs = std::max(1, std::atoi(value.c_str()));
        else if (arg == "--cases") {
            cases.clear();
            std::stringstream list(value);
            for (std::string item; std::getline(list, item, ',');) cases.insert(item);
        } else if (arg == "--data")
            data = value;
        else if (arg == "--demo")
            demo = value;
        else if (arg == "--python")
            python = value;
        else
            return usage();
    }
    cli = fs::absolute(cli);
    gui = fs::absolute(gui);
    if (!baselineCli.empty()) baselineCli = fs::absolute(baselineCli);
    if (!baselineGui.empty()) baselineGui = fs::absolute(baselineGui);

    char scratchTemplate[] = "/tmp/linkscope-startup-XXXXXX";
    if (!mkdtemp(scratchTemplate)) {
        std::perror("mkdtemp");
        return 1;
    }
    const fs::path scratch = scratchTemplate;
    struct Cleanup {
        fs::path path;
        ~Cleanup() {
            std::error_code ignored;
            fs::remove_all(path, ignored);
        }
    } cleanup{scratch};

    report.parameters()["runs"] = runs;
    report.parameters()["cli"] = cli.string();
    report.parameters()["baseline_cli"] = baselineCli.string();
    report.parameters()["gui"] = gui.string();
    report.parameters()["baseline_gui"] = baselineGui.string();
    std::vector<std::string> skipped;
    auto skip = [&](const std::string& name, const std::string& why) {
        std::cout << name << ": skipped: " << why << "\n";
        skipped.push_back(name + ": " + why);
    };

    // Each case's command line with a given CLI or GUI (an empty path: none).
    const fs::path demoKb = demo / "demo-kb.txt", demoTrain = demo / "demo-train.txt",
                   demoTest = demo / "demo-test.txt";
    const fs::path ncbi = data / "ncbi-disease", medic = data / "medic";
    const fs::path archive = data / "biosyn-ncbi-disease" / "ncbi-disease.tar.gz";
    const fs::path model = scratch / "model", names = scratch / "names.txt";
    std::vector<Case> plan;
    auto both = [&](const std::string& name, const std::string& what, const fs::path& program, const fs::path& baseline,
                    auto&& makeCommand) {
        Case item{name, what, makeCommand(program), {}};
        if (!baseline.empty()) item.baselineCommand = makeCommand(baseline);
        plan.push_back(std::move(item));
    };
    if (cases.count("version"))
        both("version", "linkscope-cli --version", cli, baselineCli, [](const fs::path& p) {
            return Command{{p.string(), "--version"}, {}, {}};
        });
    if (cases.count("stats")) {
        if (!fs::exists(demoKb))
            skip("stats", "no demo project in " + demo.string());
        else
            both("stats", "linkscope-cli stats on the demo project", cli, baselineCli, [&](const fs::path& p) {
                return Command{
                    {p.string(), "stats", "--corpus", demoTrain.string(), demoTest.string(), "--kb", demoKb.string()},
                    {},
                    {}};
            });
    }
    const bool haveNcbi = fs::exists(ncbi / "NCBItestset_corpus.txt") && fs::exists(medic / "medic_06Jul2012.txt");
    if (cases.count("eval")) {
        if (!haveNcbi)
            skip("eval", "NCBI Disease or MEDIC missing under " + data.string());
        else
            both("eval", "linkscope-cli eval --method sparse, NCBI Disease test, MEDIC", cli, baselineCli,
                 [&](const fs::path& p) {
                     return Command{
                         {p.string(), "eval", "--train", (ncbi / "NCBItrainset_corpus.txt").string(), "--dev",
                          (ncbi / "NCBIdevelopset_corpus.txt").string(), "--test",
                          (ncbi / "NCBItestset_corpus.txt").string(), "--kb", (medic / "medic_06Jul2012.txt").string(),
                          "--spelling", (medic / "ncbi-spell-check.txt").string(), "--split", "test", "--method",
                          "sparse"},
                         {},
                         {}};
                 });
    }
    if (cases.count("peer")) {
        const fs::path script = fs::path(LINKSCOPE_SOURCE_DIR) / "benchmarks" / "sklearn_sparse.py";
        const Outcome probe =
            runOnce(Command{{python.string(), "-c", "import sklearn"}, {}, {}}, scratch / "probe.log");
        if (!fs::exists(archive))
            skip("peer", "BioSyn's NCBI Disease archive missing: " + archive.string());
        else if (!probe.sample)
            skip("peer", "scikit-learn is not installed for " + python.string() +
                             " (Debian: apt-get install python3-sklearn, or packaging/install-deps.sh --benchmarks)");
        else
            plan.push_back(
                {"peer",
                 "scikit-learn peer of the sparse eval (sklearn_sparse.py --repeat 1)",
                 Command{{python.string(), script.string(), "--archive", archive.string(), "--repeat", "1"}, {}, {}},
                 {}});
    }
    if (cases.count("encode")) {
        const fs::path preset = fs::path(LINKSCOPE_SOURCE_DIR) / "models" / "compact-encoder.json";
        const Outcome made =
            fs::exists(demoKb)
                ? runOnce(Command{{cli.string(), "init-model", "--preset", preset.string(), "--kb", demoKb.string(),
                                   "--corpus", demoTrain.string(), "--out", model.string()},
                                  {},
                                  {}},
                          scratch / "init-model.log")
                : Outcome{std::nullopt, "no demo project in " + demo.string()};
        if (!made.sample) {
            skip("encode", "no model: init-model failed: " + made.failure);
        } else {
            std::ofstream(names) << "type 2 diabetes\nbreast cancer\ncolorectal adenoma\nataxia telangiectasia\n"
                                    "hereditary nonpolyposis colorectal cancer\nmyotonic dystrophy\n"
                                    "adrenoleukodystrophy\nfragile x syndrome\n";
            both("encode", "linkscope-cli encode, a compact encoder, 8 names", cli, baselineCli,
                 [&](const fs::path& p) {
                     return Command{{p.string(), "encode", "--model", model.string()}, {}, names};
                 });
        }
    }
    const std::map<std::string, std::string> offscreen = {{"QT_QPA_PLATFORM", "offscreen"}};
    if (cases.count("gui_version")) {
        if (!fs::exists(gui))
            skip("gui_version", "no GUI at " + gui.string());
        else
            both("gui_version", "linkscope --version (offscreen)", gui, baselineGui, [&](const fs::path& p) {
                return Command{{p.string(), "--version"}, offscreen, {}};
            });
    }
    if (cases.count("gui")) {
        if (!fs::exists(gui))
            skip("gui", "no GUI at " + gui.string());
        else if (!fs::exists(demo / "demo-project.json"))
            skip("gui", "no demo project in " + demo.string());
        else
            both("gui", "linkscope --measure-first-paint on the demo project (offscreen)", gui, baselineGui,
                 [&](const fs::path& p) {
                     return Command{
                         {p.string(), "--measure-first-paint", (demo / "demo-project.json").string()}, offscreen, {}};
                 });
    }

    // Runs: one untimed warm-up of each program, then the timed runs, new and baseline alternating.
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    std::map<std::string, double> wallOf;   // "case/build" -> median wall ms
    std::map<std::string, double> paintOf;  // "gui/build" -> median first paint ms, where reported
    std::vector<std::string> failures;
    for (const Case& item : plan) {
        struct Build {
            std::string name;
            const Command* command;
            std::vector<Sample> samples;
            std::vector<double> paintMs;
            std::string failure;
            bool skipped = false;
        };
        std::vector<Build> builds{{"new", &item.command, {}, {}, {}, false}};
        if (!item.baselineCommand.argv.empty())
            builds.push_back({"baseline", &item.baselineCommand, {}, {}, {}, false});
        if (item.name == "peer") builds.front().name = "scikit-learn";
        std::cout << item.name << ": " << item.what << "\n" << std::flush;
        for (int run = -1; run < runs; ++run) {
            for (Build& build : builds) {
                if (!build.failure.empty() || build.skipped) continue;
                const fs::path log = scratch / (item.name + "-" + build.name + ".log");
                const Outcome outcome = runOnce(*build.command, log);
                if (!outcome.sample && item.name == "gui" && build.name == "baseline" && run < 0) {
                    // A build from before the probe existed has no --measure-first-paint.
                    build.skipped = true;
                    skip("gui (baseline)", "the baseline GUI has no --measure-first-paint: " + outcome.failure);
                    continue;
                }
                if (!outcome.sample) {
                    build.failure = outcome.failure;
                    continue;
                }
                if (run < 0) continue;
                build.samples.push_back(*outcome.sample);
                if (item.name == "gui") build.paintMs.push_back(reportedPaintMs(log));
            }
        }
        for (Build& build : builds) {
            if (build.skipped) continue;
            if (!build.failure.empty()) {
                std::cout << "  " << build.name << ": FAILED: " << build.failure << "\n";
                failures.push_back(item.name + " (" + build.name + "): " + build.failure);
                continue;
            }
            std::vector<double> wall, cpu, rss;
            for (const Sample& s : build.samples) {
                wall.push_back(s.wallMs);
                cpu.push_back(s.cpuMs);
                rss.push_back(s.peakRssMiB);
            }
            const std::optional<Loaded> libraries = librariesLoaded(*build.command, scratch);
            wallOf[item.name + "/" + build.name] = median(wall);
            nlohmann::ordered_json row;
            row["case"] = item.name;
            row["program"] = build.name;
            row["wall_ms"] = median(wall);
            row["wall_min_ms"] = *std::min_element(wall.begin(), wall.end());
            row["wall_max_ms"] = *std::max_element(wall.begin(), wall.end());
            row["cpu_ms"] = median(cpu);
            row["peak_rss_mib"] = median(rss);
            row["libraries"] =
                libraries ? nlohmann::ordered_json(libraries->libraries) : nlohmann::ordered_json(nullptr);
            row["images"] = libraries ? nlohmann::ordered_json(libraries->images) : nlohmann::ordered_json(nullptr);
            if (item.name == "gui" && !build.paintMs.empty()) {
                const double paint = median(build.paintMs);
                row["first_paint_ms"] = paint >= 0 ? nlohmann::ordered_json(paint) : nlohmann::ordered_json(nullptr);
                if (paint >= 0) paintOf[item.name + "/" + build.name] = paint;
            } else {
                row["first_paint_ms"] = nullptr;
            }
            std::printf("  %-12s wall %8.1f ms (%.1f to %.1f), CPU %8.1f ms, peak %7.1f MiB, %s libraries, %s images\n",
                        build.name.c_str(), median(wall), *std::min_element(wall.begin(), wall.end()),
                        *std::max_element(wall.begin(), wall.end()), median(cpu), median(rss),
                        libraries ? std::to_string(libraries->libraries).c_str() : "?",
                        libraries ? std::to_string(libraries->images).c_str() : "?");
            std::fflush(stdout);
            rows.push_back(std::move(row));
        }
    }

    // Targets: each with its threshold, what was measured, and whether it was met.
    nlohmann::ordered_json targets = nlohmann::ordered_json::array();
    auto target = [&](const std::string& what, const std::string& threshold, std::optional<double> measured,
                      const std::string& unit, bool met) {
        nlohmann::ordered_json row;
        row["target"] = what;
        row["threshold"] = threshold;
        if (measured) {
            std::ostringstream text;
            text.precision(unit == "x" ? 3 : 4);
            text << *measured << (unit == "x" ? "x" : " " + unit);
            row["measured"] = text.str();
            row["met"] = met ? "met" : "not met";
        } else {
            row["measured"] = "not measured";
            row["met"] = "not measured";
        }
        std::cout << "target " << what << " (" << threshold << "): " << row["measured"].get<std::string>() << ", "
                  << row["met"].get<std::string>() << "\n";
        targets.push_back(std::move(row));
    };
    auto find = [&](const std::string& key) -> std::optional<double> {
        const auto it = wallOf.find(key);
        return it == wallOf.end() ? std::nullopt : std::optional<double>(it->second);
    };
    const auto version = find("version/new"), stats = find("stats/new"), eval = find("eval/new"),
               peer = find("peer/scikit-learn"), encode = find("encode/new"), encodeBefore = find("encode/baseline"),
               guiWall = find("gui/new");
    target("--version wall", "at most 50 ms", version, "ms", version && *version <= 50);
    target("stats on the demo wall", "at most 100 ms", stats, "ms", stats && *stats <= 100);
    const std::optional<double> ratio = peer && eval ? std::optional<double>(*peer / *eval) : std::nullopt;
    target("sparse eval against the scikit-learn peer, whole processes", "at least 20x faster", ratio, "x",
           ratio && *ratio >= 20);
    const auto evalBefore = find("eval/baseline");
    // The GUI's own report of its first paint where it gives one, else its process's wall time.
    const auto painted = paintOf.count("gui/new") ? std::optional<double>(paintOf["gui/new"]) : guiWall;
    target("GUI painted after start, demo project", "within 1000 ms", painted, "ms", painted && *painted <= 1000);
    const std::optional<double> slower =
        encode && encodeBefore ? std::optional<double>(*encode / *encodeBefore) : std::nullopt;
    target("encode (LibTorch) against the baseline", "no slower (at most 1.05x, run-to-run noise)", slower, "x",
           slower && *slower <= 1.05);

    // The peer's wall time over ours, with the measured and with the baseline's eval.
    if (ratio) report.figures()["peer_over_eval"] = *ratio;
    if (peer && evalBefore) report.figures()["peer_over_baseline_eval"] = *peer / *evalBefore;
    report.figures()["cases"] = std::move(rows);
    report.figures()["targets"] = std::move(targets);
    nlohmann::ordered_json skippedRows = nlohmann::ordered_json::array();
    for (const std::string& line : skipped) skippedRows.push_back({{"skipped", line}});
    report.figures()["skipped"] = std::move(skippedRows);
    nlohmann::ordered_json failedRows = nlohmann::ordered_json::array();
    for (const std::string& line : failures) failedRows.push_back({{"failed", line}});
    report.figures()["failed"] = std::move(failedRows);
    return failures.empty() ? 0 : 1;
}
