#include "controller/dynamics/link_control.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>

#include "controller/dynamics/lab_json_file.h"
#include "controller/lab/plan.h"
#include "controller/lab/planner.h"
#include "controller/topology/schedule.h"
#include "netns/named_netns.h"

namespace testbed {

std::string delay_line_socket(const std::string& lab_dir, const std::string& node) {
  return lab_dir + "/delayline-" + node + ".sock";
}

void SocketDelayLineControl::set_delay(const std::string& rx_node, uint16_t queue, int64_t delay_us,
                                       int64_t jitter_us) {
  const std::string path = delay_line_socket(lab_dir_, rx_node);
  FileDescriptor fd(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) throw_errno("socket(AF_UNIX)");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  const std::string msg = "set " + std::to_string(queue) + " " + std::to_string(delay_us) + " " +
                          std::to_string(jitter_us);
  if (sendto(fd.get(), msg.data(), msg.size(), 0, reinterpret_cast<sockaddr*>(&addr), sizeof addr) <
      0) {
    throw_errno("sendto(" + path + ")");
  }
}

LabLinkChanger::LabLinkChanger(const std::string& lab_dir, const Plan& plan)
    : delay_lines_(lab_dir), changer_(kernel_, delay_lines_, plan.backend) {}

std::vector<LiveDirection> live_directions(const Plan& plan, const CurrentLinks& current) {
  std::vector<LiveDirection> out;
  const std::set<std::string> here = plan_namespaces(plan);
  for (const auto& l : plan.links) {
    for (const bool b2a : {false, true}) {
      const PlannedDirection& p = b2a ? l.b2a : l.a2b;
      LiveDirection d;
      d.link = l.index;
      d.b2a = b2a;
      d.from = p.from;
      d.to = p.to;
      d.ns = p.ns;
      d.dev = p.dev;
      d.rx_ns = p.rx_ns;
      d.rx_dev = p.rx_dev;
      d.local_tx = here.count(d.ns) > 0;
      d.local_rx = here.count(d.rx_ns) > 0;
      d.queue = p.queue;
      d.stream = p.stream;
      // The planned values (its profile's, queue aside: the planner sized it into `shaping`).
      d.params = p.params;
      d.shaping = p.shaping;
      d.netem = p.netem;
      if (const auto it = current.find(d.key()); it != current.end()) {
        const CurrentDirection& now = it->second;
        d.params.rate = now.rate;
        d.params.delay = now.delay;
        d.params.jitter = now.jitter;
        d.params.loss = now.loss;
        d.down = now.down;
        d.shaping = now.shaping;
        if (now.netem) d.netem = now.netem;
      }
      out.push_back(d);
    }
  }
  return out;
}

void LinkChanger::apply(LiveDirection& d, const ScheduleChange& change) {
  DirectionParams next = d.params;
  if (change.loss && d.params.burst_loss) {
    // The profile refuses a schedule of loss on such a direction; this is `link set`.
    throw std::runtime_error("link " + d.from + "->" + d.to +
                             " has gilbert_elliott loss from its profile; its loss is the "
                             "model's and cannot be set live");
  }
  if (change.rate) next.rate = *change.rate;
  if (change.delay) next.delay = *change.delay;
  if (change.loss) next.loss = *change.loss;
  const bool delay_changed = next.delay != d.params.delay;
  const bool loss_changed = next.loss != d.params.loss;

  RateShaping shaping = d.shaping;
  if (backend_ == ImpairmentBackend::kNetem) {
    if (next.rate != d.params.rate) {
      shaping = size_shaping(next);
      if (d.local_tx) kernel_.set_shaping(d.ns, d.dev, shaping);
    }
    // The receiver's netem, made on the first delay or loss a direction gets. Its limit
    // follows the rate too (planner.cpp, size_netem).
    if (d.netem || next.delay.us > 0 || next.loss.value > 0 || next.jitter.us > 0) {
      const IngressNetem n{d.netem ? d.netem->ifb : ifb_name(d.link, d.from), size_netem(next)};
      if (!(d.netem && *d.netem == n) && d.local_rx) {
        kernel_.set_ingress_netem(d.rx_ns, d.rx_dev, n);
      }
      d.netem = n;
    }
  } else {
    if ((delay_changed || loss_changed) && d.queue < 0 && d.local_rx) {
      throw std::runtime_error("link " + d.from + "->" + d.to +
                               " has no delay hook (it had no delay, jitter or loss when the lab "
                               "came up); declare one in the profile");
    }
    if (next.rate != d.params.rate) {
      shaping = size_shaping(next);
      if (d.local_tx) kernel_.set_shaping(d.ns, d.dev, shaping);
    }
    // A receiving end on another host is changed there, by that host's own timeline.
    if (delay_changed && d.local_rx) {
      delay_lines_.set_delay(d.to, static_cast<uint16_t>(d.queue), next.delay.us, next.jitter.us);
    }
    if (loss_changed && d.local_rx) {
      kernel_.set_ingress_delay(d.rx_ns, d.rx_dev,
                                IngressDelay{static_cast<uint16_t>(d.queue), next.loss.value});
    }
  }
  // Last: a cut drops the queue the changes above may have resized. Only the sender cuts;
  // a receiving end on another host learns of it from current.json.
  if (change.down && *change.down != d.down && d.local_tx)
    kernel_.set_cut(d.ns, d.dev, *change.down, shaping);
  if (change.down) d.down = *change.down;
  d.params = next;
  d.shaping = shaping;
}

void record_current(const std::string& lab_dir, const std::vector<const LiveDirection*>& changed) {
  LabFileLock lock(lab_dir + "/current.lock");
  const std::string path = lab_dir + "/current.json";
  CurrentLinks all = current_links_from_json(read_json_object(path), path);
  for (const LiveDirection* d : changed)
    all[d->key()] = {d->params.rate, d->params.delay, d->params.jitter, d->params.loss,
                     d->down,        d->shaping,      d->netem};
  replace_json(path, to_json(all));
}

CurrentLinks read_current(const std::string& lab_dir) {
  LabFileLock lock(lab_dir + "/current.lock");
  const std::string path = lab_dir + "/current.json";
  return current_links_from_json(read_json_object(path), path);
}

}  // namespace testbed
