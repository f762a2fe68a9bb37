// Bursty loss (netns/burst_loss.h): the chain the delay line runs against the model's own
// figures, the profile's `loss: {gilbert_elliott: ...}` and its refusals, and the model as
// each backend receives it (netem's netlink attribute, the delay line's queue).
#include "netns/burst_loss.h"

#include <gtest/gtest.h>
#include <linux/pkt_sched.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <map>

#include "controller/lab/plan.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "netns/tc_objects.h"
#include "validation_errors.h"

namespace testbed {
namespace {

// Loss runs of a million packets through the chain: how many runs of each length.
struct Runs {
  size_t packets = 0, lost = 0, runs = 0;
  std::map<size_t, size_t> by_length;
  double mean() const { return runs ? static_cast<double>(lost) / runs : 0; }
  double share(size_t len) const {
    const auto it = by_length.find(len);
    return it == by_length.end() ? 0 : static_cast<double>(it->second) / runs;
  }
};

Runs run_chain(const GilbertElliott& m, size_t packets, uint64_t seed) {
  GilbertElliottLoss chain(m, seed);
  Runs out;
  out.packets = packets;
  size_t current = 0;
  for (size_t i = 0; i < packets; ++i) {
    if (chain.lose()) {
      ++out.lost;
      ++current;
    } else if (current > 0) {
      ++out.runs;
      ++out.by_length[current];
      current = 0;
    }
  }
  return out;
}

TEST(BurstLoss, GilbertsChainLosesInGeometricBurstsOfMeanOneOverR) {
  const GilbertElliott m{0.01, 0.25, 1, 0};
  EXPECT_NEAR(m.mean_loss(), 0.01 / 0.26, 1e-12);
  EXPECT_DOUBLE_EQ(m.mean_bad_run(), 4);
  // A million packets: about 38,000 lost in 9,600 bursts. The bounds are five standard
  // errors wide or more; the seed makes the draw the same on every run anyway.
  const Runs r = run_chain(m, 1000000, 7);
  EXPECT_NEAR(static_cast<double>(r.lost) / r.packets, m.mean_loss(), 0.003);
  EXPECT_NEAR(r.mean(), 4.0, 0.2);
  // P(length = k) = r (1 - r)^(k-1).
  EXPECT_NEAR(r.share(1), 0.25, 0.025);
  EXPECT_NEAR(r.share(2), 0.25 * 0.75, 0.025);
  EXPECT_NEAR(r.share(3), 0.25 * 0.75 * 0.75, 0.025);
}

TEST(BurstLoss, LossInBothStatesGivesTheStationaryMix) {
  const GilbertElliott m{0.02, 0.2, 0.8, 0.001};
  // Bad a share of 0.02 / 0.22 of packets, losing 80% there and 0.1% elsewhere: 7.36%.
  EXPECT_NEAR(m.mean_loss(), 0.02 / 0.22 * 0.8 + 0.2 / 0.22 * 0.001, 1e-12);
  const Runs r = run_chain(m, 1000000, 11);
  EXPECT_NEAR(static_cast<double>(r.lost) / r.packets, m.mean_loss(), 0.004);
}

TEST(BurstLoss, TheSameSeedLosesTheSamePackets) {
  const GilbertElliott m{0.05, 0.3, 1, 0};
  GilbertElliottLoss a(m, 3), b(m, 3), c(m, 4);
  int same = 0, differ = 0;
  for (int i = 0; i < 10000; ++i) {
    const bool la = a.lose(), lb = b.lose(), lc = c.lose();
    same += la == lb;
    differ += la != lc;
  }
  EXPECT_EQ(same, 10000);
  EXPECT_GT(differ, 0);
}

const std::string kPair = "lab: g\nnodes: {a: {}, b: {}}\nlinks:\n  - endpoints: [a, b]\n";

std::vector<std::string> errors_of(const std::string& text) {
  return validation_errors([&] { parse_profile_text(text, "g.yaml"); });
}

TEST(BurstLoss, AProfileGivesTheModelInPlaceOfAPercentage) {
  const Topology t = parse_profile_text(kPair +
                                            "    bandwidth: 10mbit\n    delay: 5ms\n"
                                            "    loss: {gilbert_elliott: {p: 1%, r: 25%}}\n"
                                            "    b2a: {loss: 0.5%}\n",
                                        "g.yaml");
  const DirectionParams& a2b = t.links[0].a2b;
  ASSERT_TRUE(a2b.burst_loss);
  EXPECT_EQ(*a2b.burst_loss, (GilbertElliott{0.01, 0.25, 1, 0}));
  EXPECT_EQ(a2b.loss.value, 0);
  // The nearer layer's loss wins, whichever kind it is.
  EXPECT_FALSE(t.links[0].b2a.burst_loss);
  EXPECT_DOUBLE_EQ(t.links[0].b2a.loss.value, 0.005);
  const Topology full =
      parse_profile_text(kPair +
                             "    bandwidth: 10mbit\n"
                             "    loss: {gilbert_elliott: {p: 2%, r: 20%, bad: 80%, good: 0.1%}}\n",
                         "g.yaml");
  EXPECT_EQ(*full.links[0].a2b.burst_loss, (GilbertElliott{0.02, 0.2, 0.8, 0.001}));
}

TEST(BurstLoss, BadModelsAreRefusedWhereTheyAreWritten) {
  const std::string head = kPair + "    bandwidth: 10mbit\n";
  EXPECT_EQ(
      errors_of(head + "    loss: {gilbert_elliott: {p: 120%, r: 25%}}\n"),
      std::vector<std::string>{"g.yaml:6:33: loss.gilbert_elliott.p: '120%' is more than 100%"});
  EXPECT_EQ(errors_of(head + "    loss: {gilbert_elliott: {p: 1%, r: 0%}}\n"),
            std::vector<std::string>{
                "g.yaml:6:40: loss.gilbert_elliott.r: 0% would leave the bad state never"});
  EXPECT_EQ(errors_of(head + "    loss: {gilbert_elliott: {p: 1%}}\n"),
            std::vector<std::string>{"g.yaml:6:29: loss.gilbert_elliott.r: missing (the "
                                     "per-packet chance of leaving the bad state)"});
  EXPECT_EQ(errors_of(head + "    loss: {gilbert_elliott: {p: 1%, r: 5%, h: 3%}}\n"),
            std::vector<std::string>{
                "g.yaml:6:44: loss.gilbert_elliott: unknown key 'h' (expected p, r, bad or good)"});
  EXPECT_EQ(errors_of(head + "    loss: {gilbert_elliott: {p: 0%, r: 5%}}\n"),
            std::vector<std::string>{"g.yaml:6:29: loss.gilbert_elliott: this model loses "
                                     "nothing (p or bad is 0%, and good is 0%)"});
  EXPECT_EQ(errors_of(head + "    loss: {bursty: 5%}\n"),
            std::vector<std::string>{"g.yaml:6:11: loss: expected a percentage (e.g. 0.1%) or "
                                     "{gilbert_elliott: {p: 1%, r: 25%}}"});
  EXPECT_EQ(errors_of(head + "    loss: {gilbert_elliott: {p: 1%, r: 25%}}\n"
                             "    schedule: {steps: [{at: 10s, loss: 1%}]}\n"),
            (std::vector<std::string>{
                "g.yaml:4:5: link a-b (a2b): a direction with gilbert_elliott loss cannot change "
                "its loss in a schedule",
                "g.yaml:4:5: link a-b (b2a): a direction with gilbert_elliott loss cannot change "
                "its loss in a schedule"}));
}

const std::string kBursty = kPair +
                            "    bandwidth: 10mbit\n"
                            "    loss: {gilbert_elliott: {p: 1%, r: 25%, bad: 90%}}\n";

TEST(BurstLoss, NetemReceivesTheChainAsItsGilbertElliottAttribute) {
  const Plan plan = make_plan(parse_profile_text(kBursty, "g.yaml"), true);
  const auto& netem = plan.links[0].a2b.netem;
  ASSERT_TRUE(netem) << "bursty loss alone makes a direction impaired";
  ASSERT_TRUE(netem->netem.burst);
  EXPECT_EQ(netem_from_json(netem_to_json(*netem)), *netem) << "the plan's JSON keeps the model";
  const Message msg = make_netem_request(3, netem->netem, NLM_F_CREATE);
  nlattr* tb[TCA_MAX + 1] = {};
  ASSERT_EQ(nlmsg_parse(nlmsg_hdr(msg.get()), sizeof(tcmsg), tb, TCA_MAX, nullptr), 0);
  tc_netem_qopt qopt;
  std::memcpy(&qopt, nla_data(tb[TCA_OPTIONS]), sizeof qopt);
  EXPECT_EQ(qopt.loss, 0u) << "Bernoulli loss off: the chain decides";
  // netem's attributes follow the struct; find TCA_NETEM_LOSS among them.
  nlattr* netem_tb[TCA_NETEM_MAX + 1] = {};
  auto* after = reinterpret_cast<nlattr*>(static_cast<char*>(nla_data(tb[TCA_OPTIONS])) +
                                          NLA_ALIGN(sizeof qopt));
  ASSERT_EQ(nla_parse(netem_tb, TCA_NETEM_MAX, after,
                      nla_len(tb[TCA_OPTIONS]) - NLA_ALIGN(sizeof qopt), nullptr),
            0);
  ASSERT_TRUE(netem_tb[TCA_NETEM_LOSS]);
  nlattr* loss_tb[NETEM_LOSS_MAX + 1] = {};
  ASSERT_EQ(nla_parse_nested(loss_tb, NETEM_LOSS_MAX, netem_tb[TCA_NETEM_LOSS], nullptr), 0);
  ASSERT_TRUE(loss_tb[NETEM_LOSS_GE]);
  tc_netem_gemodel ge;
  std::memcpy(&ge, nla_data(loss_tb[NETEM_LOSS_GE]), sizeof ge);
  constexpr double kScale = 4294967295.0;
  EXPECT_NEAR(ge.p / kScale, 0.01, 1e-9);
  EXPECT_NEAR(ge.r / kScale, 0.25, 1e-9);
  EXPECT_NEAR(ge.h / kScale, 0.10, 1e-9) << "h: delivery in the bad state, 1 - bad";
  EXPECT_EQ(ge.k1, 0u) << "k1: loss in the good state";
}

TEST(BurstLoss, TheDelayLineRunsTheChainAndIptablesDropsNothing) {
  const Plan plan = make_plan(parse_profile_text(kBursty, "g.yaml"), false);
  ASSERT_EQ(plan.delay_lines.size(), 2u);
  for (const auto& line : plan.delay_lines) {
    ASSERT_EQ(line.queues.size(), 1u);
    ASSERT_TRUE(line.queues[0].burst);
    EXPECT_EQ(*line.queues[0].burst, (GilbertElliott{0.01, 0.25, 0.9, 0}));
  }
  for (const auto& step : plan.steps) {
    if (const auto* hooks = std::get_if<AddIngressHooks>(&step)) {
      for (const auto& [dev, hook] : hooks->hooks) EXPECT_EQ(hook.loss, 0) << dev;
    }
  }
}

}  // namespace
}  // namespace testbed
