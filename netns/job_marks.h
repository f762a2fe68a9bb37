// Each job's own bytes on each link (docs/jobs.md). Marks do not cross namespaces (the
// kernel clears skb->mark when a packet leaves one over a veth), and a forwarding node no
// longer knows which socket sent a packet, so the job is written into the packet itself:
// where it is sent, iptables' cgroup match finds the job's group (job_cgroup.h) and sets a
// DSCP code point of the job's own; every node counts what arrives over each of its links
// per code point, forwarded or delivered, and everything else after it.
//
// The code points are RFC 2474's pool 2 (xxxx11, "for experimental or local use"): 16 of
// them, so at most 16 jobs at once per lab. The testbed's shaping classifies by address,
// not by DSCP, so the mark changes nothing in how a packet is carried; a job that sets its
// own DSCP has it replaced while it runs under the testbed.
//
// Two chains in the mangle table of each node's namespace, made by the first job there and
// left to go with the namespace: TBJM in OUTPUT (one rule per job: cgroup -> DSCP) and TBJC
// in INPUT and FORWARD (per device: a rule counting everything, kept for the namespace's
// life, then a counting rule per job, removed with the job).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "netns/nft_mangle_rules.h"

namespace testbed {

constexpr int kMaxJobs = 16;  // pool 2's code points
// Slot 1..kMaxJobs -> its code point: 3, 7, 11, ... 63 (slot 3 is 0x0b).
int job_dscp(int slot);

// What arrived over one device since the chain was made.
struct JobArrivals {
  uint64_t packets = 0, bytes = 0;  // every IP packet, any job's or none (IP bytes, after GRO)
  std::map<int, uint64_t> slot_packets, slot_bytes;  // each job's, by slot
};

class JobMarks {
 public:
  virtual ~JobMarks() = default;
  // In namespace `ns`: marks what the processes of cgroup `path` send with `slot`'s code
  // point, and counts it per device of `devs` (the node's link ends).
  virtual void add(const std::string& ns, const std::vector<std::string>& devs, int slot,
                   const std::string& path) = 0;
  // Removes `slot`'s rules; a namespace that is gone is not an error.
  virtual void remove(const std::string& ns, int slot) = 0;
  // By device; empty when the namespace or its chain is absent.
  virtual std::map<std::string, JobArrivals> arrivals(const std::string& ns) = 0;
};

// The real one: iptables, as the cross traffic's counters (traffic_counters.cpp). Where
// iptables is iptables-nft, only the rules' writing is left to iptables-restore: the chains
// are read and a job's rules deleted over nf_tables' netlink from this process
// (nft_mangle_rules.h), so that a job's start, each of the exporter's samples and its end
// start no process per namespace but the one that writes.
class IptablesJobMarks : public JobMarks {
 public:
  IptablesJobMarks();
  void add(const std::string& ns, const std::vector<std::string>& devs, int slot,
           const std::string& path) override;
  void remove(const std::string& ns, int slot) override;
  std::map<std::string, JobArrivals> arrivals(const std::string& ns) override;

 private:
  bool chain_exists(const std::string& ns, const char* chain) const;
  bool nft_;  // iptables is iptables-nft: read and delete over nf_tables' netlink
};

// What devices `devs` of namespace `ns` (a node's link ends) received so far, as IP bytes
// (each frame's 14 bytes of Ethernet header taken off): the links' own counters, against
// which the jobs' are checked. Only the link ends: with netem, a receiver's IFB device
// counts every packet a second time. 0 when the namespace is gone.
uint64_t received_ip_bytes(const std::string& ns, const std::vector<std::string>& devs);
// Pure: /proc/net/dev's text -> the same.
uint64_t received_ip_bytes_from(const std::string& proc_net_dev,
                                const std::vector<std::string>& devs);

// Pure: `iptables -t mangle -S TBJC -v` text -> arrivals by device.
std::map<std::string, JobArrivals> parse_job_counters(const std::string& text);
// Pure: TBJC's rules, as iptables prints them or as nf_tables gives them -> the same.
std::vector<MangleRule> job_counting_rules(const std::string& text);
std::map<std::string, JobArrivals> job_arrivals(const std::vector<MangleRule>& rules);

}  // namespace testbed
