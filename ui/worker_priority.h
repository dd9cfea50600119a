#pragma once
// The GUI thread before the workers: a worker that ranks, indexes, loads or trains lowers its own
// scheduling priority first (every BackgroundJob does, background_job.h), so that on a machine
// with as many busy workers as cores the GUI thread still gets a core when it needs one: with
// two cores and a ranker's two threads busy, turns of the event loop otherwise waited for a core
// while every mention of a MedMentions-size project was ranked (benchmarks/ui_stall). A worker's
// helper threads (util::runOnThreads) inherit it.
//
// On Linux, nice is per thread: setpriority() on the calling thread's id. Elsewhere it does nothing.
namespace linkscope::ui {

/// Lowers the calling thread's priority (nice 10); call it at the start of a long worker job.
void lowerWorkerPriority() noexcept;

}  // namespace linkscope::ui
