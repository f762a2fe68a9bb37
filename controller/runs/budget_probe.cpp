#include "controller/runs/budget_probe.h"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "controller/health/cpu_load.h"
#include "controller/lab/lab_state.h"
#include "controller/runs/child_process.h"
#include "netns/cpu_allowance.h"
#include "netns/libnl_kernel.h"
#include "netns/process_stat.h"

namespace testbed {
namespace {

constexpr const char* kLab = "tbbudget";
constexpr int kIperfPort = 5201;  // iperf3's own; inside the lab's namespaces, no clash

// user + system time of the lab's delay-line processes, in seconds.
double delay_line_cpu_s(const LabState& state) {
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  double s = 0;
  for (const auto& p : state.processes) {
    if (p.argv.empty() || p.argv[0].find("testbed-delayline") == std::string::npos) continue;
    const auto stat = read_process_stat(p.pid);
    if (!stat) continue;
    s += static_cast<double>(stat->user_ticks + stat->system_ticks) / tick;
  }
  return s;
}

// Packets both nodes received on the link: each one crossed the delay line (or netem) of
// its direction, data and ACKs alike. Read from the link ends' own counters (libnl), so
// that either backend is counted the same way.
uint64_t received_packets(const Plan& plan) {
  LibnlKernel kernel;
  uint64_t n = 0;
  const PlannedLink& link = plan.links.at(0);
  const auto ns_of = [&](const std::string& node) {
    for (const auto& p : plan.nodes)
      if (p.name == node) return p.ns;
    throw std::runtime_error("the probe's lab has no node " + node);
  };
  for (const auto& [node, dev] : {std::pair{link.a, link.if_a}, std::pair{link.b, link.if_b}}) {
    const auto got = kernel.received(ns_of(node), dev);
    if (!got) throw std::runtime_error("no device " + dev + " in node " + node);
    n += got->packets;
  }
  return n;
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::ostringstream s;
  s << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
  return s.str();
}

// Takes the probe's lab down however the measurement ends.
struct LabDown {
  std::string testbed;
  ~LabDown() {
    std::atomic<int> none{0};
    run_child(
        {testbed, "down", kLab}, [](const std::string&) {}, none);
  }
};

}  // namespace

EmulationBudget measure_budget(const BudgetProbeOptions& options, std::ostream& log,
                               const std::atomic<int>& stop) {
  const std::string testbed = program_path("testbed");
  char dir_template[] = "/tmp/tbbudget-XXXXXX";  // 0700: the profile is ours alone
  if (mkdtemp(dir_template) == nullptr) throw std::runtime_error("cannot make a temporary dir");
  const std::string dir = dir_template;
  const std::string profile = dir + "/tbbudget.yaml";
  {
    std::ofstream out(profile);
    out << "lab: " << kLab << "\nnodes: {a: {}, b: {}}\nlinks:\n  - endpoints: [a, b]\n"
        << "    bandwidth: " << options.bandwidth << "\n    delay: " << options.delay << "\n";
  }
  const auto silent = [](const std::string&) {};
  log << "bringing up " << kLab << ": a -> b, " << options.bandwidth << ", " << options.delay
      << std::endl;
  const ChildResult up = run_child({testbed, "up", profile, "--prometheus", "off"}, silent, stop);
  std::filesystem::remove_all(dir);
  if (up.status != 0) throw std::runtime_error("up " + std::string(kLab) + " failed: " + up.err);
  LabDown down{testbed};
  const LabStore store;
  const LabState state = store.load(kLab);
  const std::string server_address = state.plan.nodes.at(1).address.str();

  std::atomic<int> server_stop{0};
  ChildResult server;
  std::thread server_thread([&] {
    server = run_child({testbed, "exec", "--lab", kLab, "b", "--", "iperf3", "-s", "-1", "-p",
                        std::to_string(kIperfPort)},
                       silent, server_stop);
  });
  const auto stop_server = [&] {
    server_stop = SIGTERM;
    server_thread.join();
  };
  // iperf3's server listens within a moment; the client retries until it does.
  const std::string seconds = std::to_string(static_cast<int>(options.seconds));
  const CpuAllowance allowance = read_cpu_allowance();
  std::optional<CpuTimes> cpu0;
  double lines0 = 0;
  uint64_t packets0 = 0;
  ChildResult client;
  for (int attempt = 0; attempt < 20 && !stop; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    // The counters first and the CPU last before, the reverse after: the `ip` children
    // that read the counters stay out of the CPU measured.
    packets0 = received_packets(state.plan);
    lines0 = delay_line_cpu_s(state);
    cpu0 = read_proc_stat(allowance.cpus);
    log << "iperf3: " << options.flows << " flows for " << seconds << " s" << std::endl;
    client = run_child(
        {testbed, "exec", "--lab", kLab, "a", "--", "iperf3", "-c", server_address, "-p",
         std::to_string(kIperfPort), "-P", std::to_string(options.flows), "-t", seconds, "-J"},
        silent, stop);
    if (client.status == 0) break;
    if (client.out.find("Connection refused") == std::string::npos) break;
  }
  const auto cpu1 = read_proc_stat(allowance.cpus);
  const double lines1 = delay_line_cpu_s(state);
  const uint64_t packets1 = received_packets(state.plan);
  stop_server();
  if (stop) throw std::runtime_error("interrupted");
  if (client.status != 0 || !cpu0 || !cpu1)
    throw std::runtime_error("iperf3 across " + std::string(kLab) + " failed: " + client.out +
                             client.err);
  const auto report = nlohmann::json::parse(client.out);
  const auto& end = report.at("end");
  BudgetMeasurement m;
  m.seconds = end.at("sum_received").at("seconds").get<double>();
  m.bits = end.at("sum_received").at("bytes").get<double>() * 8;
  m.packets = packets1 - packets0;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  m.busy_cpu_s = static_cast<double>(cpu1->busy - cpu0->busy) / tick;
  m.delay_line_cpu_s = lines1 - lines0;
  // iperf3's own: its percentages are of one CPU over its run, sender and receiver.
  const auto& util = end.at("cpu_utilization_percent");
  m.traffic_cpu_s = (util.at("host_total").get<double>() + util.at("remote_total").get<double>()) /
                    100 * m.seconds;
  m.cpus = allowance.effective();
  m.cpu_scope = allowance.describe();
  m.backend = state.plan.backend == ImpairmentBackend::kNetem ? "netem" : "delayline";
  m.measured_at = now_utc();
  log << std::fixed << std::setprecision(1) << "measured: " << m.bits / m.seconds / 1e6
      << " Mbit/s, " << static_cast<double>(m.packets) / m.seconds << " packets/s, "
      << m.busy_cpu_s / m.seconds << " CPUs busy" << std::endl;
  return budget_from_measurement(m);
}

}  // namespace testbed
