#include "controller/launch/rank_supervisor.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "netns/process_exit.h"
#include "netns/stop_signals.h"
#include "netns/wait_set.h"

namespace testbed {
namespace {

// The controller's death, as the kernel reports it: a signal no job uses for anything of
// the testbed's, so it cannot be mistaken for the controller's own SIGTERM.
constexpr int kParentDied = SIGUSR2;

// Stops the group: SIGTERM, then SIGKILL (this process included) once the grace is over
// or CMD has gone, whichever is first.
[[noreturn]] void stop_group(pid_t child) {
  const ProcessHandle cmd = ProcessHandle::open(child);  // not reaped yet: still CMD
  kill(-getpgrp(), SIGTERM);
  cmd.wait_until(std::chrono::steady_clock::now() + std::chrono::milliseconds(kRankGraceMs));
  kill(-getpgrp(), SIGKILL);
  _exit(128 + SIGKILL);
}

}  // namespace

int supervise_rank(const std::vector<std::string>& argv) {
  if (argv.empty()) {
    std::fprintf(stderr, "testbed _rank: no command\n");
    return 127;
  }
  // The one catcher of signals (netns/stop_signals.h) takes the controller's death
  // (kParentDied), and the group's SIGTERM, SIGINT and SIGHUP too: those reach CMD directly,
  // and the supervisor catches them only to outlive CMD and hand its status on.
  const StopSignals signals({SIGTERM, SIGINT, SIGHUP, kParentDied});
  // Until this call the launcher's own PR_SET_PDEATHSIG (SIGKILL) holds, when there is no
  // child yet to leave behind: the controller's death is caught at every moment.
  if (prctl(PR_SET_PDEATHSIG, kParentDied) != 0) std::perror("testbed _rank: prctl");

  const pid_t child = fork();
  if (child < 0) {
    std::perror("testbed _rank: fork");
    return 127;
  }
  if (child == 0) {
    // CMD starts as if the supervisor were not there: default dispositions, no death
    // signal of ours.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGTERM, SIGINT, SIGHUP, kParentDied}) sigaction(sig, &dfl, nullptr);
    prctl(PR_SET_PDEATHSIG, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "testbed _rank: %s: %s\n", args[0], std::strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);  // the shell's conventions
  }
  // Signals and CMD's end, in one wait.
  WaitSet waits(&signals);
  waits.watch_end(child);
  for (;;) {
    const WaitSet::Woken woken = waits.wait(WaitSet::kForever);
    // Drained before the flags are read: a signal after this leaves a byte to wake on.
    signals.drain();
    if (signals.has_received(kParentDied)) stop_group(child);
    if (!woken.ended.empty()) return reap(child);
  }
}

}  // namespace testbed
