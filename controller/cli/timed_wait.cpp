#include "controller/cli/timed_wait.h"

#include <signal.h>
#include <time.h>

#include <cerrno>
#include <initializer_list>

namespace testbed::cli {

int wait_or_signal(int64_t us) {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  timespec left{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    const int sig = sigtimedwait(&set, nullptr, &left);
    if (sig > 0) return sig;
    if (errno == EAGAIN) return 0;
    // EINTR (another signal, e.g. SIGCHLD): wait for what is left.
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const int64_t gone =
        (now.tv_sec - start.tv_sec) * 1000000 + (now.tv_nsec - start.tv_nsec) / 1000;
    if (gone >= us) return 0;
    const int64_t rest = us - gone;
    left = {static_cast<time_t>(rest / 1000000), static_cast<long>(rest % 1000000) * 1000};
  }
}

}  // namespace testbed::cli
