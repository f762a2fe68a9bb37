// testbed _exporter LAB --port P [--all-addresses]: the lab's Prometheus exporter, started
// by `up` in the host's namespace and ended by `down`. It serves /metrics on 127.0.0.1:P
// (P 0: a port the kernel picks, written to DIR/exporter.ready with the /ready page's
// nonce; 0.0.0.0:P with --all-addresses: a pod's exporter, for the cluster's Prometheus), so
// scraping never touches the shaped links; samples the links once a second while the lab is
// watched (also appending them to link_samples.csv for `testbed report`); and applies the
// events `testbed train` sends to DIR/metrics.sock. Not for people to call; it is listed
// nowhere.
#include <prometheus/exposer.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <zmq.hpp>

#include "agent/transport/private_ipc.h"
#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/dynamics/link_control.h"
#include "controller/dynamics/node_faults.h"
#include "controller/health/sample_spacing.h"
#include "controller/lab/fit/fit_decision.h"
#include "controller/lab/lab_state.h"
#include "controller/observe/compute_metrics.h"
#include "controller/observe/health_metrics.h"
#include "controller/observe/job_accounting.h"
#include "controller/observe/link_metrics.h"
#include "controller/observe/metrics_sink.h"
#include "controller/observe/prometheus_server.h"
#include "controller/observe/train_metrics.h"
#include "netns/job_cgroup.h"
#include "netns/libnl_kernel.h"
#include "netns/process_stat.h"
#include "netns/stop_signals.h"

