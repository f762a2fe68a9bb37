#include "netns/crash_point.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace testbed {
namespace {

struct CrashSettings {
  long stop_at = 0;             // TESTBED_CRASH_AT; 0: never
  const char* trace = nullptr;  // TESTBED_CRASH_TRACE; nullptr: no trace
  bool any() const { return stop_at > 0 || trace != nullptr; }
};

CrashSettings g_settings;  // inert until enable_crash_points()

}  // namespace

void enable_crash_points() {
  if (const char* v = std::getenv("TESTBED_CRASH_AT")) g_settings.stop_at = std::atol(v);
  if (const char* v = std::getenv("TESTBED_CRASH_TRACE")) {
    static std::string trace = v;  // kept: the variable goes below
    g_settings.trace = trace.c_str();
  }
  // Taken out of the environment: the processes this one starts (the exporter, the
  // timeline, agents) count no points of their own, so the Nth point is this process's.
  unsetenv("TESTBED_CRASH_AT");
  unsetenv("TESTBED_CRASH_TRACE");
}

void crash_point(const char* name) {
  const CrashSettings& s = g_settings;
  if (!s.any()) return;
  // Points are passed from the controller's threads in turn; the count is still atomic so
  // that a stray concurrent pass never numbers two points alike.
  static std::atomic<long> passed{0};
  const long n = ++passed;
  if (s.trace != nullptr) {
    // One write of a whole line, appended: a test reads complete lines only.
    const int fd = open(s.trace, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) {
      char line[256];
      const int len = std::snprintf(line, sizeof line, "%s\n", name);
      if (len > 0) (void)!write(fd, line, std::min<size_t>(size_t(len), sizeof line - 1));
      close(fd);
    }
  }
  if (n == s.stop_at) raise(SIGSTOP);
}

}  // namespace testbed
