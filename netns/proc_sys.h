// Kernel parameters of one network namespace (/proc/sys/net/...), read and written through
// a procfs instance of their own.
//
// /proc/sys shows each network namespace its own files under the same names, and the
// kernel keeps every file looked up in a namespace in one dentry cache: the lookup of
// net/ipv4/tcp_rmem walks a hash chain holding that name for every namespace looked up
// before (proc_sys_compare discards the others'), so setting a parameter in each of N
// namespaces costs N^2. perf put 66% of a 10,000-leaf star's `up` in proc_sys_compare. A
// procfs instance made for one namespace (fsopen/fsmount: a mount attached nowhere) has
// dentries of its own, freed with it.
#pragma once

#include <string>

#include "netns/named_netns.h"

namespace testbed {

class ProcSys {
 public:
  // A new procfs instance, for the network namespace the calling thread is in when a file
  // is opened. Where the kernel refuses one (no new mount API, or no privilege for it),
  // the shared /proc: slower at thousands of namespaces, the same files.
  ProcSys();
  // Throws KernelError naming `key` (relative to /proc/sys) and `where`.
  void write(const std::string& key, const std::string& value, const std::string& where) const;
  std::string read(const std::string& key, const std::string& where) const;
  // Whether the key exists in the calling thread's namespace (IPv6 may be off).
  bool exists(const std::string& key) const;

 private:
  FileDescriptor root_;  // the instance's root, or /proc
};

}  // namespace testbed
