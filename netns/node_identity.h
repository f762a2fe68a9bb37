// What makes a node look like a host to programs run in it: a hostname of its own and a
// hosts file naming every node of the lab. Without them, a job that does
// getaddrinfo(gethostname()) (gloo, NCCL, MPI) gets the host's loopback address, and node
// names resolve to nothing.
//
// - The hostname lives in a UTS namespace per node, kept alive by a bind mount at
//   /run/testbed-uts/NS (as iproute2 keeps network namespaces at /run/netns/NS).
// - The hosts file is /etc/netns/NS/hosts, the path `ip netns exec NS` binds over
//   /etc/hosts, so that command sees it too. The testbed's own launchers bind it the same
//   way, in a private mount namespace of the started process.
//
// Both are keyed by the network namespace's name, so a launcher given only that name finds
// them; a node without them (a lab from an older version) simply runs without.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netns/named_netns.h"

namespace testbed {

std::string uts_namespace_path(const std::string& ns);
std::string hosts_file_path(const std::string& ns);

// Creates the node's UTS namespace with `hostname`, bound at uts_namespace_path(ns);
// fails if something is bound there already. Returns its inode: its identity for cleanup.
uint64_t create_uts_namespace(const std::string& ns, const std::string& hostname);
// The inode of the UTS namespace bound for `ns`, 0 when there is none.
uint64_t uts_namespace_inode(const std::string& ns);
// Unmounts and unlinks it; absent is not an error.
void delete_uts_namespace(const std::string& ns);

// Writes /etc/netns/NS/hosts (creating the directories), replacing any earlier one.
void write_hosts_file(const std::string& ns, const std::string& text);
// Gives `ns` the very file `from_ns` has (a hard link, replacing any earlier one): one
// file for a lab whose nodes all read the same text. At 10,000 nodes a copy each was
// 10,000 files of 10,000 lines, 4 GB written; a link each is a directory entry.
void link_hosts_file(const std::string& ns, const std::string& from_ns);
// Removes the file and its directory, and /etc/netns when that is left empty.
void remove_hosts_file(const std::string& ns);

// What a launcher needs to give a process the node's identity; empty members where the
// node has none.
struct NodeIdentity {
  FileDescriptor uts;      // open UTS namespace, or -1
  std::string hosts_file;  // a file to bind over /etc/hosts, or ""
  // The cgroup.procs of the node's control groups (node_cgroup.h), or none.
  std::vector<FileDescriptor> cgroup_procs;
  std::vector<int> cgroup_fds() const {
    std::vector<int> fds;
    for (const auto& fd : cgroup_procs) fds.push_back(fd.get());
    return fds;
  }
};
NodeIdentity open_node_identity(const std::string& ns);

}  // namespace testbed
