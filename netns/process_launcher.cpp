#include "process_launcher.h"

#include <sched.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/process/v2/posix/vfork_launcher.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>
#include <cerrno>
#include <cstdlib>
#include <system_error>

namespace testbed {
namespace {

namespace bp = boost::process::v2;

// Runs in the vfork child, before the standard streams are set and exec: a new session,
// then the node's namespace. The child shares the parent's memory, so nothing here
// allocates or touches shared state.
struct EnterNamespace {
  int ns_fd;
  bool new_session;
  template <typename Launcher>
  bp::error_code on_exec_setup(Launcher&, const bp::filesystem::path&, const char* const*) {
    if (new_session && setsid() < 0) return {errno, bp::system_category()};
    if (ns_fd >= 0 && setns(ns_fd, CLONE_NEWNET) != 0) return {errno, bp::system_category()};
    return {};
  }
};

std::string resolve(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (access(name.c_str(), X_OK) == 0) return name;
    throw std::system_error(errno, std::generic_category(), "cannot run " + name);
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
  throw std::system_error(ENOENT, std::generic_category(), "cannot run " + name);
}

}  // namespace

pid_t launch(const LaunchSpec& spec) {
  const std::string program = resolve(spec.argv.at(0));
  const std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
  // The process handle wants an executor; nothing here runs it (children are reaped by
  // pid, by their callers).
  boost::asio::io_context context;
  bp::error_code ec;
  const auto fd = [](int given, int inherited) { return given >= 0 ? given : inherited; };
  bp::process child = bp::posix::vfork_launcher()(
      context, ec, program, args, EnterNamespace{spec.ns_fd, spec.new_session},
      bp::process_stdio{fd(spec.stdin_fd, STDIN_FILENO), fd(spec.stdout_fd, STDOUT_FILENO),
                        fd(spec.stderr_fd, STDERR_FILENO)});
  if (ec) throw std::system_error(ec.value(), std::generic_category(), "cannot start " + program);
  const pid_t pid = child.id();
  child.detach();  // it outlives this handle: the caller waits for or records it
  return pid;
}

}  // namespace testbed
