#include "controller/lab/fit/emulation_budget.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace testbed {
namespace {

double positive(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number())
    throw std::runtime_error(std::string("'") + key + "' is missing or not a number");
  const double x = j[key].get<double>();
  if (!(x > 0) || !std::isfinite(x))
    throw std::runtime_error(std::string("'") + key + "' must be above 0");
  return x;
}

double share(const nlohmann::json& j, const char* key) {
  const double x = j.value(key, 0.0);
  if (!(x >= 0 && x <= 1)) throw std::runtime_error(std::string("'") + key + "' must be 0..1");
  return x;
}

}  // namespace

EmulationBudget budget_from_measurement(const BudgetMeasurement& m) {
  if (m.packets == 0 || !(m.busy_cpu_s > 0) || !(m.cpus > 0))
    throw std::runtime_error("the measurement carried no packets or used no CPU");
  EmulationBudget b;
  b.cpu_us_per_packet = m.busy_cpu_s * 1e6 / static_cast<double>(m.packets);
  b.packets_per_cpu_s = kFitBusyShare * 1e6 / b.cpu_us_per_packet;
  b.bits_per_packet = m.bits / static_cast<double>(m.packets);
  b.delay_line_cpu_share = std::min(1.0, m.delay_line_cpu_s / m.busy_cpu_s);
  b.traffic_cpu_share = std::min(1.0, m.traffic_cpu_s / m.busy_cpu_s);
  b.cpus = m.cpus;
  b.cpu_scope = m.cpu_scope;
  b.backend = m.backend;
  b.measured_at = m.measured_at;
  return b;
}

nlohmann::json budget_to_json(const EmulationBudget& b) {
  return {{"cpu_us_per_packet", b.cpu_us_per_packet},
          {"packets_per_cpu_s", b.packets_per_cpu_s},
          {"bits_per_packet", b.bits_per_packet},
          {"busy_share", kFitBusyShare},
          {"delay_line_cpu_share", b.delay_line_cpu_share},
          {"traffic_cpu_share", b.traffic_cpu_share},
          {"cpus", b.cpus},
          {"cpu_scope", b.cpu_scope},
          {"backend", b.backend},
          {"measured_at", b.measured_at},
          {"packets_per_s", b.packets_per_s(b.cpus)},
          {"bits_per_s", b.bits_per_s(b.cpus)}};
}

EmulationBudget budget_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("not a JSON object");
  EmulationBudget b;
  b.cpu_us_per_packet = positive(j, "cpu_us_per_packet");
  b.packets_per_cpu_s = positive(j, "packets_per_cpu_s");
  b.bits_per_packet = positive(j, "bits_per_packet");
  b.cpus = positive(j, "cpus");
  b.delay_line_cpu_share = share(j, "delay_line_cpu_share");
  b.traffic_cpu_share = share(j, "traffic_cpu_share");
  b.cpu_scope = j.value("cpu_scope", "");
  b.backend = j.value("backend", "");
  b.measured_at = j.value("measured_at", "");
  return b;
}

std::string budget_path() {
  if (const char* p = std::getenv("TESTBED_BUDGET_FILE"); p && *p) return p;
  return "/var/lib/testbed/budget.json";
}

std::optional<EmulationBudget> load_budget(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    // Absent, or not this user's (a non-root `validate`: the file is root's alone).
    if (errno == ENOENT || errno == EACCES) return std::nullopt;
    throw std::runtime_error("cannot read the machine's budget " + path);
  }
  try {
    return budget_from_json(nlohmann::json::parse(in));
  } catch (const std::exception& e) {
    throw std::runtime_error("the machine's budget " + path + ": " + e.what() +
                             " (measure it again: testbed doctor --budget)");
  }
}

void save_budget(const EmulationBudget& b, const std::string& path) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) {
    std::filesystem::create_directories(p.parent_path());
    ::chmod(p.parent_path().c_str(), 0700);
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp);
    ::chmod(tmp.c_str(), 0600);
    out << budget_to_json(b).dump(2) << "\n";
    if (!out.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace testbed
