#include "netns/open_files_limit.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace testbed {
namespace {

rlimit current() {
  rlimit r{};
  getrlimit(RLIMIT_NOFILE, &r);
  return r;
}

// Whether this process holds CAP_SYS_RESOURCE, which raising a hard limit takes (root in a
// container may lack it: this project's machines' root does).
bool may_raise_hard_limit() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("CapEff:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> 24) & 1;
  }
  return false;
}

// Runs in a child process, so the limits this test changes are the child's alone.
template <typename F>
int in_child(F body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

TEST(OpenFilesLimit, ASoftLimitBelowWhatIsWantedIsRaisedAndChildrenGetItBack) {
  EXPECT_EQ(in_child([] {
              rlimit low = current();
              if (low.rlim_max != RLIM_INFINITY && low.rlim_max < 512) return 10;  // no room
              low.rlim_cur = 64;
              if (setrlimit(RLIMIT_NOFILE, &low) != 0) return 11;
              ensure_open_files_limit(300);
              if (current().rlim_cur < 300) return 1;
              ensure_open_files_limit(100);  // never lowered
              if (current().rlim_cur < 300) return 2;
              restore_open_files_limit_in_child();
              if (current().rlim_cur != 64) return 3;
              return 0;
            }),
            0);
}

TEST(OpenFilesLimit, ALimitLargeEnoughIsLeftAsItIs) {
  EXPECT_EQ(in_child([] {
              const rlimit before = current();
              ensure_open_files_limit(16);
              const rlimit after = current();
              return after.rlim_cur == before.rlim_cur && after.rlim_max == before.rlim_max ? 0 : 1;
            }),
            0);
}

TEST(OpenFilesLimit, PastTheHardLimitOnlyCapSysResourceRaisesIt) {
  EXPECT_EQ(in_child([] {
              rlimit low = current();
              low.rlim_cur = 64;
              low.rlim_max = 128;  // lowering the hard limit is allowed to anyone
              if (setrlimit(RLIMIT_NOFILE, &low) != 0) return 11;
              ensure_open_files_limit(1000);
              const rlimit r = current();
              if (may_raise_hard_limit()) return r.rlim_cur >= 1000 && r.rlim_max >= 1000 ? 0 : 1;
              return r.rlim_cur == 128 && r.rlim_max == 128 ? 0 : 2;  // up to the hard limit
            }),
            0);
}

}  // namespace
}  // namespace testbed
