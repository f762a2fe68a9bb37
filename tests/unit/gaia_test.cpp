// Gaia's pure parts: the significance filter, the mirror state's two rules, the mirror
// windows and the convergence target the controller computes, and a node's local workers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "agent/contracts/message_fields.h"
#include "agent/jobs/local_workers.h"
#include "agent/protocols/gaia/mirror_state.h"
#include "agent/protocols/gaia/significance_filter.h"
#include "agent/protocols/gaia/update_census.h"
#include "controller/training/gaia/gaia_plan.h"
#include "controller/training/loss_curve.h"

namespace testbed {
namespace {

TEST(SignificanceFilter, SendsWhatPassesTheDecayingThresholdAndKeepsTheRest) {
  SignificanceFilter f(3, 0.01, false);
  EXPECT_DOUBLE_EQ(f.hard_threshold(1), 0.01);
  EXPECT_DOUBLE_EQ(f.hard_threshold(4), 0.005);  // v / sqrt(t)
  const std::vector<float> values{1.0f, 1.0f, 0.0f};
  f.accumulate({{}, {0.02f, 0.006f, 0.0f}});
  auto s = f.take(values, 1);
  ASSERT_EQ(s.keys, std::vector<uint32_t>({0}));  // 2% > 1%; 0.6% waits
  EXPECT_FLOAT_EQ(s.deltas[0], 0.02f);
  // The held-back 0.6% accumulates: at clock 4 the threshold is 0.5%, and 0.6% + 0.0% passes.
  f.accumulate({{2}, {0.001f}});  // a parameter at zero: any change is significant
  s = f.take(values, 4);
  EXPECT_EQ(s.keys, std::vector<uint32_t>({1, 2}));
  EXPECT_FLOAT_EQ(s.deltas[0], 0.006f);
  EXPECT_EQ(f.counts().updates, 3u);
  EXPECT_EQ(f.counts().significant, 3u);
  // Sent accumulators were reset: nothing is left to send.
  EXPECT_TRUE(f.take(values, 5).keys.empty());
  // Two local workers' updates of one parameter in one clock (SSP inside the data center)
  // are one (parameter, clock) update, as their sum is under BSP.
  f.accumulate({{0}, {0.001f}});
  f.accumulate({{0}, {0.001f}});
  f.take(values, 6);
  EXPECT_EQ(f.counts().updates, 4u);
}

TEST(SignificanceFilter, SoftThresholdFallsWhileTheWanIsIdleAndComesBackAtOnce) {
  SignificanceFilter f(1, 0.01, true);
  f.wan_idle(true);
  f.wan_idle(true);
  EXPECT_DOUBLE_EQ(f.soft_threshold(1), 0.0025);
  f.accumulate({{}, {0.003f}});  // 0.3%: below hard, above soft
  const auto s = f.take({1.0f}, 1);
  EXPECT_EQ(s.keys.size(), 1u);
  EXPECT_EQ(f.counts().soft, 1u);
  EXPECT_EQ(f.counts().significant, 0u);
  for (int i = 0; i < 20; ++i) f.wan_idle(true);
  EXPECT_DOUBLE_EQ(f.soft_factor(), 1.0 / 16);  // the floor
  f.wan_idle(false);
  EXPECT_DOUBLE_EQ(f.soft_factor(), 1.0);
  SignificanceFilter off(1, 0.01, false);
  off.wan_idle(true);
  EXPECT_DOUBLE_EQ(off.soft_factor(), 1.0);
}

TEST(MirrorState, MirrorClockHoldsAServerMoreThanDsAhead) {
  MirrorState m(3, 0, 4, 2);
  EXPECT_EQ(m.can_read(2, {}), ReadBlock::kNone);  // 2 ahead of mirrors at 0: allowed
  EXPECT_EQ(m.can_read(3, {}), ReadBlock::kMirrorClock);
  m.clock_reported(1, 5);
  EXPECT_EQ(m.can_read(3, {}), ReadBlock::kMirrorClock);  // node 2 is still at 0
  m.clock_reported(2, 1);
  EXPECT_EQ(m.can_read(3, {}), ReadBlock::kNone);
  EXPECT_EQ(m.slowest_mirror(), 1u);
  MirrorState off(2, 0, 4, -1);
  EXPECT_EQ(off.can_read(100, {}), ReadBlock::kNone);
}

TEST(MirrorState, SelectiveBarrierHoldsOnlyTheAnnouncedKeysUntilTheirValues) {
  MirrorState m(2, 0, 10, -1);
  m.barrier(1, 7, {2, 3});
  EXPECT_EQ(m.can_read(0, {0, 1}), ReadBlock::kNone);
  EXPECT_EQ(m.can_read(0, {1, 3}), ReadBlock::kBarrier);
  EXPECT_EQ(m.can_read(0, {}), ReadBlock::kBarrier);  // a dense read touches them
  m.barrier(1, 7, {3, 4});                            // merged into the same message
  m.arrived(1, 6);                                    // an earlier message lifts nothing
  EXPECT_EQ(m.barred_keys(), 3u);
  m.arrived(1, 7);
  EXPECT_EQ(m.barred_keys(), 0u);
  EXPECT_EQ(m.can_read(0, {}), ReadBlock::kNone);
}

TEST(GaiaPlan, WindowIsTwiceTheBandwidthDelayProductOfThePath) {
  // 0 -> 1 at 8 Mbit/s and 50 ms each way; 1 -> 2 at 4 Mbit/s, 10 ms: two hops to 2.
  const std::vector<PathDirection> d = {
      {0, 1, 8e6, 0.05}, {1, 0, 8e6, 0.05}, {1, 2, 4e6, 0.01}, {2, 1, 4e6, 0.01}};
  const auto w = mirror_windows(0, {0, 1, 2}, d);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].node, 1);
  EXPECT_DOUBLE_EQ(w[0].rtt_s, 0.1);
  EXPECT_EQ(w[0].window_bytes, 200000u);  // 1 MB/s * 0.1 s * 2
  EXPECT_EQ(w[1].node, 2);
  EXPECT_DOUBLE_EQ(w[1].path_bits_per_s, 4e6);
  EXPECT_NEAR(w[1].rtt_s, 0.12, 1e-12);
  EXPECT_EQ(w[1].window_bytes, 120000u);
  // Unshaped and without delay: the floor.
  EXPECT_EQ(mirror_windows(0, {0, 1}, {{0, 1, 0, 0}, {1, 0, 0, 0}})[0].window_bytes,
            kMinWindowBytes);
}

