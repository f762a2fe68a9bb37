#include "controller/training/drps/wsp_summary.h"

#include <algorithm>
#include <vector>

#include "agent/protocols/drps/wsp_selector.h"

namespace testbed {
namespace {

double median(std::vector<double> xs) {
  if (xs.empty()) return 0;
  std::sort(xs.begin(), xs.end());
  const size_t n = xs.size();
  return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

}  // namespace

nlohmann::json wsp_summary(const WspMasterSection& master, const std::string& master_node,
                           int delta) {
  nlohmann::json s = master;
  s["master"] = master_node;
  std::vector<double> estimated, realized, forced_realized;
  uint64_t forced = 0;
  for (const WspWaitRecord& w : master.waits) {
    estimated.push_back(w.estimated_s);
    realized.push_back(w.realized_s);
    if (w.forced) {
      ++forced;
      forced_realized.push_back(w.realized_s);
    }
  }
  const uint64_t waited = master.waited;
  const auto mean = [](double sum, uint64_t n) { return n > 0 ? sum / static_cast<double>(n) : 0; };
  s["wait_summary"] = {{"waits", waited},
                       {"forced_by_delta", master.bound_forced},
                       // Of the waits, the share answering at once would have broken delta for.
                       {"forced_share", mean(static_cast<double>(master.bound_forced), waited)},
                       {"estimated_mean_s", mean(master.expected_wait_s, waited)},
                       {"realized_mean_s", mean(master.realized_wait_s, waited)},
                       {"estimated_median_s", median(estimated)},
                       {"realized_median_s", median(realized)},
                       {"realized_median_s_forced", median(forced_realized)},
                       {"logged", master.waits.size()},
                       {"logged_forced", forced}};
  s["readings"] = {
      {"gain", "-t_k/TE_r - 1/(W-1) * sum_l ln(1 + clocks of l missed), Eq. 7 as we read it"},
      {"estimate", "a worker's next update is due at its last start plus its last iteration"},
      {"decided_by",
       "one master for the job, on the first server's node (Sec. 6.1: 'the parallel model "
       "adopted by the master'); shards answer a read once the master's grant is in and the "
       "pushes it names are applied"},
      {"iteration_time",
       "as each worker measures it, from its parameters' arrival to its next request (Sec. "
       "6.3's Ts and Te), so a wait the master imposed is not iteration time"},
      {"first_clock", "synchronous, to fill the ITTable"},
      {"delta", delta == TrainingSetup::kNoBound ? nlohmann::json("none") : nlohmann::json(delta)}};
  return s;
}

}  // namespace testbed
