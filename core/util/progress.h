#pragma once
// How long-running engine work reports progress and learns that it should stop, without the
// engine knowing who listens (a GUI worker thread, the CLI, a test).
#include <functional>
#include <string_view>

#include "util/error.h"

namespace linkscope {

/// Thrown by ProgressSink::checkCancelled() when the caller asked to stop. Work that throws it
/// leaves no half-written output behind (files are written atomically).
class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled") {}
};

struct ProgressSink {
    /// stage: what is being done ("Loading knowledge base"); fraction: 0..1 of the whole job.
    std::function<void(std::string_view stage, double fraction)> report;
    /// Returns true when the work should stop.
    std::function<bool()> cancelled;

    void operator()(std::string_view stage, double fraction) const {
        if (report) report(stage, fraction);
    }
    void checkCancelled() const {
        if (cancelled && cancelled()) throw Cancelled();
    }
};

}  // namespace linkscope
