#include "controller/training/gaia/gaia_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

namespace testbed {

std::vector<MirrorWindow> mirror_windows(int self, const std::vector<int>& data_centers,
                                         const std::vector<PathDirection>& directions) {
  std::map<int, std::vector<const PathDirection*>> out_of;
  for (const auto& d : directions) out_of[d.from].push_back(&d);
  // Breadth-first from self: the fewest hops, as the lab's routes take them.
  std::map<int, const PathDirection*> via;  // node -> the direction that reached it
  std::vector<int> queue{self};
  std::map<int, bool> seen{{self, true}};
  for (size_t i = 0; i < queue.size(); ++i)
    for (const auto* d : out_of[queue[i]])
      if (!seen[d->to]) {
        seen[d->to] = true;
        via[d->to] = d;
        queue.push_back(d->to);
      }
  const auto back_delay = [&](int a, int b) {
    for (const auto& d : directions)
      if (d.from == a && d.to == b) return d.delay_s;
    return 0.0;
  };
  std::vector<MirrorWindow> out;
  for (int dc : data_centers) {
    if (dc == self) continue;
    MirrorWindow w;
    w.node = dc;
    double rate = std::numeric_limits<double>::infinity(), rtt = 0;
    for (int n = dc; n != self && via.count(n); n = via[n]->from) {
      const auto* d = via[n];
      if (d->bits_per_s > 0) rate = std::min(rate, d->bits_per_s);
      rtt += d->delay_s + back_delay(d->to, d->from);
    }
    w.path_bits_per_s = std::isinf(rate) ? 0 : rate;
    w.rtt_s = rtt;
    const double bdp = std::isinf(rate) ? 0 : rate / 8 * rtt;
    w.window_bytes = std::max(kMinWindowBytes, static_cast<size_t>(2 * bdp));
    out.push_back(w);
  }
  return out;
}

nlohmann::json gaia_choices() {
  return {
      "a data center's workers run in its node's process: the LAN inside it costs nothing; they "
      "synchronize by BSP (the main results) or, with --gaia-local ssp:S, by SSP (Appendix B), "
      "where a worker's update takes effect when it ends its clock, the data center's clock (the "
      "one the filter and the mirror clock use) is its slowest worker's, and reads count as held "
      "back by a rule only while none of its workers computes",
      "the objective is the held-out loss the runtime measures (RMSE for mf)",
      "DS (data-center staleness) defaults to 2; the paper gives no default",
      "the soft threshold is off by default (Sec. 4.3's WAN-cost goal); when on, it halves per "
      "clock the WAN is idle, down to 1/16 of the hard threshold",
      "the selective barrier fires when a mirror link has twice its configured bandwidth-delay "
      "product of data in flight; waiting updates are merged into one message; a barrier "
      "names only the keys new to that message, as an index list or a bitmap (32 keys a "
      "word), whichever is shorter, and one header bars every key once the message names "
      "half the model (the paper: a barrier carries the indexes, not how)",
      "a message naming at least half the parameters goes dense (values only)",
      "Fig. 5's share of insignificant updates counts each worker's own update of a clock "
      "against the value in its data center's replica when it was read (worker_updates); the "
      "filter's held-back share counts the data center's summed updates against v/sqrt(t)",
      "t in v/sqrt(t) and in the job's step counts passes over the data by default (--gaia-t "
      "pass: the paper's MF runs on IterStore, whose MF ends one clock per pass, and Bösen's "
      "MF counts iterations as passes), t being the passes begun, and the step is "
      "eta0/sqrt(t), Sec. 3.5's pairing with v/sqrt(t); --gaia-t clock counts mini-batch "
      "clocks in both, the step on Bösen's schedule eta0*sqrt(100/(100+t)) (the job's before "
      "this option)",
      "data-center groups (Sec. 4.5, --gaia-groups auto): two groups merge while every pair "
      "across them is faster than the mean path rate over all pairs (complete linkage; close "
      "means faster than the average pair); between two groups the hubs are the pair of "
      "members with the fastest path; a hub sums the significant updates its group's members "
      "sent it since its own clock last ended and sends them with its own at that clock's "
      "end (at once while its workers do not compute); updates a hub brings from another "
      "group go to its group's members in messages of their own, never forwarded again; "
      "mirror clocks go to every data center directly (a header each); barriers are per link",
      "a mirror silent past its bound (four times the longest a heartbeat, sent every 0.5 s, "
      "may wait behind a dense model message and a window of data on the path, at least 2 s) "
      "is presumed cut off (the paper does not cover failures); --gaia-partition continue "
      "(default) lifts its barriers and leaves it out of the mirror clock until it is heard "
      "again, block waits for it as the paper's rules read literally; either way the data "
      "waiting for it is merged and sent once it acknowledges again, as deltas",
  };
}

namespace {

// Adds a per-clock series to `sum` element by element (data centers may end different
// numbers of clocks).
void add_series(std::vector<double>& sum, const std::vector<uint64_t>& series) {
  if (sum.size() < series.size()) sum.resize(series.size(), 0.0);
  for (size_t c = 0; c < series.size(); ++c) sum[c] += static_cast<double>(series[c]);
}

// The per-clock counts of one data center or of all: the filter's (updates accumulated,
// sent) and the worker-update census's (updates, and those below each threshold).
struct PerClockCounts {
  std::vector<double> filtered, sent, updates;
  std::vector<double> thresholds;
  std::vector<std::vector<double>> below;

