#include "controller/launch/rank_supervisor.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace testbed {
namespace {

// The controller's death, as the kernel reports it: a signal no job uses for anything of
// the testbed's, so it cannot be mistaken for the controller's own SIGTERM.
constexpr int kParentDied = SIGUSR2;

volatile sig_atomic_t g_parent_died = 0;
void on_parent_died(int) {
  g_parent_died = 1;
}
// The controller stops a job by signalling the whole group: CMD gets it directly, and the
// supervisor must outlive CMD to hand its status on.
void ignore(int) {}

// Stops the group: SIGTERM, then SIGKILL (this process included) once the grace is over
// or CMD has gone, whichever is first.
[[noreturn]] void stop_group(pid_t child) {
  kill(-getpgrp(), SIGTERM);
  const timespec tick{0, 10'000'000};
  for (int waited = 0; waited < kRankGraceMs; waited += 10) {
    if (waitpid(child, nullptr, WNOHANG) == child) break;
    nanosleep(&tick, nullptr);
  }
  kill(-getpgrp(), SIGKILL);
  _exit(128 + SIGKILL);
}

}  // namespace

int supervise_rank(const std::vector<std::string>& argv) {
  if (argv.empty()) {
    std::fprintf(stderr, "testbed _rank: no command\n");
    return 127;
  }
  struct sigaction sa {};
  sa.sa_handler = on_parent_died;
  sigaction(kParentDied, &sa, nullptr);
  sa.sa_handler = ignore;
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);
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
  for (;;) {
    if (g_parent_died) stop_group(child);
    int status = 0;
    const pid_t r = waitpid(child, &status, 0);
    if (r == child) {
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
      continue;
    }
    if (r < 0 && errno != EINTR) return 127;
  }
}

}  // namespace testbed
