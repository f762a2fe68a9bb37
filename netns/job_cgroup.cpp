#include "netns/job_cgroup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include "netns/kernel_error.h"

namespace testbed {
namespace {

std::optional<int> g_current_job;  // set_current_job: this process's job, if it runs one

bool is_dir(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::optional<std::string> cgroup2_mount() {
  // /proc/self/mounts: DEVICE MOUNTPOINT FSTYPE OPTIONS ...; the first cgroup2 mount.
  std::ifstream in("/proc/self/mounts");
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string device, mount, fstype;
    if (f >> device >> mount >> fstype && fstype == "cgroup2") return mount;
  }
  return std::nullopt;
}

JobGroup job_group(const std::string& mount, const std::string& ns, int slot,
                   bool node_has_v2_group) {
  const std::string job = "tbj" + std::to_string(slot);
  const std::string path = node_has_v2_group ? "/" + ns + "/" + job : "/" + ns + "-" + job;
  return {mount + path, path};
}

JobGroup job_group(const std::string& mount, const std::string& ns, int slot) {
  // On a hybrid host the unified hierarchy holds no node groups, so this is false there.
  return job_group(mount, ns, slot, is_dir(mount + "/" + ns));
}

bool is_job_group(const std::string& dir) {
  // "/.../NS/tbj3" or "/.../NS-tbj3", as job_group() names them.
  const auto at = dir.rfind("tbj");
  if (at == std::string::npos || at == 0 || at + 3 == dir.size()) return false;
  if (dir[at - 1] != '/' && dir[at - 1] != '-') return false;
  return dir.find_first_not_of("0123456789", at + 3) == std::string::npos;
}

bool any_node_group(const std::vector<std::string>& dirs) {
  for (const auto& d : dirs)
    if (!is_job_group(d)) return true;
  return false;
}

void create_job_group(const JobGroup& group) {
  if (mkdir(group.dir.c_str(), 0700) != 0) throw KernelError(errno, "mkdir(" + group.dir + ")");
}

void set_current_job(std::optional<int> slot) {
  g_current_job = slot;
}

std::vector<FileDescriptor> open_current_job_procs(const std::string& ns) {
  std::vector<FileDescriptor> out;
  if (!g_current_job) return out;
  // The mounts do not change while a process runs: read them once.
  static const std::optional<std::string> mount = cgroup2_mount();
  if (!mount) return out;
  const JobGroup group = job_group(*mount, ns, *g_current_job);
  if (!is_dir(group.dir)) return out;
  FileDescriptor fd(open((group.dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0) throw KernelError(errno, "open(" + group.dir + "/cgroup.procs)");
  out.push_back(std::move(fd));
  return out;
}

}  // namespace testbed
