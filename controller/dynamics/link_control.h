// Changing a live link direction in place: the rate through a TBF change (no qdisc
// delete, no queue flush), delay and jitter through the receiver's netem or the delay line's
// control socket, loss through that netem or the iptables statistic rule. Shared by the timeline
// and `testbed link set`; current values are kept in the lab's current.json for `status`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controller/dynamics/current_links.h"
#include "controller/lab/plan.h"
#include "controller/topology/topology.h"
#include "netns/kernel.h"
#include "netns/libnl_kernel.h"

namespace testbed {

struct LiveDirection {
  size_t link = 0;
  bool b2a = false;
  std::string from, to, ns, dev, rx_ns, rx_dev;
  int queue = -1;  // NFQUEUE number (delay-line backend), -1 when the direction has no hook
  uint64_t stream = 0;
  DirectionParams params;             // current values
  bool down = false;                  // cut by a fault (kernel.h, set_cut) until it is up
  RateShaping shaping;                // as configured now
  std::optional<IngressNetem> netem;  // netem backend: the receiver's, once there is one
  // Whether this host holds the sending (shaping) and the receiving (delay line, loss) end.
  // Both, on one box; on a slice of a lab spread over hosts, a link between hosts has its
  // sender on one and its receiver on the other, and each host changes only its own end.
  bool local_tx = true, local_rx = true;
  std::string key() const { return std::to_string(link) + (b2a ? ":b2a" : ":a2b"); }
};

// The directions of a lab, as planned (plan.json), with current values overlaid; its
// nodes' namespaces are the ones on this host.
std::vector<LiveDirection> live_directions(const Plan& plan, const CurrentLinks& current);

// Sends "set QUEUE DELAY JITTER" to a delay line; a fake records them in tests.
class DelayLineControl {
 public:
  virtual ~DelayLineControl() = default;
  virtual void set_delay(const std::string& rx_node, uint16_t queue, int64_t delay_us,
                         int64_t jitter_us) = 0;
};

// The real one: datagrams to /run/testbed/LAB/delayline-NODE.sock.
class SocketDelayLineControl : public DelayLineControl {
 public:
  explicit SocketDelayLineControl(std::string lab_dir) : lab_dir_(std::move(lab_dir)) {}
  void set_delay(const std::string& rx_node, uint16_t queue, int64_t delay_us,
                 int64_t jitter_us) override;

 private:
  std::string lab_dir_;
};

std::string delay_line_socket(const std::string& lab_dir, const std::string& node);

class LinkChanger {
 public:
  LinkChanger(Kernel& kernel, DelayLineControl& delay_lines, ImpairmentBackend backend)
      : kernel_(kernel), delay_lines_(delay_lines), backend_(backend) {}
  // Applies the fields `change` sets; throws KernelError (or std::runtime_error when the
  // direction has no delay hook to change) and leaves `d` as it was on failure.
  void apply(LiveDirection& d, const ScheduleChange& change);

 private:
  Kernel& kernel_;
  DelayLineControl& delay_lines_;
  ImpairmentBackend backend_;
};

// The LinkChanger of a live lab, with what it acts through: this host's kernel, and the
// lab's delay lines by their control sockets; the backend is the one `up` chose.
class LabLinkChanger {
 public:
  LabLinkChanger(const std::string& lab_dir, const Plan& plan);
  LinkChanger& get() { return changer_; }

 private:
  LibnlKernel kernel_;
  SocketDelayLineControl delay_lines_;
  LinkChanger changer_;
};

// current.json (current_links.h), under a lock so the timeline and `link set` can both
// update it. Reading throws ContractError, naming the direction and field, when the file
// is not as written.
void record_current(const std::string& lab_dir, const std::vector<const LiveDirection*>& changed);
inline void record_current(const std::string& lab_dir, const LiveDirection& d) {
  record_current(lab_dir, std::vector<const LiveDirection*>{&d});
}
CurrentLinks read_current(const std::string& lab_dir);

}  // namespace testbed
