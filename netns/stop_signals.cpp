#include "netns/stop_signals.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "netns/kernel_error.h"

namespace testbed {
namespace {

// What the handler may touch: lock-free atomics and write(2) (async-signal-safe).
std::atomic<int> g_received{0};
std::atomic<bool> g_stopping{false};
// A bit per signal received (every signal number is below 64).
std::atomic<uint64_t> g_seen{0};
int g_pipe[2] = {-1, -1};
std::atomic<bool> g_owned{false};

void on_signal(int sig) {
  const int saved = errno;  // a handler must leave errno as it found it
  g_received = sig;
  g_seen |= uint64_t{1} << sig;
  g_stopping = true;
  const char byte = 1;
  // A full pipe already wakes its reader: a failed write loses nothing.
  [[maybe_unused]] const ssize_t n = write(g_pipe[1], &byte, 1);
  errno = saved;
}

// SIGPIPE: the reader of our output went away (`testbed train ... | head`, a closed
// terminal's pipe). Its default kills the verb half-way, before it ends what it started: a
// train killed so left its agents running. Caught, a write to it fails with EPIPE and the
// verb goes on to its end. A handler, not SIG_IGN, so that programs we start (which
// inherit an ignored signal across exec, but not a handler) keep the default.
void on_broken_pipe(int) {}

}  // namespace

StopSignals::StopSignals(std::initializer_list<int> signals) {
  if (g_owned.exchange(true))
    throw std::logic_error("StopSignals: one owner of the stop signals at a time");
  g_received = 0;
  g_seen = 0;
  g_stopping = false;
  if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    g_owned = false;
    throw_errno("pipe2(stop signals)");
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  // SA_RESTART: a read or write the signal interrupts goes on; the loops see the flag at
  // their next turn, which is what every verb's loop is written for.
  sa.sa_flags = SA_RESTART;
  for (int sig : signals) {
    struct sigaction old {};
    sigaction(sig, &sa, &old);
    previous_.emplace_back(sig, old);
  }
  if (std::find(signals.begin(), signals.end(), SIGPIPE) == signals.end()) {
    struct sigaction pipe_sa {
    }, old{};
    pipe_sa.sa_handler = on_broken_pipe;
    sigemptyset(&pipe_sa.sa_mask);
    pipe_sa.sa_flags = SA_RESTART;
    sigaction(SIGPIPE, &pipe_sa, &old);
    previous_.emplace_back(SIGPIPE, old);
  }
}

StopSignals::~StopSignals() {
  for (const auto& [sig, old] : previous_) sigaction(sig, &old, nullptr);
  close(g_pipe[0]);
  close(g_pipe[1]);
  g_pipe[0] = g_pipe[1] = -1;
  g_owned = false;
}

const std::atomic<int>& StopSignals::received() const {
  return g_received;
}
const std::atomic<bool>& StopSignals::stopping() const {
  return g_stopping;
}
bool StopSignals::has_received(int sig) const {
  return sig > 0 && sig < 64 && (g_seen.load() & (uint64_t{1} << sig)) != 0;
}
int StopSignals::fd() const {
  return g_pipe[0];
}
void StopSignals::drain() const {
  char bytes[64];
  while (read(g_pipe[0], bytes, sizeof bytes) > 0) {
  }
}

}  // namespace testbed