namespace testbed::cli {
namespace {

constexpr auto kSampleEvery = std::chrono::seconds(1);  // as often as Prometheus scrapes
// A sample of a large lab costs a share of a core (a netlink dump per namespace): spaced
// to ten times its CPU, so sampling holds at most a tenth of a core, but at most 10 s
// apart, so that `testbed report`'s rates still have a point every 10 s. The 10,000-leaf
// star's samples took about 1.8 s of CPU each, so there it holds 18% (docs/benchmarks.md).
constexpr int kSampleCostShare = 10;
constexpr auto kSampleAtMost = std::chrono::seconds(10);
// The links are sampled while the lab is watched: /metrics read, or a run's event received,
// within this window. A lab at rest then costs no CPU: at 1000 nodes one sample of 4000
// directions (a netlink dump per namespace) took 23% of a core, every second, for no
// reader. A minute covers any scrape interval in use and a run's slowest iterations; the
// first scrape after a rest sees the last sample, a counter that then moves on.
constexpr auto kWatchWindow = std::chrono::seconds(60);

double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

int run_exporter(const Argv& argv) {
  Args args(argv, {"all-addresses"}, {"port"});
  args.at_most(1, "testbed _exporter LAB --port P [--all-addresses]");
  StopSignals stop_signals;  // netns/stop_signals.h
  LabStore store;
  const std::string lab = args.positional(0);
  const std::string dir = store.dir(lab);
  const LabState state = store.load(lab, LabStore::PlanSteps::kSkipped);  // it reads only
  const Plan& plan = state.plan;

  auto registry = std::make_shared<prometheus::Registry>();
  auto links = std::make_shared<LinkCollectable>(lab);
  TrainMetrics train(*registry, lab);
  HealthMetrics health(*registry, lab);
  // The lab's fit to this machine (controller/lab/fit): every rate on the dashboards is
  // already this times the profile's, and so is every model a run trains on it.
  prometheus::BuildGauge()
      .Name("testbed_fit_factor")
      .Help(
          "What the lab's rates (and its runs' model bytes) were scaled by to fit this "
          "machine's emulation budget; 1 when not scaled.")
      .Register(*registry)
      .Add({{"lab", lab}, {"mode", plan.fit.is_null() ? "off" : plan.fit.value("mode", "off")}})
      .Set(fit_factor_of(plan.fit));
  // Loopback only, unless `up --metrics 0.0.0.0:PORT` asked for more (a pod's exporter).
  prometheus::Exposer exposer((args.flag("all-addresses") ? "0.0.0.0:" : "127.0.0.1:") +
                              args.option("port").value_or("0"));
  exposer.RegisterCollectable(registry);
  exposer.RegisterCollectable(links);
  // The nodes' compute, when the lab made control groups (docs/compute.md).
  std::shared_ptr<ComputeCollectable> compute;
  if (any_node_group(state.cgroups)) {
    std::vector<std::pair<std::string, std::string>> nodes;
    for (const auto& n : plan.nodes) nodes.emplace_back(n.name, n.ns);
    compute = std::make_shared<ComputeCollectable>(lab, host_cgroup_layout(), std::move(nodes));
    exposer.RegisterCollectable(compute);
  }
  // A page that answers once the server listens, with a nonce: `up` reads the port the
  // kernel gave (--port 0) and the nonce from exporter.ready, which only root can write, and
  // checks the page at that port shows it, so no other process can pose as this exporter.
  // Not /metrics: a read of it counts as someone watching.
  auto ready = std::make_shared<prometheus::Registry>();
  const std::string nonce = random_hex128();
  prometheus::BuildGauge()
      .Name("testbed_exporter_ready")
      .Help("1 once the exporter serves; its nonce proves it is the lab's")
      .Register(*ready)
      .Add({{"lab", lab}, {"nonce", nonce}})
      .Set(1);
  exposer.RegisterCollectable(ready, "/ready");
  const auto ports = exposer.GetListeningPorts();
  if (ports.empty()) throw std::runtime_error("the exporter's HTTP server listens on no port");
  {
    const std::string tmp = dir + "/exporter.ready.tmp";
    std::ofstream(tmp) << nlohmann::json{{"port", ports.front()}, {"nonce", nonce}}.dump() << "\n";
    std::filesystem::rename(tmp, dir + "/exporter.ready");
  }

  zmq::context_t context;
  zmq::socket_t events(context, zmq::socket_type::pull);
  events.set(zmq::sockopt::linger, 0);
  bind_private_ipc(events, metrics_socket(dir));

  LibnlKernel kernel;
  IptablesJobMarks job_marks;
  TimelineTail timeline(dir + "/timeline.csv");
  std::ofstream csv(dir + "/link_samples.csv", std::ios::app);
  // background_bytes: the cross traffic the direction delivered (empty in a lab without).
  csv << "unix_s,link,node,peer,configured_bits_per_s,transmit_bytes,background_bytes\n";
  auto next_sample = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_event{};  // none yet
  bool first = true;  // the lab's first sample is taken unwatched, so /metrics has links
  while (!stop_signals.stopping()) {
    const auto now = std::chrono::steady_clock::now();
    const bool watched = now - std::max(last_event, links->last_collected()) < kWatchWindow;
    if (now >= next_sample && (watched || first)) {
      first = false;
      const auto cpu_before = thread_cpu();
      timeline.poll();
      try {
        const auto directions = live_directions(plan, read_current(dir));
        auto samples = sample_links(directions, kernel, timeline);
        if (!plan.traffic.empty()) {
          const auto received = received_traffic(directions, kernel);
          for (auto& s : samples) {
            const auto it = received.find(s.node + ">" + s.peer);
            if (it != received.end()) s.background_bytes = it->second.bytes;
          }
        }
        // The jobs running now, each direction's bytes of each (job_accounting.h).
        if (const auto jobs = running_jobs(dir); !jobs.empty()) {
          std::map<std::string, std::map<std::string, JobArrivals>> by_ns;
          for (const auto& d : directions) {
            if (!d.local_rx) continue;
            if (!by_ns.count(d.rx_ns)) by_ns[d.rx_ns] = job_marks.arrivals(d.rx_ns);
            const auto a = by_ns[d.rx_ns].find(d.rx_dev);
            if (a == by_ns[d.rx_ns].end()) continue;
            for (auto& s : samples) {
              if (s.node != d.from || s.peer != d.to) continue;
              for (const auto& j : jobs) {
                const auto b = a->second.slot_bytes.find(j.slot);
                s.job_bytes[j.label + "/" + std::to_string(j.slot)] =
                    b == a->second.slot_bytes.end() ? 0 : b->second;
              }
            }
          }
        }
        const double t = unix_seconds();
        for (const auto& s : samples) {
          csv << std::fixed << std::setprecision(3) << t << "," << s.link << "," << s.node << ","
              << s.peer << "," << std::setprecision(0) << s.rate_bits_per_s << ","
              << s.transmit_bytes << ","
              << (s.background_bytes ? std::to_string(*s.background_bytes) : "") << "\n";
        }
        csv.flush();
        links->update(std::move(samples));
        links->update_faults({lab_node_states(store, lab, plan), timeline.fault_events()});
      } catch (const std::exception& e) {
        // `down` is removing the namespaces under us: keep the last snapshot, say why.
        std::cerr << "testbed _exporter: sampling links: " << e.what() << "\n";
      }
      next_sample = now + spaced_by_cost(thread_cpu() - cpu_before, kSampleCostShare, kSampleEvery,
                                         kSampleAtMost);
    }
    if (now >= next_sample) next_sample = now + kSampleEvery;  // unwatched: look again then
    // The events' socket and the stop signals' pipe in one poll: a SIGTERM wakes it at once,
    // whichever thread the kernel delivered it to (netns/stop_signals.h), so the wait runs
    // to the next sample. The signal may also interrupt the poll itself (EINTR, thrown by
    // cppzmq): that is the stop, not an error.
    zmq::pollitem_t items[] = {{events.handle(), 0, ZMQ_POLLIN, 0},
                               {nullptr, stop_signals.fd(), ZMQ_POLLIN, 0}};
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(next_sample - now);
    int ready = 0;
    try {
      ready = zmq::poll(items, 2, std::max(wait, std::chrono::milliseconds(0)));
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) throw;
    }
    if (ready <= 0 || !(items[0].revents & ZMQ_POLLIN)) continue;
    const auto received = std::chrono::steady_clock::now();
    // A run that starts on a lab at rest is sampled at once, and its end too: a run shorter
    // than a second still has its links' bytes before and after it (`testbed run`'s report).
    if (received - std::max(last_event, links->last_collected()) >= kWatchWindow)
      next_sample = received;
    last_event = received;
    zmq::message_t msg;
    while (events.recv(msg, zmq::recv_flags::dontwait)) {
      try {
        const auto event = nlohmann::json::parse(msg.to_string());
        if (event.value("event", "") == "run_end") next_sample = received;
        train.apply(event);
        health.apply(event);
      } catch (const std::exception& e) {
        std::cerr << "testbed _exporter: bad event: " << e.what() << "\n";
      }
    }
  }
  // Ended here, not by returning: the HTTP server's stop (prometheus-cpp's civetweb) waits
  // out its listening thread's poll. Nothing is left to write but the samples, flushed
  // here; the kernel closes the sockets, and `down` removes the lab's directory. Before,
  // SIGTERM surfaced as an error from the poll (exit status 1) and the server's stop took
  // 2 s of every `down` (measured: SIGTERM to exit 1.96 s, the delay lines 0.01 s).
  csv.flush();
  _exit(kExitOk);
}

}  // namespace testbed::cli
