// Named network namespaces compatible with iproute2: /run/netns/NAME bind-mounts a
// namespace, so `ip netns exec NAME ...` works on what the testbed creates.
#pragma once

#include <cstdint>
#include <string>

#include "netns/kernel_error.h"

namespace testbed {

// An owned file descriptor; closed on destruction, never throws.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& o) noexcept : fd_(o.release()) {}
  FileDescriptor& operator=(FileDescriptor&& o) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// Makes `dir` (created when missing) a shared mount point: namespaces bound in it then
// show in every mount namespace, and their unmounts reach the private ones that are its
// slaves. As iproute2 does for /run/netns.
void make_shared_mount_point(const std::string& dir);

std::string netns_path(const std::string& name);
bool netns_exists(const std::string& name);
// Inode of the namespace bound at /run/netns/NAME (0 when absent): its identity, so that
// cleanup never removes a same-named namespace somebody else made later.
uint64_t netns_inode(const std::string& name);
FileDescriptor open_netns(const std::string& name);

// Creates NAME, failing if it exists. Leaves the calling thread in its own namespace.
uint64_t create_netns(const std::string& name);
// Unmounts and unlinks NAME; the kernel frees the namespace when no process holds it.
void delete_netns(const std::string& name);

// Moves the calling thread into a namespace for the scope's lifetime. Network namespaces
// are per thread, so this is safe in multithreaded programs.
// The network namespace this process runs in.
FileDescriptor open_own_netns();

class NetnsScope {
 public:
  explicit NetnsScope(int target_fd);
  NetnsScope(const NetnsScope&) = delete;
  NetnsScope& operator=(const NetnsScope&) = delete;
  // Restores the original namespace; aborts if it cannot, since continuing in the wrong
  // namespace would act on objects the testbed does not own.
  ~NetnsScope();

 private:
  FileDescriptor original_;
};

// For `testbed exec`: enters NAME for good, with a private /sys showing its interfaces as
// `ip netns exec` does. Call in a single-threaded process right before exec.
void enter_netns_for_exec(const std::string& name);

}  // namespace testbed
