#include "controller/health/health_report.h"

#include <algorithm>
#include <cstdio>

namespace testbed {
namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

nlohmann::json lateness_json(const LatenessHistogram& h) {
  return {{"p50", static_cast<double>(h.quantile_us(0.5)) / 1e3},
          {"p99", static_cast<double>(h.quantile_us(0.99)) / 1e3},
          {"max", static_cast<double>(h.max_us()) / 1e3},
          {"packets", h.count()}};
}

}  // namespace

LatenessHistogram HealthReport::lateness() const {
  LatenessHistogram all;
  for (const auto& d : directions) all.merge(d.lateness);
  return all;
}

LatenessHistogram HealthReport::emulator_lateness() const {
  LatenessHistogram all;
  for (const auto& d : directions) all.merge(d.emulator_lateness);
  return all;
}

uint64_t HealthReport::nfqueue_dropped() const {
  uint64_t n = 0;
  for (const auto& d : directions) n += d.nfqueue_dropped;
  return n;
}

std::optional<double> HealthReport::min_rate_ratio() const {
  std::optional<double> low;
  for (const auto& d : directions) {
    if (d.rate_judged && d.rate_ratio && (!low || *d.rate_ratio < *low)) low = d.rate_ratio;
  }
  return low;
}

std::vector<std::string> HealthReport::problems() const {
  std::vector<std::string> out;
  const LatenessHistogram own = emulator_lateness();
  const double p99_ms = static_cast<double>(own.quantile_us(0.99)) / 1e3;
  if (own.count() > 0 && p99_ms > thresholds.max_p99_lateness_ms) {
    out.push_back("delay-line release p99 " + fixed(p99_ms, 2) + " ms late (limit " +
                  fixed(thresholds.max_p99_lateness_ms, 2) +
                  " ms, not counting the host's stalls)");
  }
  if (const uint64_t dropped = nfqueue_dropped()) {
    out.push_back(std::to_string(dropped) + " packets dropped by the kernel before the delay line");
  }
  std::vector<std::string> slow;
  for (const auto& d : directions) {
    if (d.rate_judged && d.rate_ratio && *d.rate_ratio < thresholds.min_rate_ratio)
      slow.push_back(d.from + "->" + d.to + " " + fixed(*d.rate_ratio * 100, 0) + "%");
  }
  if (!slow.empty()) {
    std::string list;
    for (size_t i = 0; i < slow.size() && i < 3; ++i) list += (i ? ", " : "") + slow[i];
    if (slow.size() > 3) list += " and " + std::to_string(slow.size() - 3) + " more";
    out.push_back("backlogged links under " + fixed(thresholds.min_rate_ratio * 100, 0) +
                  "% of their rate (" + list + ")");
  }
  if (cpu_intervals > 0 && cpu_saturated_share > thresholds.max_cpu_saturated_share) {
    out.push_back((cpu_host.empty() ? "CPUs" : "host " + cpu_host + "'s CPUs") + " saturated " +
                  fixed(cpu_saturated_share * 100, 0) + "% of the run" +
                  (cpu_scope.empty() ? "" : " (of " + cpu_scope + ")"));
  }
  return out;
}

std::vector<std::string> HealthReport::notes() const {
  const LatenessHistogram all = lateness(), own = emulator_lateness();
  const double p99_ms = static_cast<double>(all.quantile_us(0.99)) / 1e3;
  // Worth a note when the whole is past the limit and the host made it later than the
  // emulator's part alone (a higher bucket; both are read from the same buckets).
  if (all.count() == 0 || p99_ms <= thresholds.max_p99_lateness_ms ||
      all.quantile_us(0.99) <= own.quantile_us(0.99))
    return {};
  return {"the host stalled the delay lines (releases p99 " + fixed(p99_ms, 2) + " ms late, max " +
          fixed(static_cast<double>(all.max_us()) / 1e3, 1) + " ms; the emulator's own p99 " +
          fixed(static_cast<double>(own.quantile_us(0.99)) / 1e3, 2) +
          " ms): latency tails carry the host's noise"};
}

std::string unhealthy_line(const std::vector<std::string>& problems) {
  if (problems.empty()) return "";
  std::string line = "emulation unhealthy: ";
  for (size_t i = 0; i < problems.size(); ++i) line += (i ? "; " : "") + problems[i];
  return line + "; figures from this run may understate the configured network";
}

std::string HealthReport::warning() const {
  return unhealthy_line(problems());
}

std::string HealthReport::note_line() const {
  std::string line;
  for (const auto& n : notes()) line += (line.empty() ? "emulation note: " : "; ") + n;
  return line;
}

nlohmann::json HealthReport::to_json() const {
  nlohmann::json dirs = nlohmann::json::array();
  for (const auto& d : directions) {
    nlohmann::json j = {
        {"from", d.from}, {"to", d.to}, {"link", d.link}, {"shaper_drops", d.shaper_drops}};
    if (d.delayed_packets > 0 || d.nfqueue_dropped > 0) {
      j["release_lateness_ms"] = lateness_json(d.lateness);
      j["emulator_lateness_ms"] = lateness_json(d.emulator_lateness);
      j["nfqueue_dropped"] = d.nfqueue_dropped;
    }
    if (d.rate_measured) {
      j["backlogged_share"] = d.observed_s > 0 ? d.backlogged_s / d.observed_s : 0.0;
      j["backlogged_s"] = d.backlogged_s;
      j["backlogged_rate_ratio"] = d.rate_ratio ? nlohmann::json(*d.rate_ratio) : nullptr;
      j["backlogged_mean_ratio"] = d.mean_ratio ? nlohmann::json(*d.mean_ratio) : nullptr;
      j["rate_judged"] = d.rate_judged;
      j["sent_bytes"] = d.sent_bytes;
      j["peak_mbit"] = d.peak_bytes_per_s * 8 / 1e6;
    }
    dirs.push_back(j);
  }
  const auto low = min_rate_ratio();
  // The busiest direction's peak: the bandwidth the run needed of its busiest link.
  const DirectionHealth* busiest = nullptr;
  for (const auto& d : directions)
    if (d.rate_measured && (!busiest || d.peak_bytes_per_s > busiest->peak_bytes_per_s))
      busiest = &d;
  nlohmann::json out = {{"healthy", healthy()},
                        {"problems", problems()},
                        {"notes", notes()},
                        {"duration_s", duration_s},
                        {"sample_period_s", sample_period_s},
                        {"release_lateness_ms", lateness_json(lateness())},
                        {"emulator_lateness_ms", lateness_json(emulator_lateness())},
                        {"nfqueue_dropped", nfqueue_dropped()},
                        {"min_backlogged_rate_ratio", low ? nlohmann::json(*low) : nullptr},
                        {"cpu_saturated_share", cpu_saturated_share},
                        {"cpu_busy_p50", cpu_busy_p50},
                        {"cpu_busy_p90", cpu_busy_p90},
                        {"thresholds",
                         {{"max_p99_lateness_ms", thresholds.max_p99_lateness_ms},
                          {"min_rate_ratio", thresholds.min_rate_ratio},
                          {"max_cpu_saturated_share", thresholds.max_cpu_saturated_share}}},
                        {"directions", dirs}};
  if (busiest) {
    out["peak_mbit"] = busiest->peak_bytes_per_s * 8 / 1e6;
    out["peak_direction"] = busiest->from + "->" + busiest->to;
  }
  if (!cpu_host.empty()) out["cpu_host"] = cpu_host;  // over hosts: whose CPU figures
  if (!cpu_scope.empty()) out["cpu_scope"] = cpu_scope;
  return out;
}

}  // namespace testbed
