#include "controller/observe/link_metrics.h"

#include <fstream>
#include <sstream>

namespace testbed {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// Splits one CSV line; fields may be quoted (the error column).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace

void TimelineTail::add_line(const std::string& line) {
  // scheduled_s,applied_s,lag_ms,link,from,to,rate_bits_per_s,delay_us,loss,error,state
  const auto f = csv_fields(line);
  if (f.size() < 10 || f[0] == "scheduled_s" || !f[9].empty()) return;  // header, or failed
  const std::string state = f.size() > 10 ? f[10] : "";
  if (f[3].empty()) {  // a node's row (timeline_log.h)
    if (state == "crashed") ++fault_events_["node_crash"];
    if (state == "paused") ++fault_events_["node_pause"];
    if (state == "running") ++fault_events_["node_resume"];
    if (state == "restarted") ++fault_events_["node_restart"];
    return;
  }
  if (state == "up" || state == "down") {
    std::string& was = link_state_[{f[4], f[5]}];
    if (was.empty()) was = "up";  // every direction comes up carrying traffic
    if (state != was) ++fault_events_[state == "down" ? "link_down" : "link_up"];
    was = state;
  }
  try {
    Entry& e = entries_[{f[4], f[5]}];
    e.last_lag_s = std::stod(f[2]) / 1e3;
    ++e.changes;
  } catch (const std::exception&) {
    // a line cut short by a crash: not a change
  }
}

void TimelineTail::poll() {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return;
  in.seekg(static_cast<std::streamoff>(offset_));
  std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  offset_ += chunk.size();
  partial_ += chunk;
  size_t start = 0;
  for (size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1)
    add_line(partial_.substr(start, nl - start));
  partial_.erase(0, start);  // keep a line still being written
}

std::vector<DirectionSample> sample_links(const std::vector<LiveDirection>& directions,
                                          Kernel& kernel, const TimelineTail& timeline) {
  std::vector<DirectionSample> out;
  const ReadSnapshot snapshot(kernel);
  for (const auto& d : directions) {
    if (!d.local_tx) continue;  // sent, and counted, on another host
    DirectionSample s;
    s.node = d.from;
    s.peer = d.to;
    s.link = d.link;
    s.rate_bits_per_s = static_cast<double>(d.params.rate.bits_per_s);
    s.delay_s = static_cast<double>(d.params.delay.us) / 1e6;
    s.jitter_s = static_cast<double>(d.params.jitter.us) / 1e6;
    s.loss_ratio = d.params.loss.value;
    s.down = d.down;
    if (const auto state = kernel.shaping(d.ns, d.dev)) {
      s.transmit_bytes = state->sent_bytes;
      s.transmit_packets = state->sent_packets;
      s.dropped_packets = state->dropped_packets;
    }
    const auto it = timeline.entries().find({d.from, d.to});
    if (it != timeline.entries().end()) {
      s.last_lag_s = it->second.last_lag_s;
      s.scheduled_changes = it->second.changes;
    }
    out.push_back(s);
  }
  return out;
}

std::vector<MetricFamily> link_families(const std::string& lab,
                                        const std::vector<DirectionSample>& samples) {
  struct Spec {
    const char* name;
    const char* help;
    MetricType type;
    double (*value)(const DirectionSample&);
  };
  static const Spec kSpecs[] = {
      // Bytes, Prometheus's base unit (promtool insists); dashboards show bits.
      {"testbed_link_configured_bandwidth_bytes_per_second",
       "Configured rate of a link direction (node sends to peer).", MetricType::Gauge,
       [](const DirectionSample& s) { return s.rate_bits_per_s / 8; }},
      {"testbed_link_configured_delay_seconds", "Configured one-way delay of a link direction.",
       MetricType::Gauge, [](const DirectionSample& s) { return s.delay_s; }},
      {"testbed_link_configured_jitter_seconds", "Configured delay jitter of a link direction.",
       MetricType::Gauge, [](const DirectionSample& s) { return s.jitter_s; }},
      {"testbed_link_configured_loss_ratio", "Configured packet loss of a link direction (0-1).",
       MetricType::Gauge, [](const DirectionSample& s) { return s.loss_ratio; }},
      {"testbed_link_up", "1 while a link direction carries traffic, 0 while a fault has cut it.",
       MetricType::Gauge, [](const DirectionSample& s) { return s.down ? 0.0 : 1.0; }},
      {"testbed_link_transmit_bytes_total", "Bytes the sender's shaper passed, kernel counter.",
       MetricType::Counter,
       [](const DirectionSample& s) { return static_cast<double>(s.transmit_bytes); }},
      {"testbed_link_transmit_packets_total", "Packets the sender's shaper passed, kernel counter.",
       MetricType::Counter,
       [](const DirectionSample& s) { return static_cast<double>(s.transmit_packets); }},
      {"testbed_link_dropped_packets_total", "Packets the sender's shaper dropped (queue full).",
       MetricType::Counter,
       [](const DirectionSample& s) { return static_cast<double>(s.dropped_packets); }},
      {"testbed_link_background_bytes_total",
       "Cross traffic a link direction delivered (its receiver's counters); only in labs with "
       "cross traffic.",
       MetricType::Counter,
       [](const DirectionSample& s) {
         return static_cast<double>(s.background_bytes.value_or(0));
       }},
      {"testbed_link_schedule_lag_seconds",
       "How late the last scheduled change of a link direction took effect.", MetricType::Gauge,
       [](const DirectionSample& s) { return s.last_lag_s; }},
      {"testbed_link_schedule_changes_total",
       "Scheduled changes applied to a link direction so far.", MetricType::Counter,
       [](const DirectionSample& s) { return static_cast<double>(s.scheduled_changes); }},
  };
  std::vector<MetricFamily> out;
  for (const auto& spec : kSpecs) {
    MetricFamily f{spec.name, spec.help, spec.type, {}};
    const bool background = f.name == "testbed_link_background_bytes_total";
    for (const auto& s : samples) {
      if (background && !s.background_bytes) continue;  // no cross traffic, or not counted here
      ClientMetric m;
      m.label = {
          {"lab", lab}, {"link", std::to_string(s.link)}, {"node", s.node}, {"peer", s.peer}};
      if (spec.type == MetricType::Counter) {
        m.counter.value = spec.value(s);
      } else {
        m.gauge.value = spec.value(s);
      }
      f.metric.push_back(std::move(m));
    }
    if (!background || !f.metric.empty()) out.push_back(std::move(f));
  }
  // Per job: a series per job and direction, from the job's start to its end.
  MetricFamily jobs{"testbed_job_link_bytes_total",
                    "A job's own bytes a link direction delivered since the job began (its "
                    "packets marked by its control group, counted by the receiver).",
                    MetricType::Counter,
                    {}};
  for (const auto& s : samples) {
    for (const auto& [job, bytes] : s.job_bytes) {
      const auto cut = job.rfind('/');
      ClientMetric m;
      m.label = {{"lab", lab},
                 {"link", std::to_string(s.link)},
                 {"node", s.node},
                 {"peer", s.peer},
                 {"job", job.substr(0, cut)},
                 {"slot", cut == std::string::npos ? "" : job.substr(cut + 1)}};
      m.counter.value = static_cast<double>(bytes);
      jobs.metric.push_back(std::move(m));
    }
  }
  if (!jobs.metric.empty()) out.push_back(std::move(jobs));
  return out;
}

void LinkCollectable::update(std::vector<DirectionSample> samples) {
  std::lock_guard lock(mutex_);
  samples_ = std::move(samples);
}

void LinkCollectable::update_faults(FaultSnapshot faults) {
  std::lock_guard lock(mutex_);
  faults_ = std::move(faults);
}

std::vector<MetricFamily> LinkCollectable::Collect() const {
  last_collected_ = std::chrono::steady_clock::now().time_since_epoch().count();
  std::lock_guard lock(mutex_);
  auto out = link_families(lab_, samples_);
  for (auto& f : fault_families(lab_, faults_)) out.push_back(std::move(f));
  return out;
}

std::vector<MetricFamily> fault_families(const std::string& lab, const FaultSnapshot& faults) {
  // One series per node and state, 1 for the state it is in (the enum pattern of
  // kube-state-metrics' phase), so a dashboard can stack or filter them.
  MetricFamily states{"testbed_node_state",
                      "1 for the state a node's processes are in: running, paused, crashed.",
                      MetricType::Gauge,
                      {}};
  for (const auto& [node, state] : faults.node_states) {
    for (const char* s : {"running", "paused", "crashed"}) {
      ClientMetric m;
      m.label = {{"lab", lab}, {"node", node}, {"state", s}};
      m.gauge.value = state == s ? 1.0 : 0.0;
      states.metric.push_back(std::move(m));
    }
  }
  MetricFamily events{"testbed_fault_events_total",
                      "Faults applied so far, by kind (link_down, link_up, node_crash, "
                      "node_pause, node_resume, node_restart).",
                      MetricType::Counter,
                      {}};
  for (const char* kind :
       {"link_down", "link_up", "node_crash", "node_pause", "node_resume", "node_restart"}) {
    ClientMetric m;
    m.label = {{"lab", lab}, {"kind", kind}};
    const auto it = faults.events.find(kind);
    m.counter.value = it == faults.events.end() ? 0.0 : static_cast<double>(it->second);
    events.metric.push_back(std::move(m));
  }
  return {states, events};
}

std::map<std::string, uint64_t> transmitted_bytes(const std::vector<LiveDirection>& directions,
                                                  Kernel& kernel) {
  std::map<std::string, uint64_t> out;
  for (const auto& s : sample_links(directions, kernel, TimelineTail("")))
    out[s.node + ">" + s.peer] = s.transmit_bytes;
  return out;
}

std::map<std::string, Kernel::TrafficCount> received_traffic(
    const std::vector<LiveDirection>& directions, Kernel& kernel) {
  // One read of each receiving namespace's counters (a process start each), not one per
  // direction.
  std::map<std::string, std::map<std::string, Kernel::TrafficCount>> by_ns;
  std::map<std::string, Kernel::TrafficCount> out;
  for (const auto& d : directions) {
    if (!d.local_rx) continue;
    auto it = by_ns.find(d.rx_ns);
    if (it == by_ns.end()) it = by_ns.emplace(d.rx_ns, kernel.traffic_counts(d.rx_ns)).first;
    if (const auto c = it->second.find(d.rx_dev); c != it->second.end())
      out[d.from + ">" + d.to] = c->second;
  }
  return out;
}

std::map<std::string, uint64_t> bytes_sent_between(const std::map<std::string, uint64_t>& before,
                                                   const std::map<std::string, uint64_t>& after) {
  std::map<std::string, uint64_t> sent;
  for (const auto& [key, bytes] : after) {
    const auto b = before.find(key);
    sent[key] = bytes - (b == before.end() || b->second > bytes ? 0 : b->second);
  }
  return sent;
}

}  // namespace testbed