TEST(GaiaPlan, ConvergedWhenTheObjectiveChangesLessThanTwoPercentOverTenIterations) {
  std::vector<double> f;
  for (int c = 0; c < 40; ++c) f.push_back(1.0 + 10.0 * std::exp(-0.3 * c));
  const auto at = converged_at(f);
  ASSERT_TRUE(at);
  EXPECT_LT(std::fabs(f[*at] - f[*at - 10]) / f[*at - 10], 0.02);
  EXPECT_GE(std::fabs(f[*at - 1] - f[*at - 11]) / f[*at - 11], 0.02);
  EXPECT_FALSE(converged_at({3, 2, 1}));
}

TEST(GaiaPlan, FiguresSumTheDataCentersAndGiveTheHeldBackShare) {
  std::vector<std::optional<GaiaSection>> sections(3);  // the third node is no data center
  sections[0] = GaiaSection{.updates = 100, .significant = 4, .soft_significant = 1};
  sections[1] = GaiaSection{.updates = 100, .significant = 5, .soft_significant = 0};
  const auto f = gaia_figures(sections, {"a", "b", "c"});
  EXPECT_DOUBLE_EQ(f["updates"].get<double>(), 200);
  EXPECT_DOUBLE_EQ(f["held_back_share"].get<double>(), 0.95);
  EXPECT_TRUE(f["per_data_center"].contains("b"));
  EXPECT_FALSE(f["per_data_center"].contains("c"));
}

TEST(UpdateCensus, CountsEachUpdateAgainstTheValueAtEveryThreshold) {
  UpdateCensus c;
  const std::vector<float> values{1.0f, -2.0f, 0.0f, 4.0f};
  // 0.3% of 1, 3% of 2 (the sign does not matter), any change of zero, and no update.
  c.count({{0, 1, 2, 3}, {0.003f, 0.06f, 1e-9f, 0.0f}}, values, 0);
  c.count({{}, {0.00002f, 0.0f, 0.0f, 0.0f}}, values, 2);  // dense: 0.002% of key 0
  const GaiaSection::WorkerUpdates w = c.section();
  ASSERT_EQ(w.thresholds.size(), UpdateCensus::kThresholds.size());
  using Counts = std::vector<uint64_t>;
  EXPECT_EQ(w.updates, (Counts{3, 0, 1}));  // clock 1 saw no update
  const auto below = [&](double threshold) {
    for (size_t t = 0; t < UpdateCensus::kThresholds.size(); ++t)
      if (UpdateCensus::kThresholds[t] == threshold) return w.below[t];
    return Counts{};
  };
  EXPECT_EQ(below(1e-4), (Counts{0, 0, 1}));
  EXPECT_EQ(below(5e-3), (Counts{1, 0, 1}));  // 0.3% < 0.5%
  EXPECT_EQ(below(5e-2), (Counts{2, 0, 1}));  // and 3% < 5%; zero's never
}

