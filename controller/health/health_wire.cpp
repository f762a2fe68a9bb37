#include "controller/health/health_wire.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace testbed {
namespace {

// A histogram's text: at most 100 buckets of "b:count " and "max:US", each well under 48
// characters; anything longer is no histogram of ours.
constexpr size_t kMaxHistogramText = 4800;
// Node names in a direction are the lab's: profile names are far shorter than this.
constexpr size_t kMaxName = 255;

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("health report: " + what);
}

const nlohmann::json& field(const nlohmann::json& j, const char* name) {
  if (!j.is_object() || !j.contains(name)) bad(std::string("no '") + name + "'");
  return j.at(name);
}

double figure(const nlohmann::json& j, const char* name) {
  const auto& v = field(j, name);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    bad(std::string("'") + name + "' is not a finite number >= 0");
  return v.get<double>();
}

std::optional<double> optional_figure(const nlohmann::json& j, const char* name) {
  if (field(j, name).is_null()) return std::nullopt;
  return figure(j, name);
}

uint64_t count(const nlohmann::json& j, const char* name) {
  const auto& v = field(j, name);
  if (!v.is_number_unsigned()) bad(std::string("'") + name + "' is not a count");
  return v.get<uint64_t>();
}

bool flag(const nlohmann::json& j, const char* name) {
  const auto& v = field(j, name);
  if (!v.is_boolean()) bad(std::string("'") + name + "' is not true or false");
  return v.get<bool>();
}

std::string name(const nlohmann::json& j, const char* key) {
  const auto& v = field(j, key);
  if (!v.is_string() || v.get_ref<const std::string&>().empty() ||
      v.get_ref<const std::string&>().size() > kMaxName)
    bad(std::string("'") + key + "' is not a node's name");
  return v.get<std::string>();
}

LatenessHistogram histogram(const nlohmann::json& j, const char* key) {
  const auto& v = field(j, key);
  if (!v.is_string() || v.get_ref<const std::string&>().size() > kMaxHistogramText)
    bad(std::string("'") + key + "' is not a histogram");
  try {
    return LatenessHistogram::parse(v.get<std::string>());
  } catch (const std::logic_error& e) {  // invalid_argument and stoll's out_of_range
    bad(std::string("'") + key + "': " + e.what());
  }
}

}  // namespace

nlohmann::json health_to_wire(const HealthReport& r) {
  nlohmann::json dirs = nlohmann::json::array();
  for (const auto& d : r.directions) {
    dirs.push_back({{"from", d.from},
                    {"to", d.to},
                    {"link", d.link},
                    {"delayed_packets", d.delayed_packets},
                    {"lateness", d.lateness.format()},
                    {"emulator_lateness", d.emulator_lateness.format()},
                    {"nfqueue_dropped", d.nfqueue_dropped},
                    {"rate_measured", d.rate_measured},
                    {"rate_judged", d.rate_judged},
                    {"observed_s", d.observed_s},
                    {"backlogged_s", d.backlogged_s},
                    {"rate_ratio", d.rate_ratio ? nlohmann::json(*d.rate_ratio) : nullptr},
                    {"mean_ratio", d.mean_ratio ? nlohmann::json(*d.mean_ratio) : nullptr},
                    {"sent_bytes", d.sent_bytes},
                    {"peak_bytes_per_s", d.peak_bytes_per_s},
                    {"shaper_drops", d.shaper_drops}});
  }
  return {{"duration_s", r.duration_s},
          {"sample_period_s", r.sample_period_s},
          {"cpu_saturated_share", r.cpu_saturated_share},
          {"cpu_busy_p50", r.cpu_busy_p50},
          {"cpu_busy_p90", r.cpu_busy_p90},
          {"cpu_intervals", r.cpu_intervals},
          {"directions", dirs}};
}

