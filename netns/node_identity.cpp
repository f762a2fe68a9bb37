#include "netns/node_identity.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "netns/crash_point.h"
#include "netns/job_cgroup.h"
#include "netns/node_cgroup.h"

namespace testbed {
namespace {

constexpr const char* kUtsDir = "/run/testbed-uts";
constexpr const char* kEtcNetns = "/etc/netns";

// Restores the calling thread's UTS namespace when the scope ends (UTS namespaces, like
// network namespaces, belong to a thread).
class UtsScope {
 public:
  UtsScope() : original_(open("/proc/thread-self/ns/uts", O_RDONLY | O_CLOEXEC)) {
    if (original_.get() < 0) throw_errno("open(/proc/thread-self/ns/uts)");
  }
  ~UtsScope() {
    if (setns(original_.get(), CLONE_NEWUTS) != 0) {
      // Going on would name the host after a node: stop here, as NetnsScope does.
      std::perror("testbed: setns back to the original UTS namespace");
      std::abort();
    }
  }
  UtsScope(const UtsScope&) = delete;
  UtsScope& operator=(const UtsScope&) = delete;

 private:
  FileDescriptor original_;
};

// The directory the UTS namespaces are bound in: our own tmpfs, shared as /run/netns is (an
// unmount here also reaches the copies that processes in private mount namespaces hold, so
// `down` can then unlink the file). Its placeholders are created and unlinked 1000 at a
// time; where /run is a disk's file system (as on our reference machine), each create took
// 0.1-0.2 ms there against 7 us on a tmpfs: 0.23 s of a 1000-node `up`
// (docs/benchmarks.md). A directory an older build left bound onto the disk is moved onto a
// tmpfs while it holds nothing.
void prepare_uts_dir() {
  static bool prepared = false;
  if (prepared) return;
  const std::string dir = kUtsDir;
  if (mkdir(kUtsDir, 0755) == 0) {
    if (chmod(kUtsDir, 0755) != 0) throw_errno("chmod(" + dir + ")");
  } else if (errno != EEXIST) {
    throw_errno("mkdir(" + dir + ")");
  }
  // Two controllers preparing at once must not both mount (one would hide or detach the
  // other's placeholders): whoever locks the directory second finds the tmpfs there. The
  // lock is on the directory as opened, which an older bind of itself shares its inode with.
  const FileDescriptor lock(open(kUtsDir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (lock.get() < 0 || flock(lock.get(), LOCK_EX) != 0) throw_errno("flock(" + dir + ")");
  struct statfs fs {};
  if (statfs(kUtsDir, &fs) != 0) throw_errno("statfs(" + dir + ")");
  if (fs.f_type != TMPFS_MAGIC && std::filesystem::is_empty(dir)) {
    // EINVAL: not a mount point (no older bind to undo).
    if (umount2(kUtsDir, MNT_DETACH) != 0 && errno != EINVAL) throw_errno("umount2(" + dir + ")");
    // 0755 as /run/netns; the files are empty placeholders, so a small size suffices.
    if (mount("testbed-uts", kUtsDir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              "mode=0755,size=1m") != 0)
      throw_errno("mount(tmpfs on " + dir + ")");
  }
  make_shared_mount_point(kUtsDir);
  prepared = true;
}

}  // namespace

std::string uts_namespace_path(const std::string& ns) {
  return std::string(kUtsDir) + "/" + ns;
}

std::string hosts_file_path(const std::string& ns) {
  return std::string(kEtcNetns) + "/" + ns + "/hosts";
}

uint64_t create_uts_namespace(const std::string& ns, const std::string& hostname) {
  prepare_uts_dir();
  const std::string path = uts_namespace_path(ns);
  const int fd = open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
  if (fd < 0) throw_errno("open(" + path + ", O_CREAT|O_EXCL)");
  close(fd);
  crash_point("identity:UTS placeholder created");
  try {
    UtsScope back;
    if (unshare(CLONE_NEWUTS) != 0) throw_errno("unshare(CLONE_NEWUTS) for " + ns);
    if (sethostname(hostname.data(), hostname.size()) != 0)
      throw_errno("sethostname(" + hostname + ")");
    if (mount("/proc/thread-self/ns/uts", path.c_str(), "none", MS_BIND, nullptr) != 0)
      throw_errno("mount(bind UTS namespace onto " + path + ")");
  } catch (...) {
    unlink(path.c_str());
    throw;
  }
  return uts_namespace_inode(ns);
}

uint64_t uts_namespace_inode(const std::string& ns) {
  struct stat file {
  }, dir{};
  if (stat(uts_namespace_path(ns).c_str(), &file) != 0 || stat(kUtsDir, &dir) != 0) return 0;
  // An unbound placeholder (creation cut short) lives on the directory's own file system;
  // a bound namespace is on nsfs. Only the latter has an identity.
  return file.st_dev == dir.st_dev ? 0 : file.st_ino;
}

void delete_uts_namespace(const std::string& ns) {
  const std::string path = uts_namespace_path(ns);
  if (umount2(path.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT)
    throw_errno("umount2(" + path + ")");
  if (unlink(path.c_str()) != 0 && errno != ENOENT) throw_errno("unlink(" + path + ")");
}

namespace {

std::string hosts_dir(const std::string& ns) {
  return std::string(kEtcNetns) + "/" + ns;
}
// The temporary the hosts file is written to before its rename: inside the node's own
// directory, so a controller killed between the two leaves it where remove_hosts_file looks.
std::string hosts_temp_path(const std::string& ns) {
  return hosts_file_path(ns) + ".tmp";
}

// 0755 whatever the umask (the controller's is 077): like /etc/hosts, which the file in it
// stands in for, programs that run in the node as another user must read it.
void make_hosts_dir(const std::string& ns) {
  for (const std::string& d : {std::string(kEtcNetns), hosts_dir(ns)}) {
    if (mkdir(d.c_str(), 0755) == 0) {
      if (chmod(d.c_str(), 0755) != 0) throw_errno("chmod(" + d + ")");
    } else if (errno != EEXIST) {
      throw_errno("mkdir(" + d + ")");
    }
  }
}

}  // namespace

void write_hosts_file(const std::string& ns, const std::string& text) {
  make_hosts_dir(ns);
  const std::string path = hosts_file_path(ns), tmp = hosts_temp_path(ns);
  {
    FileDescriptor out(
        open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (out.get() < 0) throw_errno("open(" + tmp + ")");
    if (fchmod(out.get(), 0644) != 0) throw_errno("fchmod(" + tmp + ")");
    crash_point("identity:hosts.tmp created");
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = write(out.get(), text.data() + done, text.size() - done);
      if (n < 0) throw_errno("write(" + tmp + ")");
      done += static_cast<size_t>(n);
    }
  }
  crash_point("identity:hosts.tmp written");
  if (rename(tmp.c_str(), path.c_str()) != 0) throw_errno("rename(" + tmp + ")");
}

void link_hosts_file(const std::string& ns, const std::string& from_ns) {
  make_hosts_dir(ns);
  const std::string from = hosts_file_path(from_ns), path = hosts_file_path(ns),
                    tmp = hosts_temp_path(ns);
  // Linked under the temporary name, then renamed over: an earlier file is replaced whole,
  // and a controller killed between the two leaves the link where remove_hosts_file looks.
  if (unlink(tmp.c_str()) != 0 && errno != ENOENT) throw_errno("unlink(" + tmp + ")");
  if (link(from.c_str(), tmp.c_str()) != 0) throw_errno("link(" + from + ", " + tmp + ")");
  crash_point("identity:hosts.tmp linked");
  if (rename(tmp.c_str(), path.c_str()) != 0) throw_errno("rename(" + tmp + ")");
}

void remove_hosts_file(const std::string& ns) {
  // The temporary too: a controller killed between writing and renaming it left it here,
  // and the directory would not go while it is in it.
  for (const std::string& file : {hosts_file_path(ns), hosts_temp_path(ns)}) {
    if (unlink(file.c_str()) != 0 && errno != ENOENT) throw_errno("unlink(" + file + ")");
  }
  const std::string dir = hosts_dir(ns);
  if (rmdir(dir.c_str()) != 0 && errno != ENOENT) throw_errno("rmdir(" + dir + ")");
  // Left empty, /etc/netns says nothing; anything another tool keeps there stays
  // (rmdir fails on a directory that is not empty).
  rmdir(kEtcNetns);
}

NodeIdentity open_node_identity(const std::string& ns) {
  NodeIdentity id;
  if (ns.empty()) return id;
  const std::string uts = uts_namespace_path(ns);
  if (access(uts.c_str(), F_OK) == 0) {
    id.uts = FileDescriptor(open(uts.c_str(), O_RDONLY | O_CLOEXEC));
    if (id.uts.get() < 0) throw_errno("open(" + uts + ")");
  }
  const std::string hosts = hosts_file_path(ns);
  if (access(hosts.c_str(), R_OK) == 0) id.hosts_file = hosts;
  // Its compute (node_cgroup.h), when the lab limits it. A host with no usable hierarchy
  // has no node groups either.
  // The hierarchies' mounts do not change while a process runs: read them once, not at
  // every launch (a bring-up starts a process per node).
  static const std::optional<CgroupLayout> layout = []() -> std::optional<CgroupLayout> {
    try {
      return host_cgroup_layout();
    } catch (const std::runtime_error&) {
      return std::nullopt;
    }
  }();
  if (layout) id.cgroup_procs = open_node_cgroup_procs(*layout, ns);
  // The job's group after the node's: on a v2 host it is the node's child, and the last
  // write is where the process stays (job_cgroup.h).
  for (auto& fd : open_current_job_procs(ns)) id.cgroup_procs.push_back(std::move(fd));
  return id;
}

}  // namespace testbed
