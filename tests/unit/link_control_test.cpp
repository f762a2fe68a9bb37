#include "controller/dynamics/link_control.h"

#include <gtest/gtest.h>

#include "controller/lab/applier.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "netns/fake_kernel.h"

namespace testbed {
namespace {

struct RecordingDelayLines : DelayLineControl {
  struct Call {
    std::string node;
    uint16_t queue;
    int64_t delay_us, jitter_us;
  };
  std::vector<Call> calls;
  void set_delay(const std::string& node, uint16_t queue, int64_t d, int64_t j) override {
    calls.push_back({node, queue, d, j});
  }
};

class LinkControl : public testing::Test {
 protected:
  void bring_up(const std::string& link, bool netem) {
    const Topology t = parse_profile_text(
        "lab: lc\nnodes: {a: {}, b: {}}\nlinks:\n  - {endpoints: [a, b], " + link + "}\n",
        "lc.yaml");
    plan_ = make_plan(t, netem);
    Applier(kernel_).apply(plan_);
    dirs_ = live_directions(plan_from_json(plan_to_json(plan_)), CurrentLinks{});
  }
  FakeKernel kernel_;
  RecordingDelayLines lines_;
  Plan plan_;
  std::vector<LiveDirection> dirs_;
};

TEST_F(LinkControl, RateChangesInPlaceWithoutTouchingTheOtherDirection) {
  bring_up("bandwidth: 100mbit, delay: 30ms", false);
  LinkChanger changer(kernel_, lines_, ImpairmentBackend::kDelayLine);
  const int before = kernel_.mutations();
  changer.apply(dirs_[0],
                ScheduleChange{0, Rate{20000000}, std::nullopt, std::nullopt, std::nullopt});
  EXPECT_EQ(kernel_.mutations(), before + 1);  // one class change, nothing deleted
  EXPECT_EQ(kernel_.shaping("tb-lc-a", "tb0-b")->config.rate_bytes_per_s, 2500000u);
  EXPECT_EQ(kernel_.shaping("tb-lc-b", "tb0-a")->config.rate_bytes_per_s, 12500000u);
  EXPECT_EQ(dirs_[0].params.rate.bits_per_s, 20000000u);
  EXPECT_TRUE(lines_.calls.empty());
}

TEST_F(LinkControl, DelayGoesToTheReceiversDelayLineAndLossToItsRule) {
  bring_up("bandwidth: 100mbit, delay: 30ms", false);
  LinkChanger changer(kernel_, lines_, ImpairmentBackend::kDelayLine);
  changer.apply(dirs_[0],
                ScheduleChange{0, std::nullopt, Duration{80000}, Fraction{0.01}, std::nullopt});
  ASSERT_EQ(lines_.calls.size(), 1u);
  EXPECT_EQ(lines_.calls[0].node, "b");  // a->b is delayed where it arrives
  EXPECT_EQ(lines_.calls[0].queue, dirs_[0].queue);
  EXPECT_EQ(lines_.calls[0].delay_us, 80000);
  EXPECT_DOUBLE_EQ(kernel_.ingress_delay("tb-lc-b", "tb0-a")->loss, 0.01);
}

TEST_F(LinkControl, ADownDirectionIsCutAtItsSenderAndUpRestoresIt) {
  bring_up("bandwidth: 100mbit", false);  // no delay hook: a cut needs none
  LinkChanger changer(kernel_, lines_, ImpairmentBackend::kDelayLine);
  ScheduleChange down;
  down.down = true;
  changer.apply(dirs_[0], down);
  EXPECT_TRUE(kernel_.is_cut("tb-lc-a", "tb0-b"));
  EXPECT_FALSE(kernel_.is_cut("tb-lc-b", "tb0-a"));  // the other direction carries on
  EXPECT_TRUE(dirs_[0].down);
  const int before = kernel_.mutations();
  changer.apply(dirs_[0], down);  // down again: nothing to do
  EXPECT_EQ(kernel_.mutations(), before);
  // A rate change while down leaves it cut.
  changer.apply(dirs_[0],
                ScheduleChange{0, Rate{20000000}, std::nullopt, std::nullopt, std::nullopt});
  EXPECT_TRUE(kernel_.is_cut("tb-lc-a", "tb0-b"));
  ScheduleChange up;
  up.down = false;
  changer.apply(dirs_[0], up);
  EXPECT_FALSE(kernel_.is_cut("tb-lc-a", "tb0-b"));
  EXPECT_FALSE(dirs_[0].down);
  EXPECT_EQ(kernel_.shaping("tb-lc-a", "tb0-b")->config.rate_bytes_per_s, 2500000u);
}

TEST_F(LinkControl, ADirectionWithoutAHookRefusesDelay) {
  bring_up("bandwidth: 100mbit", false);
  LinkChanger changer(kernel_, lines_, ImpairmentBackend::kDelayLine);
  EXPECT_THROW(changer.apply(dirs_[0], ScheduleChange{0, std::nullopt, Duration{1000}, std::nullopt,
                                                      std::nullopt}),
               std::runtime_error);
  EXPECT_EQ(dirs_[0].params.delay.us, 0);  // unchanged on failure
}

// On a slice of a lab spread over hosts, a link between hosts is changed half here (the
// sender's rate) and half on the other host (the receiver's delay and loss).
TEST_F(LinkControl, EachHostChangesOnlyItsOwnEndOfALinkBetweenHosts) {
  bring_up("bandwidth: 100mbit, delay: 30ms", false);
  Plan slice = plan_;  // host of a: b's namespace is elsewhere
  slice.nodes.erase(slice.nodes.begin() + 1);
  dirs_ = live_directions(slice, CurrentLinks{});
  ASSERT_TRUE(dirs_[0].local_tx && !dirs_[0].local_rx);  // a->b
  ASSERT_TRUE(!dirs_[1].local_tx && dirs_[1].local_rx);  // b->a
  const auto b_shaping = kernel_.shaping("tb-lc-b", "tb0-a")->config;
  const auto b_ingress = kernel_.ingress_delay("tb-lc-b", "tb0-a");
  LinkChanger changer(kernel_, lines_, ImpairmentBackend::kDelayLine);
  const ScheduleChange all{0, Rate{20000000}, Duration{80000}, Fraction{0.01}, std::nullopt};
  changer.apply(dirs_[0], all);
  EXPECT_EQ(kernel_.shaping("tb-lc-a", "tb0-b")->config.rate_bytes_per_s, 2500000u);
  EXPECT_TRUE(lines_.calls.empty()) << "b's delay line is on b's host";
  changer.apply(dirs_[1], all);
  ASSERT_EQ(lines_.calls.size(), 1u);
  EXPECT_EQ(lines_.calls[0].node, "a");
  EXPECT_DOUBLE_EQ(kernel_.ingress_delay("tb-lc-a", "tb0-b")->loss, 0.01);
  EXPECT_EQ(dirs_[1].params.rate.bits_per_s, 20000000u) << "recorded, for status";
  EXPECT_EQ(kernel_.shaping("tb-lc-b", "tb0-a")->config, b_shaping) << "b's host shapes b";
  EXPECT_EQ(kernel_.ingress_delay("tb-lc-b", "tb0-a"), b_ingress) << "b's host drops for b";
}

TEST_F(LinkControl, NetemBackendChangesTheSendersRateAndTheReceiversNetem) {
  bring_up("bandwidth: 100mbit, delay: 30ms", true);
  // b -> a: shaped at b's end, delayed by the IFB device on a's end.
  ASSERT_TRUE(kernel_.ingress_netem("tb-lc-a", "tbi0-b"));
  EXPECT_EQ(kernel_.namespaces().at("tb-lc-a").links.at("tb0-b").redirect, "tbi0-b");
  LinkChanger changer(kernel_, lines_, ImpairmentBackend::kNetem);
  const int before = kernel_.mutations();
  changer.apply(dirs_[1],
                ScheduleChange{0, Rate{50000000}, Duration{5000}, Fraction{0.02}, std::nullopt});
  EXPECT_EQ(kernel_.mutations(), before + 2);  // one class change, one netem change
  EXPECT_EQ(kernel_.shaping("tb-lc-b", "tb0-a")->config.rate_bytes_per_s, 6250000u);
  const auto n = kernel_.ingress_netem("tb-lc-a", "tbi0-b");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->delay_us, 5000u);
  EXPECT_DOUBLE_EQ(n->loss, 0.02);
  EXPECT_EQ(kernel_.ingress_netem("tb-lc-b", "tbi0-a")->delay_us, 30000u) << "a -> b untouched";
  EXPECT_TRUE(lines_.calls.empty());
}

TEST_F(LinkControl, NetemBackendAddsTheReceiversNetemOnTheFirstDelay) {
  bring_up("bandwidth: 100mbit", true);
  EXPECT_FALSE(kernel_.ingress_netem("tb-lc-a", "tbi0-b"));
  LinkChanger changer(kernel_, lines_, ImpairmentBackend::kNetem);
  changer.apply(dirs_[1],
                ScheduleChange{0, std::nullopt, Duration{8000}, std::nullopt, std::nullopt});
  ASSERT_TRUE(kernel_.ingress_netem("tb-lc-a", "tbi0-b"));
  EXPECT_EQ(kernel_.ingress_netem("tb-lc-a", "tbi0-b")->delay_us, 8000u);
  ASSERT_TRUE(dirs_[1].netem);
  EXPECT_EQ(dirs_[1].netem->ifb, "tbi0-b");
}

}  // namespace
}  // namespace testbed
