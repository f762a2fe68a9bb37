#include "controller/observe/cross_traffic_share.h"

#include <algorithm>
#include <tuple>

#include "controller/dynamics/timeline_log.h"
#include "controller/observe/link_metrics.h"

namespace testbed {
namespace {

// The part of [from, to) of the run an entry was on, 0 to 1.
double on_part(const PlannedTraffic& t, double from, double to, double scale) {
  if (to <= from) return 0;
  const double start = scale * t.start_us / 1e6;
  const double stop = t.stop_us ? scale * *t.stop_us / 1e6 : to;
  return std::max(0.0, std::min(to, stop) - std::max(from, start)) / (to - from);
}

// The counters' two halves: the cross traffic's bytes and the rest's, by direction.
std::pair<std::map<std::string, uint64_t>, std::map<std::string, uint64_t>> split(
    const std::map<std::string, Kernel::TrafficCount>& counts) {
  std::map<std::string, uint64_t> cross, rest;
  for (const auto& [d, c] : counts) {
    cross[d] = c.bytes;
    rest[d] = c.other_bytes;
  }
  return {cross, rest};
}

}  // namespace

nlohmann::json cross_traffic_shares(const ShareInputs& in) {
  nlohmann::json out = nlohmann::json::object();
  // Each direction some entry crosses, with the entries' weights on it.
  struct Load {
    double bulk_flows = 0, inelastic_bits_per_s = 0;
  };
  std::map<std::string, Load> loads;
  for (const auto& t : in.traffic) {
    const double part = on_part(t, in.run_start_s, in.run_end_s, in.time_scale);
    for (const auto& d : t.path) {
      Load& l = loads[d];
      if (t.kind == CrossTraffic::Kind::kBulk) l.bulk_flows += part * t.flows;
      // A poisson entry's short flows mostly end before they would back off: its mean load
      // is taken first, as a UDP stream's rate is.
      if (t.kind != CrossTraffic::Kind::kBulk) l.inelastic_bits_per_s += part * t.rate_bits_per_s;
    }
  }
  const double seconds = std::max(in.run_end_s - in.run_start_s, 0.0);
  for (const auto& [d, load] : loads) {
    const auto get = [](const std::map<std::string, uint64_t>& m, const std::string& k) {
      const auto it = m.find(k);
      return it == m.end() ? uint64_t{0} : it->second;
    };
    const uint64_t background = get(in.background_bytes, d);
    const uint64_t job = get(in.job_bytes, d);
    const uint64_t link = background + job;
    const double rate = static_cast<double>(get(in.rate_bits_per_s, d));
    nlohmann::json j = {{"background_bytes", background},
                        {"job_bytes", job},
                        {"bulk_flows", load.bulk_flows},
                        {"inelastic_bits_per_s", load.inelastic_bits_per_s}};
    j["job_share"] = link > 0 ? nlohmann::json(static_cast<double>(job) / link) : nlohmann::json();
    if (rate > 0 && seconds > 0) {
      const double left = std::max(0.0, rate - load.inelastic_bits_per_s);
      j["job_fair_share"] = left / (load.bulk_flows + 1) / rate;
      j["job_share_of_rate"] = static_cast<double>(job) * 8 / (rate * seconds);
      j["background_share_of_rate"] = static_cast<double>(background) * 8 / (rate * seconds);
    }
    out[d] = j;
  }
  return out;
}

CrossTrafficWatch::CrossTrafficWatch(const Plan& plan, std::vector<LiveDirection> directions,
                                     std::string lab_dir, double time_scale, Kernel& kernel)
    : traffic_(plan.traffic),
      directions_(std::move(directions)),
      lab_dir_(std::move(lab_dir)),
      time_scale_(time_scale > 0 ? time_scale : 1),
      kernel_(kernel) {
  if (traffic_.empty()) return;
  start_s_ = lab_time_s(lab_dir_);
  std::tie(background_before_, job_before_) = split(received_traffic(directions_, kernel_));
}

nlohmann::json CrossTrafficWatch::summary() {
  if (traffic_.empty()) return nullptr;
  ShareInputs in;
  in.traffic = traffic_;
  const auto [background, job] = split(received_traffic(directions_, kernel_));
  in.background_bytes = bytes_sent_between(background_before_, background);
  in.job_bytes = bytes_sent_between(job_before_, job);
  in.run_start_s = start_s_;
  in.run_end_s = lab_time_s(lab_dir_);
  in.time_scale = time_scale_;
  for (const auto& d : directions_)
    in.rate_bits_per_s[d.from + ">" + d.to] = d.params.rate.bits_per_s;
  nlohmann::json j = {
      {"directions", cross_traffic_shares(in)},
      {"counted", "IP bytes on each direction's receiving end: TCP and UDP on ports " +
                      std::to_string(kCrossTrafficFirstPort) + "-" +
                      std::to_string(kCrossTrafficLastPort) +
                      " as the cross traffic, the rest as the job's"}};
  j["entries"] = nlohmann::json::array();
  for (const auto& t : traffic_) j["entries"].push_back(traffic_to_json(t));
  return j;
}

}  // namespace testbed
