#include "netns/open_files_limit.h"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>

namespace testbed {
namespace {

// What the process started with, taken before the first raise; read by children between
// fork and exec, so plain data written once.
struct rlimit original_limit {};
bool raised = false;

rlim_t kernel_nr_open() {
  std::ifstream in("/proc/sys/fs/nr_open");
  unsigned long long n = 0;
  // 1048576: the kernel's default fs.nr_open, when it cannot be read.
  return (in >> n) ? static_cast<rlim_t>(n) : static_cast<rlim_t>(1048576);
}

}  // namespace

void ensure_open_files_limit(size_t wanted) {
  struct rlimit now {};
  if (getrlimit(RLIMIT_NOFILE, &now) != 0) return;
  const rlim_t want = static_cast<rlim_t>(wanted);
  if (now.rlim_cur == RLIM_INFINITY || now.rlim_cur >= want) return;
  if (!raised) original_limit = now;
  struct rlimit next = now;
  // At least double, so that a lab growing one namespace at a time raises it rarely.
  next.rlim_cur = std::max(want, now.rlim_cur * 2);
  if (now.rlim_max != RLIM_INFINITY && next.rlim_cur > now.rlim_max) {
    next.rlim_max = std::min(std::max(next.rlim_cur, now.rlim_max), kernel_nr_open());
    // Not root (or past fs.nr_open): as far as the hard limit goes.
    if (setrlimit(RLIMIT_NOFILE, &next) != 0) next.rlim_max = now.rlim_max;
    next.rlim_cur = std::min(next.rlim_cur, next.rlim_max);
  }
  if (setrlimit(RLIMIT_NOFILE, &next) == 0) raised = true;
}

void restore_open_files_limit_in_child() {
  if (raised) setrlimit(RLIMIT_NOFILE, &original_limit);
}

}  // namespace testbed
