#include "controller/runs/traffic_client.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>

#include "netns/process_exit.h"

namespace testbed {
namespace {

// A generator that exits this soon after it started has failed to connect (its server,
// started by the same `up` a moment before, not listening yet): it is tried again after
// kRetryPause, at most kAttempts times in all (5 s of tries, far beyond a server's start).
constexpr double kEarlyExitS = 3.0;
constexpr int kAttempts = 25;
constexpr timespec kRetryPause = {0, 200'000'000};
// SIGTERM first, so iperf3 closes its test; SIGKILL if it has not ended after this.
constexpr std::chrono::milliseconds kTermGrace{2000};

double now_s() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

timespec span(double s) {
  s = std::max(0.0, s);
  return {static_cast<time_t>(s), static_cast<long>(std::fmod(s, 1.0) * 1e9)};
}

// Waits up to `seconds` for one of the blocked signals in `set`; 0 on timeout.
int wait_signal(const sigset_t& set, double seconds) {
  const timespec t = span(seconds);
  const int sig = sigtimedwait(&set, nullptr, &t);
  return sig < 0 ? 0 : sig;
}

pid_t start(const std::vector<std::string>& argv, const sigset_t& old_mask) {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid != 0) return pid;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the parent died before the line above
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  std::perror(("testbed _traffic: " + argv[0]).c_str());
  _exit(127);
}

// Signals meanwhile stay pending (blocked): the run is ending anyway.
void end(pid_t pid) {
  end_child(pid, kTermGrace);
}

}  // namespace

int run_traffic_client(const TrafficClientTimes& times, const std::vector<std::string>& argv) {
  // Signals are taken in turn by sigtimedwait, in this one loop, never by a handler.
  sigset_t set, old_mask;
  sigemptyset(&set);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&set, s);
  sigprocmask(SIG_BLOCK, &set, &old_mask);
  const auto stopping = [](int sig) { return sig == SIGTERM || sig == SIGINT || sig == SIGHUP; };
  const auto left = [&] { return times.stop_unix_s ? *times.stop_unix_s - now_s() : 3600.0; };

  for (double wait = times.start_unix_s - now_s(); wait > 0; wait = times.start_unix_s - now_s()) {
    if (stopping(wait_signal(set, wait))) return 0;
  }
  for (int attempt = 1;; ++attempt) {
    if (times.stop_unix_s && left() <= 0) return 0;
    const double started = now_s();
    const pid_t pid = start(argv, old_mask);
    if (pid < 0) {
      std::perror("testbed _traffic: fork");
      return 1;
    }
    std::optional<int> ended;
    while (!ended) {
      const int sig = wait_signal(set, std::min(left(), 1.0));
      if (stopping(sig) || (times.stop_unix_s && left() <= 0)) {
        end(pid);
        return 0;
      }
      ended = reap_if_ended(pid);
    }
    const int code = *ended;
    if (code == 0) {  // ended by itself before its stop: started again
      nanosleep(&kRetryPause, nullptr);
      continue;
    }
    if (now_s() - started > kEarlyExitS || attempt >= kAttempts) {
      std::fprintf(stderr, "testbed _traffic: %s exited with status %d\n", argv[0].c_str(), code);
      return code == 0 ? 1 : code;
    }
    nanosleep(&kRetryPause, nullptr);
  }
}

}  // namespace testbed
