#pragma once
// The start-up benchmark's probe (benchmarks/startup): `linkscope --measure-first-paint` prints
// one JSON line on standard output once the main window has painted its first frame, then quits.
//
//   {"first_paint_ms": 412.0, "main_entered_ms": 38.0, "clock_tick_ms": 10.0}
//
// Times are milliseconds since the process started, as the kernel counts it (the start time in
// /proc/self/stat, so the dynamic loader and static initialisers are in, and a restart by exec
// keeps the same start). That start time is in clock ticks: the figures are exact to one tick
// (clock_tick_ms). first_paint_ms is taken when the event loop comes back from the window's
// first paint (the frame flushed); main_entered_ms when main() began.
#include <QObject>

#include <optional>

class QWidget;

namespace linkscope::gui {

/// Milliseconds from the process start to now; unset where /proc/self/stat cannot be read.
std::optional<double> millisecondsSinceProcessStart();

class FirstPaintProbe : public QObject {
    Q_OBJECT
public:
    /// Watches `window` (which must outlive the probe: make it the probe's parent); `mainEnteredMs`
    /// is millisecondsSinceProcessStart() as main() began.
    FirstPaintProbe(QWidget* window, std::optional<double> mainEnteredMs);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void report();

    std::optional<double> mainEnteredMs_;
    bool seen_ = false;
};

}  // namespace linkscope::gui
