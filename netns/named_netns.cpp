#include "netns/named_netns.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "netns/node_identity.h"

namespace testbed {
namespace {

constexpr const char* kNetnsDir = "/run/netns";

// As iproute2 does: make /run/netns a shared mount point so that namespaces bound in it
// show up in every mount namespace (containers, `ip netns exec` children).
void prepare_netns_dir() {
  static bool prepared = false;
  if (prepared) return;
  make_shared_mount_point(kNetnsDir);
  prepared = true;
}

}  // namespace

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.release();
  }
  return *this;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) close(fd_);
}

void make_shared_mount_point(const std::string& dir) {
  // 0755 whatever the umask (the controller's is 077), as iproute2 makes /run/netns: other
  // users' `ip netns list` keeps working, and what is inside is only readable.
  if (mkdir(dir.c_str(), 0755) == 0) {
    if (chmod(dir.c_str(), 0755) != 0) throw_errno("chmod(" + dir + ")");
  } else if (errno != EEXIST) {
    throw_errno("mkdir(" + dir + ")");
  }
  if (mount("", dir.c_str(), "none", MS_SHARED | MS_REC, nullptr) == 0) return;
  if (errno != EINVAL) throw_errno("mount(" + dir + ", MS_SHARED)");
  // EINVAL: not yet a mount point. Bind it onto itself, then share it.
  if (mount(dir.c_str(), dir.c_str(), "none", MS_BIND | MS_REC, nullptr) != 0)
    throw_errno("mount(" + dir + ", MS_BIND)");
  if (mount("", dir.c_str(), "none", MS_SHARED | MS_REC, nullptr) != 0)
    throw_errno("mount(" + dir + ", MS_SHARED)");
}

void throw_errno(const std::string& call) {
  throw KernelError(errno, call);
}

std::string netns_path(const std::string& name) {
  return std::string(kNetnsDir) + "/" + name;
}

bool netns_exists(const std::string& name) {
  return netns_inode(name) != 0;
}

uint64_t netns_inode(const std::string& name) {
  struct stat st {};
  if (stat(netns_path(name).c_str(), &st) != 0) return 0;
  return st.st_ino;
}

FileDescriptor open_netns(const std::string& name) {
  const int fd = open(netns_path(name).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_errno("open(" + netns_path(name) + ")");
  return FileDescriptor(fd);
}

FileDescriptor open_own_netns() {
  const int fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_errno("open(/proc/thread-self/ns/net)");
  return FileDescriptor(fd);
}

NetnsScope::NetnsScope(int target_fd) {
  original_ = open_own_netns();
  if (setns(target_fd, CLONE_NEWNET) != 0) throw_errno("setns");
}

NetnsScope::~NetnsScope() {
  if (setns(original_.get(), CLONE_NEWNET) != 0) {
    std::perror("testbed: setns back to the original network namespace");
    std::abort();
  }
}

uint64_t create_netns(const std::string& name) {
  prepare_netns_dir();
  const std::string path = netns_path(name);
  const int fd = open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
  if (fd < 0) throw_errno("open(" + path + ", O_CREAT|O_EXCL)");
  close(fd);
  try {
    const int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (self < 0) throw_errno("open(/proc/thread-self/ns/net)");
    NetnsScope back(self);  // entering our own namespace is a no-op; leaving restores it
    close(self);
    if (unshare(CLONE_NEWNET) != 0) throw_errno("unshare(CLONE_NEWNET) for " + name);
    if (mount("/proc/thread-self/ns/net", path.c_str(), "none", MS_BIND, nullptr) != 0) {
      throw_errno("mount(bind namespace onto " + path + ")");
    }
  } catch (...) {
    unlink(path.c_str());
    throw;
  }
  return netns_inode(name);
}

void delete_netns(const std::string& name) {
  const std::string path = netns_path(name);
  if (umount2(path.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
    throw_errno("umount2(" + path + ")");
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) throw_errno("unlink(" + path + ")");
}

void enter_netns_for_exec(const std::string& name) {
  FileDescriptor fd = open_netns(name);
  const NodeIdentity identity = open_node_identity(name);
  // Into the node's compute first (node_cgroup.h): "0" names this process.
  for (const auto& procs : identity.cgroup_procs)
    if (write(procs.get(), "0", 1) != 1) throw_errno("join the control group of " + name);
  if (setns(fd.get(), CLONE_NEWNET) != 0) throw_errno("setns(" + name + ")");
  if (identity.uts.get() >= 0 && setns(identity.uts.get(), CLONE_NEWUTS) != 0)
    throw_errno("setns(" + uts_namespace_path(name) + ")");
  // A private mount namespace with a fresh sysfs, so /sys/class/net lists the node's own
  // interfaces, and the node's hosts file over /etc/hosts: what `ip netns exec` does.
  if (unshare(CLONE_NEWNS) != 0) throw_errno("unshare(CLONE_NEWNS)");
  if (mount("", "/", "none", MS_SLAVE | MS_REC, nullptr) != 0) throw_errno("mount(/, MS_SLAVE)");
  if (umount2("/sys", MNT_DETACH) == 0) {
    if (mount(name.c_str(), "/sys", "sysfs", 0, nullptr) != 0) throw_errno("mount(sysfs)");
  }
  if (!identity.hosts_file.empty() &&
      mount(identity.hosts_file.c_str(), "/etc/hosts", "none", MS_BIND, nullptr) != 0)
    throw_errno("mount(bind " + identity.hosts_file + " over /etc/hosts)");
}

}  // namespace testbed
