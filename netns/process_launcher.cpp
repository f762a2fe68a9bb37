#include "netns/process_launcher.h"

#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/process/v2/posix/vfork_launcher.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>
#include <cerrno>
#include <cstdlib>
#include <system_error>

#include "netns/kernel_error.h"
#include "netns/open_files_limit.h"

namespace testbed {
namespace {

namespace bp = boost::process::v2;

// Runs in the vfork child, before the standard streams are set and exec: a new session,
// then the node's namespace. The child shares the parent's memory, so nothing here
// allocates or touches shared state.
struct EnterNamespace {
  const int* cgroup_fds;
  size_t cgroup_count;
  int ns_fd;
  bool new_session;
  int uts_fd;
  const char* hosts_file;  // nullptr: none
  int parent_death_signal;
  int cwd_fd;
  template <typename Launcher>
  bp::error_code on_exec_setup(Launcher&, const bp::filesystem::path&, const char* const*) {
    const auto failed = [] { return bp::error_code{errno, bp::system_category()}; };
    restore_open_files_limit_in_child();  // the host's usual limit, not the controller's
    // "0" names the writer itself, in both cgroup versions.
    for (size_t i = 0; i < cgroup_count; ++i)
      if (write(cgroup_fds[i], "0", 1) != 1) return failed();
    if (parent_death_signal != 0 && prctl(PR_SET_PDEATHSIG, parent_death_signal) != 0)
      return failed();
    if (new_session && setsid() < 0) return failed();
    if (cwd_fd >= 0 && fchdir(cwd_fd) != 0) return failed();
    if (ns_fd >= 0 && setns(ns_fd, CLONE_NEWNET) != 0) return failed();
    if (uts_fd >= 0 && setns(uts_fd, CLONE_NEWUTS) != 0) return failed();
    if (hosts_file != nullptr) {
      // A private mount namespace that still receives the host's unmounts (a slave), so
      // `down` can remove what this process sees; then the node's hosts file and a sysfs
      // of the node's own network namespace.
      if (unshare(CLONE_NEWNS) != 0) return failed();
      if (mount("", "/", "none", MS_SLAVE | MS_REC, nullptr) != 0) return failed();
      if (mount(hosts_file, "/etc/hosts", "none", MS_BIND, nullptr) != 0) return failed();
      if (umount2("/sys", MNT_DETACH) == 0 && mount("sysfs", "/sys", "sysfs", 0, nullptr) != 0)
        return failed();
    }
    return {};
  }
};

// The child's environment, when the caller gives one: the launcher passes `env` to
// execve. (Boost's own process_environment needs Boost.Process's compiled part, which
// Debian's header-only 1.81 does not ship.)
struct SetEnvironment {
  const char* const* env;  // null-terminated, or nullptr: the caller's
  template <typename Launcher>
  bp::error_code on_setup(Launcher& launcher, const bp::filesystem::path&, const char* const*) {
    if (env != nullptr) launcher.env = env;
    return {};
  }
};

std::string resolve(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (access(name.c_str(), X_OK) == 0) return name;
    throw KernelError(errno, "cannot run " + name);
  }
  const char* path = std::getenv("PATH");
  const std::string dirs =
      path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  throw KernelError(ENOENT, "cannot run " + name);
}

}  // namespace

std::string find_program(const std::string& name) {
  return resolve(name);
}

pid_t launch(const LaunchSpec& spec) {
  const std::string program = resolve(spec.argv.at(0));
  const std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
  // The process handle wants an executor; nothing here runs it (children are reaped by
  // pid, by their callers).
  boost::asio::io_context context;
  bp::error_code ec;
  const auto fd = [](int given, int inherited) { return given >= 0 ? given : inherited; };
  EnterNamespace enter{spec.cgroup_fds.data(),
                       spec.cgroup_fds.size(),
                       spec.ns_fd,
                       spec.new_session,
                       spec.uts_fd,
                       spec.hosts_file.empty() ? nullptr : spec.hosts_file.c_str(),
                       spec.parent_death_signal,
                       spec.cwd_fd};
  bp::process_stdio stdio{fd(spec.stdin_fd, STDIN_FILENO), fd(spec.stdout_fd, STDOUT_FILENO),
                          fd(spec.stderr_fd, STDERR_FILENO)};
  std::vector<const char*> env;
  if (spec.env) {
    for (const auto& kv : *spec.env) env.push_back(kv.c_str());
    env.push_back(nullptr);
  }
  bp::process child = bp::posix::vfork_launcher()(context, ec, program, args, enter, stdio,
                                                  SetEnvironment{spec.env ? env.data() : nullptr});
  if (ec) throw KernelError(ec.value(), "cannot start " + program);
  const pid_t pid = child.id();
  child.detach();  // it outlives this handle: the caller waits for or records it
  return pid;
}

}  // namespace testbed