TEST(GaiaPlan, FiguresGiveFigureFivesSharesAndTheFiltersOverTheLastQuarter) {
  // Two data centers, eight clocks: the last quarter is clocks 6 and 7.
  const auto dc = [](std::vector<uint64_t> sent, std::vector<uint64_t> below_1pct) {
    GaiaSection g{.updates = 80};
    g.filtered_by_clock.assign(8, 10);
    g.sent_by_clock = sent;
    g.worker_updates.thresholds.assign(UpdateCensus::kThresholds.begin(),
                                       UpdateCensus::kThresholds.end());
    g.worker_updates.updates.assign(8, 20);
    for (double t : UpdateCensus::kThresholds)
      g.worker_updates.below.push_back(t == 0.01 ? below_1pct : std::vector<uint64_t>(8, 0));
    return std::optional<GaiaSection>(g);
  };
  const auto f = gaia_figures({dc({10, 10, 10, 10, 10, 10, 5, 0}, {0, 0, 0, 0, 0, 0, 10, 20}),
                               dc({10, 10, 10, 10, 10, 10, 1, 2}, {0, 0, 0, 0, 0, 0, 20, 20})},
                              {"a", "b"});
  // The filter held back (5 + 10 + 9 + 8) of the last quarter's 40 updates.
  EXPECT_DOUBLE_EQ(f["held_back_share_last_quarter"].get<double>(), 32.0 / 40);
  const auto& w = f["worker_updates"];
  EXPECT_DOUBLE_EQ(w["updates"].get<double>(), 320);
  size_t one = 0;
  while (UpdateCensus::kThresholds[one] != 0.01) ++one;
  EXPECT_DOUBLE_EQ(w["insignificant_share"][one].get<double>(), 70.0 / 320);
  EXPECT_DOUBLE_EQ(w["insignificant_share_last_quarter"][one].get<double>(), 70.0 / 80);
  // Each data center's own, its series summarized and left out.
  const auto& a = f["per_data_center"]["a"];
  EXPECT_FALSE(a.contains("per_clock"));
  EXPECT_DOUBLE_EQ(a["held_back_share_last_quarter"].get<double>(), 15.0 / 20);
  EXPECT_DOUBLE_EQ(a["worker_updates"]["insignificant_share_last_quarter"][one].get<double>(),
                   30.0 / 40);
}

TEST(GaiaPlan, TheLabelAndTheAgentsSetupCarryTheKnobs) {
  GaiaKnobs knobs{0.005, -1, true};
  knobs.t_in_passes = false;
  EXPECT_EQ(gaia_label(knobs), "gaia(v=0.5%, DS=off, soft, t=clock)");
  EXPECT_EQ(gaia_label({}), "gaia(v=1%, DS=2, t=pass)");
  const std::vector<PathDirection> paths = {{0, 2, 1e5, 0.01}, {2, 0, 1e5, 0.01}};
  const auto overlay =
      gaia_overlay("auto", {0, 2}, {"a", "b", "c"}, data_center_rates({0, 2}, paths));
  const GaiaSetup typed = gaia_agent_setup(knobs, {0, 2}, paths, overlay, 20000);
  const nlohmann::json setup = to_json(typed);  // as the agents receive it
  EXPECT_EQ(gaia_setup_from(FieldReader(setup, "gaia"), 3), typed);
  EXPECT_EQ(setup["t"], "clock");
  EXPECT_EQ(setup["mirrors"]["0"][0]["hub"], false);  // two data centers: one group
  EXPECT_DOUBLE_EQ(setup["threshold"].get<double>(), 0.005);
  EXPECT_EQ(setup["ds"], -1);
  EXPECT_EQ(setup["soft"], true);
  ASSERT_EQ(setup["mirrors"]["0"].size(), 1u);
  EXPECT_EQ(setup["mirrors"]["0"][0]["node"], 2);
  EXPECT_EQ(setup["mirrors"]["2"][0]["node"], 0);
  // 100 kbit/s and a 20 ms round trip: twice the 250 B product is under the floor.
  EXPECT_EQ(setup["mirrors"]["2"][0]["window_bytes"], kMinWindowBytes);
  // The silence bound: 80 KB of model and the 4 KB window at 100 kbit/s, plus the 20 ms
  // round trip, four times: 4 * (84,096 B * 8 / 1e5 + 0.02) s.
  EXPECT_EQ(setup["partition"], "continue");
  EXPECT_EQ(setup["silence_ms"]["0"]["2"], std::llround(1000 * 4 * (84096 * 8 / 1e5 + 0.02)));
  EXPECT_EQ(setup["silence_ms"]["2"]["0"], setup["silence_ms"]["0"]["2"]);
  const auto summary = gaia_summary({}, {}, knobs);
  EXPECT_EQ(summary["ds"], "off");
  EXPECT_TRUE(summary.contains("choices"));
}