HealthReport health_from_wire(const nlohmann::json& j, size_t max_directions) {
  HealthReport r;
  r.duration_s = figure(j, "duration_s");
  // From a host whose build predates it: its samples were 200 ms apart.
  if (j.contains("sample_period_s")) r.sample_period_s = figure(j, "sample_period_s");
  r.cpu_saturated_share = figure(j, "cpu_saturated_share");
  r.cpu_busy_p50 = figure(j, "cpu_busy_p50");
  r.cpu_busy_p90 = figure(j, "cpu_busy_p90");
  // Shares of the run and of the CPUs: a figure past 1 is no measurement.
  if (r.cpu_saturated_share > 1 || r.cpu_busy_p50 > 1 || r.cpu_busy_p90 > 1)
    bad("a CPU share is above 1");
  r.cpu_intervals = count(j, "cpu_intervals");
  const auto& dirs = field(j, "directions");
  if (!dirs.is_array() || dirs.size() > max_directions)
    bad("'directions' is not a list of at most " + std::to_string(max_directions));
  for (const auto& x : dirs) {
    DirectionHealth d;
    d.from = name(x, "from");
    d.to = name(x, "to");
    d.link = count(x, "link");
    d.delayed_packets = count(x, "delayed_packets");
    d.lateness = histogram(x, "lateness");
    d.emulator_lateness = histogram(x, "emulator_lateness");
    d.nfqueue_dropped = count(x, "nfqueue_dropped");
    d.rate_measured = flag(x, "rate_measured");
    d.rate_judged = flag(x, "rate_judged");
    d.observed_s = figure(x, "observed_s");
    d.backlogged_s = figure(x, "backlogged_s");
    d.rate_ratio = optional_figure(x, "rate_ratio");
    d.mean_ratio = optional_figure(x, "mean_ratio");
    d.sent_bytes = count(x, "sent_bytes");
    d.peak_bytes_per_s = figure(x, "peak_bytes_per_s");
    d.shaper_drops = count(x, "shaper_drops");
    r.directions.push_back(std::move(d));
  }
  return r;
}

namespace {

// One direction as two hosts saw it. A link between hosts is shaped where it is sent and
// delayed where it is received (either backend delays on the receiving side), so its
// sender's host measures its rate and its receiver's host its release lateness: the
// direction's health is the two together.
void add_direction(std::vector<DirectionHealth>& all, const DirectionHealth& d) {
  const auto it = std::find_if(all.begin(), all.end(), [&](const DirectionHealth& x) {
    return x.from == d.from && x.to == d.to && x.link == d.link;
  });
  if (it == all.end()) {
    all.push_back(d);
    return;
  }
  it->delayed_packets += d.delayed_packets;
  it->lateness.merge(d.lateness);
  it->emulator_lateness.merge(d.emulator_lateness);
  it->nfqueue_dropped += d.nfqueue_dropped;
  if (d.rate_measured && (!it->rate_measured || d.observed_s > it->observed_s)) {
    it->rate_measured = true;
    it->rate_judged = d.rate_judged;
    it->observed_s = d.observed_s;
    it->backlogged_s = d.backlogged_s;
    it->rate_ratio = d.rate_ratio;
    it->mean_ratio = d.mean_ratio;
    it->shaper_drops = d.shaper_drops;
    it->sent_bytes = d.sent_bytes;
    it->peak_bytes_per_s = d.peak_bytes_per_s;
  }
}

}  // namespace

HealthReport merge_host_health(HealthReport mine, const std::string& my_host,
                               const std::map<std::string, HealthReport>& others) {
  HealthReport out = std::move(mine);
  out.cpu_host = my_host;
  for (const auto& [host, r] : others) {
    for (const auto& d : r.directions) add_direction(out.directions, d);
    out.duration_s = std::max(out.duration_s, r.duration_s);
    out.sample_period_s = std::max(out.sample_period_s, r.sample_period_s);
    if (r.cpu_intervals > 0 &&
        (out.cpu_intervals == 0 || r.cpu_saturated_share > out.cpu_saturated_share)) {
      out.cpu_saturated_share = r.cpu_saturated_share;
      out.cpu_busy_p50 = r.cpu_busy_p50;
      out.cpu_busy_p90 = r.cpu_busy_p90;
      out.cpu_intervals = r.cpu_intervals;
      out.cpu_host = host;
    }
  }
  return out;
}

nlohmann::json health_by_host(const HealthReport& mine, const std::string& my_host,
                              const std::map<std::string, HealthReport>& others) {
  nlohmann::json out = nlohmann::json::object();
  const auto one = [&](const HealthReport& r, const std::string& host) {
    HealthReport judged = r;
    judged.thresholds = mine.thresholds;
    out[host] = {{"directions", judged.directions.size()},
                 {"healthy", judged.healthy()},
                 {"problems", judged.problems()},
                 {"cpu_saturated_share", judged.cpu_saturated_share}};
  };
  one(mine, my_host);
  for (const auto& [host, r] : others) one(r, host);
  return out;
}

}  // namespace testbed
