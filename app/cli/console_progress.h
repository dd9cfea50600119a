#pragma once
// Progress of a long command on standard error, in the two forms its reader needs: on a terminal
// one live line overwritten in place (stage, percent, elapsed, ETA) and erased at the end; in a
// log file or CI, where "\r" would pile up into one huge line, a plain "progress: ..." line at
// most every interval, the first at once and a last one at the end, so that a long job's log
// shows that it is alive and how far it got. Standard output is never touched: it carries the
// results that scripts and tests parse.
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>
#include <string_view>

#include "util/progress.h"

namespace linkscope::cli {

struct ConsoleProgressOptions {
    /// A live line overwritten in place (a terminal), or plain rate-limited lines (a file).
    bool terminal = false;
    /// Plain lines: at most one per this many seconds (0: every report). A new stage and the
    /// end are always said.
    double intervalSeconds = 30.0;
    /// Seconds on a monotonic clock; steady_clock when unset (tests give a fake one).
    std::function<double()> now;

    /// For standard error: terminal when it is one (isatty), the interval from
    /// $LINKSCOPE_PROGRESS_INTERVAL (seconds) when it is set and a number, else 30 s.
    static ConsoleProgressOptions forStandardError();
};

class ConsoleProgress {
public:
    /// Reports to std::cerr with ConsoleProgressOptions::forStandardError().
    ConsoleProgress();
    ConsoleProgress(std::ostream& out, ConsoleProgressOptions options);
    /// finish(), except that a plain last line is left out while an exception unwinds (the
    /// error message should be the log's last word, not a progress line).
    ~ConsoleProgress();
    ConsoleProgress(const ConsoleProgress&) = delete;
    ConsoleProgress& operator=(const ConsoleProgress&) = delete;

    /// "Ranking queries 42 %  elapsed 12 s  eta 17 s"; fraction (0..1) of this stage. Elapsed
    /// and ETA count from the stage's first report (or from a report whose fraction went back).
    void report(std::string_view stage, double fraction);
    /// A line made by the caller (the trainer's epoch, step, loss and ETA), shown as report's.
    void show(std::string_view text);
    /// Erases the live line before the caller prints to stdout on the same screen (redrawn by
    /// the next report). Plain: forgets the line held back by the interval, which what the
    /// caller prints (an epoch's result) has made stale.
    void clear();
    /// Terminal: erases the live line. Plain: prints the last report when it was held back by
    /// the interval, so that the log ends on how far the work got (100 % when it finished).
    void finish();

    /// A sink for engine work (util/progress.h) reporting here; this must outlive it.
    ProgressSink sink();

    bool terminal() const { return options_.terminal; }

private:
    double now() const;
    void update(std::string text, bool newStage);
    void draw(const std::string& text);
    void printLine(const std::string& text);
    void clearLocked();

    std::ostream& out_;
    ConsoleProgressOptions options_;
    std::mutex mutex_;  // engine work may report from its worker threads
    // The stage being reported, its start and last fraction (ETA, new stage).
    std::string stage_;
    double stageStart_ = 0.0;
    double lastFraction_ = 0.0;
    // Terminal: characters of the live line on screen, and its text.
    std::size_t shown_ = 0;
    std::string drawn_;
    // Plain: when the last line was printed, and the latest text not yet printed.
    double printedAt_ = 0.0;
    bool printedAny_ = false;
    std::string pending_;
};

/// "12 s", "4 min 05 s", "2 h 07 min": durations on a progress line.
std::string formatDuration(double seconds);

}  // namespace linkscope::cli
