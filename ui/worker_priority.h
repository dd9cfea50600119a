#pragma once
// The GUI thread before the workers: a worker that ranks, indexes or loads for minutes lowers its
// own scheduling priority first, so that on a machine with as many busy workers as cores the
// GUI thread still gets a core when it needs one (issue 17: with two cores and a ranker's two
// threads busy, turns of the event loop waited up to 137 ms for a core while every mention of a
// MedMentions-size project was ranked). A worker's helper threads (util::runOnThreads) inherit it.
//
// On Linux, nice is per thread: setpriority() on the calling thread's id. Elsewhere it does nothing.
namespace linkscope::ui {

/// Lowers the calling thread's priority (nice 10); call it at the start of a long worker job.
void lowerWorkerPriority() noexcept;

}  // namespace linkscope::ui
