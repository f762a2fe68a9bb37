// The delay lines' hooks in a namespace's mangle table, written over nf_tables' netlink
// (libnftnl) in one transaction from this process. iptables-restore did the same at the
// cost of a process start per namespace: 6.9 s of a 1000-node `up`'s 20 s on the reference
// machine. The rules are the very expressions iptables-nft writes for them, so `iptables -S`
// reads them back and iptables-restore deletes them as if it had written them.
#pragma once

#include <map>
#include <set>
#include <string>

#include "netns/kernel.h"

namespace testbed {

// Whether this machine's iptables is iptables-nft (its rules are nf_tables rules). With the
// legacy iptables, rules written over nf_tables would be invisible to it: the caller keeps
// to iptables-restore then.
bool iptables_is_nft();

// The chain holding one receiving device's loss and NFQUEUE rules, in the mangle table's
// PREROUTING: TB-<dev>. Named after the device (at most 15 characters, so within
// iptables' 28), and so ours by construction: the namespace is ours.
std::string delay_chain_of(const std::string& dev);

// In the mangle table of the namespace open as `netns_fd` (named `ns` in errors): for each
// device of `hooks` its chain TB-<dev>, created or flushed, dropping `loss` of the packets
// and queueing the rest to `queue`; and for the devices in `new_devs` the PREROUTING rule
// that sends what arrives on the device to that chain. All or nothing. Throws KernelError.
void write_nft_delay_hooks(int netns_fd, const std::string& ns, const Kernel::IngressHooks& hooks,
                           const std::set<std::string>& new_devs);

}  // namespace testbed
