// The job marks' fake (job_marks.h): the rules as data, the counts as the test sets them,
// and a namespace where adding fails, for the callers' rollback.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "netns/job_marks.h"
#include "netns/kernel.h"

namespace testbed {

class FakeJobMarks : public JobMarks {
 public:
  struct Rule {
    std::vector<std::string> devs;
    std::string path;
  };
  std::map<std::string, std::map<int, Rule>> rules;                  // by namespace, then slot
  std::map<std::string, std::map<std::string, JobArrivals>> counts;  // by namespace, device
  std::string fail_in;                                               // add() throws there

  void add(const std::string& ns, const std::vector<std::string>& devs, int slot,
           const std::string& path) override {
    if (ns == fail_in) throw KernelError("fake: iptables-restore failed in " + ns);
    rules[ns][slot] = {devs, path};
  }
  // As iptables does, a job's counts go with its rules; the totals stay.
  void remove(const std::string& ns, int slot) override {
    rules[ns].erase(slot);
    for (auto& [dev, a] : counts[ns]) {
      a.slot_bytes.erase(slot);
      a.slot_packets.erase(slot);
    }
  }
  std::map<std::string, JobArrivals> arrivals(const std::string& ns) override { return counts[ns]; }
  // `bytes` more of `slot`'s (0: of no job) arrive over `dev` of `ns`.
  void arrive(const std::string& ns, const std::string& dev, int slot, uint64_t bytes) {
    JobArrivals& a = counts[ns][dev];
    a.bytes += bytes;
    ++a.packets;
    if (slot > 0 && rules[ns].count(slot)) {
      a.slot_bytes[slot] += bytes;
      ++a.slot_packets[slot];
    }
  }
};

}  // namespace testbed
