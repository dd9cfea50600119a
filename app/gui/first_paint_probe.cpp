#include "first_paint_probe.h"

#include <QCoreApplication>
#include <QEvent>
#include <QTimer>
#include <QWidget>

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace linkscope::gui {
namespace {

// Field 22 of /proc/self/stat: the start time in clock ticks since boot. The command name (field
// 2) is in parentheses and may hold spaces, so the fields are counted after its closing one.
std::optional<long long> startTicks() {
    std::ifstream stat("/proc/self/stat");
    std::string line;
    if (!std::getline(stat, line)) return std::nullopt;
    const auto close = line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(line.substr(close + 1));
    std::string field;
    for (int index = 3; index < 22; ++index)
        if (!(fields >> field)) return std::nullopt;
    long long ticks = 0;
    if (!(fields >> ticks)) return std::nullopt;
    return ticks;
}

double clockTickMs() { return 1000.0 / static_cast<double>(sysconf(_SC_CLK_TCK)); }

}  // namespace

std::optional<double> millisecondsSinceProcessStart() {
    const auto ticks = startTicks();
    timespec now{};
    // The start time counts from boot, suspended time included: CLOCK_BOOTTIME is the same clock.
    if (!ticks || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return std::nullopt;
    const double nowMs = static_cast<double>(now.tv_sec) * 1000.0 + static_cast<double>(now.tv_nsec) / 1e6;
    return nowMs - static_cast<double>(*ticks) * clockTickMs();
}

FirstPaintProbe::FirstPaintProbe(QWidget* window, std::optional<double> mainEnteredMs)
    : QObject(window), mainEnteredMs_(mainEnteredMs) {
    window->installEventFilter(this);
}

bool FirstPaintProbe::eventFilter(QObject* watched, QEvent* event) {
    if (!seen_ && event->type() == QEvent::Paint) {
        seen_ = true;
        watched->removeEventFilter(this);
        // Queued: the rest of the frame (the children, the flush) is painted before it runs.
        QTimer::singleShot(0, this, &FirstPaintProbe::report);
    }
    return QObject::eventFilter(watched, event);
}

void FirstPaintProbe::report() {
    const auto firstPaint = millisecondsSinceProcessStart();
    const auto field = [](const std::optional<double>& ms) {
        if (!ms) return std::string("null");
        char text[32];
        std::snprintf(text, sizeof text, "%.1f", *ms);
        return std::string(text);
    };
    std::printf("{\"first_paint_ms\": %s, \"main_entered_ms\": %s, \"clock_tick_ms\": %s}\n", field(firstPaint).c_str(),
                field(mainEnteredMs_).c_str(), field(clockTickMs()).c_str());
    std::fflush(stdout);
    QCoreApplication::exit(firstPaint ? 0 : 1);
}

}  // namespace linkscope::gui
