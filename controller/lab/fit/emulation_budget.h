// What this machine's emulation carries while healthy, as `testbed doctor --budget`
// measured it: packets per second through the delay lines (or netem) per CPU the lab may
// use, with the whole system's CPU counted (delay lines, shapers, the senders' and
// receivers' stacks, the traffic's own processes). Kept in a file, so that every later run
// fits itself to it without measuring again; the machine's speed drifts, so the file
// records when it was measured, and `doctor --budget` measures it afresh.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace testbed {

// The busy share of the lab's CPUs a run is fitted to. The health check flags a run whose
// CPUs were saturated (idle under 5% of an interval) more than half of it; the default main
// job, measured at a median busy share of 0.82, was saturated 22% of its run. Fitting the
// mean to 0.6 leaves the bursts (a sync's first round trips) room under the threshold.
constexpr double kFitBusyShare = 0.6;

struct EmulationBudget {
  // The system's CPU per packet a delay line (or netem) carried, in microseconds, and
  // what that makes per CPU at kFitBusyShare.
  double cpu_us_per_packet = 0;
  double packets_per_cpu_s = 0;
  // The bits a packet carried in the measurement (TCP bulk flows on a shaped link), for
  // the bits/s figure people read.
  double bits_per_packet = 0;
  // Of the measurement's CPU: the delay lines' share, and the traffic's own processes'
  // (what agents cost for the same bytes).
  double delay_line_cpu_share = 0, traffic_cpu_share = 0;
  double cpus = 0;        // the CPUs the measurement had (CpuAllowance::effective)
  std::string cpu_scope;  // CpuAllowance::describe
  std::string backend;    // "delayline" or "netem"
  std::string measured_at;

  // At `cpus` CPUs (a run's own allowance, which may differ from the measurement's).
  double packets_per_s(double at_cpus) const { return packets_per_cpu_s * at_cpus; }
  double bits_per_s(double at_cpus) const { return packets_per_s(at_cpus) * bits_per_packet; }
};

// What a measurement saw (runs/budget_probe.h): bulk TCP across a delayed link, over a
// stretch of wall time, with the CPU the lab's CPUs spent meanwhile.
struct BudgetMeasurement {
  double seconds = 0;
  uint64_t packets = 0;   // the delay lines released (data and ACKs)
  double bits = 0;        // the traffic's goodput over `seconds`, in bits
  double busy_cpu_s = 0;  // every process and the kernel, on the lab's CPUs
  double delay_line_cpu_s = 0;
  double traffic_cpu_s = 0;  // the traffic's own processes (iperf3's both ends)
  double cpus = 0;
  std::string cpu_scope, backend, measured_at;
};

// The budget from a measurement: its CPU per packet, and the packets a CPU carries at
// kFitBusyShare. Throws std::runtime_error when it saw no packets or no CPU (nothing to
// divide by: the link carried nothing).
EmulationBudget budget_from_measurement(const BudgetMeasurement& m);

nlohmann::json budget_to_json(const EmulationBudget& b);
// Throws std::runtime_error naming the field that is missing or out of range.
EmulationBudget budget_from_json(const nlohmann::json& j);

// Where the budget is kept: $TESTBED_BUDGET_FILE, else /var/lib/testbed/budget.json (it
// outlives a reboot, unlike /run: the machine is the same machine).
std::string budget_path();
// The kept budget; nullopt when none was measured. A file that cannot be read throws,
// naming it (a corrupt budget must not pass for "none").
std::optional<EmulationBudget> load_budget(const std::string& path);
// Written whole (a temporary file renamed), readable by root only, like the lab's state.
void save_budget(const EmulationBudget& b, const std::string& path);

}  // namespace testbed
