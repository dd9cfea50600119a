#include "worker_priority.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace linkscope::ui {

void lowerWorkerPriority() noexcept {
#ifdef __linux__
    // Nice 10: a runnable GUI thread (nice 0) then weighs about ten times one such worker thread.
    // Failure (a sandbox forbidding it) leaves the priority as it was: nothing depends on it.
    const auto thread = static_cast<id_t>(::syscall(SYS_gettid));
    if (::getpriority(PRIO_PROCESS, thread) < 10) (void)::setpriority(PRIO_PROCESS, thread, 10);
#endif
}

}  // namespace linkscope::ui