TEST(LocalWorkers, KWorkersOnEachNodeTrainAsTheirSumUnderBsp) {
  // Two nodes of two workers: their summed updates equal those of four single workers.
  const JobConfig c{"mf", 3, 4, 0.2};
  const auto node0 = make_local_workers(c, 0, 2), node1 = make_local_workers(c, 1, 2);
  std::vector<float> w(node0->parameters());
  for (uint32_t k = 0; k < w.size(); ++k) w[k] = node0->initial_value(k);
  std::vector<double> sum(w.size(), 0.0);
  for (auto* n : {node0.get(), node1.get()}) {
    const auto u = n->update(0, w);
    // mf's batch touches a part of R: the node sends its workers' key union, sorted.
    ASSERT_FALSE(u.keys.empty());
    EXPECT_TRUE(std::is_sorted(u.keys.begin(), u.keys.end()));
    EXPECT_EQ(u.keys, n->keys_for(0));
    add_update(u, sum);
  }
  std::vector<double> single(w.size(), 0.0);
  for (int worker = 0; worker < 4; ++worker) add_update(make_job(c, worker)->update(0, w), single);
  for (size_t k = 0; k < w.size(); ++k) EXPECT_NEAR(sum[k], single[k], 1e-5) << k;
  // An observer sees every worker's own update, one worker per node included.
  int seen = 0;
  const auto observed = make_local_workers(c, 1, 2, [&](const SparseUpdate&) { ++seen; });
  const auto single_observed = make_local_workers(c, 3, 1, [&](const SparseUpdate&) { ++seen; });
  EXPECT_EQ(observed->update(0, w).keys, node1->update(0, w).keys);
  EXPECT_EQ(single_observed->update(0, w).values, make_job(c, 3)->update(0, w).values);
  EXPECT_EQ(seen, 3);
  EXPECT_EQ(node0->samples_per_update(),
            make_job(c, 0)->samples_per_update() + make_job(c, 1)->samples_per_update());
  // The slowest local worker sets the node's compute time; one worker draws as before.
  const ComputeRange r{100, 300};
  EXPECT_EQ(local_compute_ms(r, 9, 1, 1, 5), draw_compute_ms(r, 9, 1, 5));
  EXPECT_GE(local_compute_ms(r, 9, 1, 3, 5), draw_compute_ms(r, 9, 1, 5));
  EXPECT_EQ(local_compute_ms({100, 100}, 9, 1, 2, 5, 4.0), 400);
}

TEST(GaiaPlan, TheSilenceBoundIsFourWaitsBehindAModelAndNeverUnderTwoSeconds) {
  MirrorWindow fast{1, 64 * 1024, 1e9, 0.001};
  EXPECT_DOUBLE_EQ(silence_bound_s(fast, 80000), kMinSilenceS);  // a millisecond's wait
  MirrorWindow unshaped{1, kMinWindowBytes, 0, 0};
  EXPECT_DOUBLE_EQ(silence_bound_s(unshaped, 80000), kMinSilenceS);
  // gaia-vc's path: 1.318 Mbit/s, 38.6 ms round trip, a 12.7 KB window, 80 KB of model.
  MirrorWindow vc{1, 12720, 1.318e6, 0.0386};
  EXPECT_NEAR(silence_bound_s(vc, 80000), 4 * ((80000 + 12720) * 8 / 1.318e6 + 0.0386), 1e-9);
  EXPECT_GT(silence_bound_s(vc, 80000), 2.3);
}

}  // namespace
}  // namespace testbed