  void add(const GaiaSection& g) {
    add_series(filtered, g.filtered_by_clock);
    add_series(sent, g.sent_by_clock);
    const auto& w = g.worker_updates;
    if (w.thresholds.empty()) return;
    thresholds = w.thresholds;
    add_series(updates, w.updates);
    below.resize(thresholds.size());
    for (size_t t = 0; t < thresholds.size() && t < w.below.size(); ++t)
      add_series(below[t], w.below[t]);
  }

  // The run's last quarter of clocks (at least one), where its updates are smallest.
  static size_t last_quarter_from(size_t clocks) {
    return clocks - std::max<size_t>(1, clocks / 4);
  }

  static double share(const std::vector<double>& part, const std::vector<double>& whole,
                      size_t from) {
    double p = 0, w = 0;
    for (size_t c = from; c < whole.size(); ++c) {
      w += whole[c];
      p += c < part.size() ? part[c] : 0;
    }
    return w > 0 ? p / w : 0;
  }

  void write(nlohmann::json& f) const {
    if (!filtered.empty())
      f["held_back_share_last_quarter"] =
          1 - share(sent, filtered, last_quarter_from(filtered.size()));
    if (updates.empty()) return;
    nlohmann::json whole = nlohmann::json::array(), last = nlohmann::json::array();
    for (const auto& b : below) {
      whole.push_back(share(b, updates, 0));
      last.push_back(share(b, updates, last_quarter_from(updates.size())));
    }
    double total = 0;
    for (double u : updates) total += u;
    f["worker_updates"] = {{"thresholds", thresholds},
                           {"updates", total},
                           {"insignificant_share", whole},
                           {"insignificant_share_last_quarter", last}};
  }
};

}  // namespace

nlohmann::json gaia_figures(const std::vector<std::optional<GaiaSection>>& sections,
                            const std::vector<std::string>& names) {
  std::map<std::string, double> sum;
  PerClockCounts all;
  nlohmann::json per_dc = nlohmann::json::object();
  for (size_t n = 0; n < sections.size() && n < names.size(); ++n) {
    if (!sections[n]) continue;
    const GaiaSection& g = *sections[n];
    // A data center's own figures, its per-clock series summarized as the run's are.
    const nlohmann::json written = g;  // as the contract writes it
    nlohmann::json mine = written;
    mine.erase("per_clock");
    PerClockCounts own;
    own.add(g);
    own.write(mine);
    per_dc[names[n]] = mine;
    all.add(g);
    // Every count and time is summed over the data centers, but the clocks' (a position,
    // not an amount).
    for (const auto& [key, v] : written.items())
      if (v.is_number() && key != "slowest_mirror_clock" && key != "clocks" &&
          key != "local_max_ahead")
        sum[key] += v.get<double>();
  }
  nlohmann::json f = nlohmann::json::object();
  for (const auto& [key, v] : sum) f[key] = v;
  const double updates = sum["updates"];
  const double sent = sum["significant"] + sum["soft_significant"];
  // The filter's figure: the share of (parameter, clock) local updates, summed over a data
  // center's workers, that it held back. Beside it (worker_updates) the paper's Fig. 5
  // figure: the share of single workers' updates below each threshold.
  f["held_back_share"] = updates > 0 ? 1 - sent / updates : 0;
  all.write(f);
  f["per_data_center"] = per_dc;
  return f;
}

PathRate data_center_rates(const std::vector<int>& data_centers,
                           const std::vector<PathDirection>& directions) {
  PathRate rate;
  for (int dc : data_centers)
    for (const auto& w : mirror_windows(dc, data_centers, directions))
      rate[{dc, w.node}] = w.path_bits_per_s;
  return rate;
}

double silence_bound_s(const MirrorWindow& path, size_t model_bytes) {
  if (path.path_bits_per_s <= 0) return kMinSilenceS;
  const double wait_s =
      static_cast<double>(model_bytes + path.window_bytes) * 8 / path.path_bits_per_s + path.rtt_s;
  return std::max(kMinSilenceS, kSilenceMargin * wait_s);
}

GaiaSetup gaia_agent_setup(const GaiaKnobs& knobs, const std::vector<int>& data_centers,
                           const std::vector<PathDirection>& directions, const GaiaOverlay& overlay,
                           size_t parameters) {
  GaiaSetup g;
  for (int dc : data_centers) {
    const auto windows = mirror_windows(dc, data_centers, directions);
    auto& bounds = g.silence_ms[dc];
    for (const auto& w : windows)
      bounds[w.node] = std::llround(1000 * silence_bound_s(w, parameters * sizeof(float)));
    auto& links = g.mirrors[dc];
    for (const auto& link : overlay_links(overlay, dc)) {
      const auto w = std::find_if(windows.begin(), windows.end(),
                                  [&](const MirrorWindow& m) { return m.node == link.node; });
      links.push_back({link.node, w == windows.end() ? kMinWindowBytes : w->window_bytes,
                       link.role == OverlayRole::kHub});
    }
  }
  g.threshold = knobs.threshold;
  g.ds = knobs.ds;
  g.soft = knobs.soft;
  g.local_staleness = knobs.local_staleness;
  g.t_in_passes = knobs.t_in_passes;
  g.continue_when_cut = knobs.partition != "block";
  return g;
}

nlohmann::json overlay_to_json(const GaiaOverlay& overlay, const std::vector<std::string>& names) {
  nlohmann::json groups = nlohmann::json::array(), hubs = nlohmann::json::array();
  for (const auto& g : overlay.groups) {
    nlohmann::json members = nlohmann::json::array();
    for (int n : g) members.push_back(names.at(static_cast<size_t>(n)));
    groups.push_back(members);
  }
  for (const auto& [pair, node] : overlay.hub)
    hubs.push_back(
        {{"group", pair.first},
         {"towards", pair.second},
         {"hub", names.at(static_cast<size_t>(node))},
         {"peer", names.at(static_cast<size_t>(overlay.hub.at({pair.second, pair.first})))}});
  return {{"groups", groups}, {"hubs", hubs}};
}

std::string gaia_label(const GaiaKnobs& knobs) {
  std::ostringstream out;
  out << "gaia(v=" << knobs.threshold * 100
      << "%, DS=" << (knobs.ds < 0 ? std::string("off") : std::to_string(knobs.ds))
      << (knobs.soft ? ", soft" : "") << ", t=" << (knobs.t_in_passes ? "pass" : "clock")
      << (knobs.groups == "off" ? ", no groups" : "")
      << (knobs.local_staleness >= 0 ? ", SSP " + std::to_string(knobs.local_staleness) + " inside"
                                     : "")
      << ")";
  return out.str();
}

nlohmann::json gaia_summary(const std::vector<std::optional<GaiaSection>>& sections,
                            const std::vector<std::string>& names, const GaiaKnobs& knobs) {
  nlohmann::json g = gaia_figures(sections, names);
  g["threshold"] = knobs.threshold;
  g["ds"] = knobs.ds < 0 ? nlohmann::json("off") : nlohmann::json(knobs.ds);
  g["soft_threshold"] = knobs.soft;
  g["inside_data_centers"] = knobs.local_staleness < 0
                                 ? nlohmann::json("bsp")
                                 : nlohmann::json("ssp:" + std::to_string(knobs.local_staleness));
  g["t"] = knobs.t_in_passes ? "pass" : "clock";
  g["groups_spec"] = knobs.groups;
  g["partition"] = knobs.partition;
  g["choices"] = gaia_choices();
  return g;
}

}  // namespace testbed
