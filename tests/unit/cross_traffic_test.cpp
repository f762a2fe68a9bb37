// Cross traffic (controller/topology/cross_traffic.h, lab/cross_traffic_plan.h,
// runs/flow_generator.h, observe/cross_traffic_share.h): read from a profile with every
// mistake named where it is written, planned along the routes with counters on every link
// end, its flows drawn as stated, and its share of each link computed as documented.
#include <gtest/gtest.h>

#include <cmath>

#include "controller/lab/applier.h"
#include "controller/lab/plan.h"
#include "controller/lab/planner.h"
#include "controller/lab/step_json.h"
#include "controller/observe/cross_traffic_share.h"
#include "controller/observe/link_metrics.h"
#include "controller/options/workload_settings.h"
#include "controller/runs/flow_generator.h"
#include "netns/fake_kernel.h"
#include "validation_errors.h"

namespace testbed {
namespace {

// a - b - c in a line: a's traffic to c crosses a>b and b>c; b - c is the narrow link.
const std::string kLine =
    "lab: x\nnodes: {a: {}, b: {}, c: {}}\nlinks:\n"
    "  - {endpoints: [a, b], bandwidth: 100mbit}\n"
    "  - {endpoints: [b, c], bandwidth: 40mbit}\n";

Topology parse(const std::string& traffic) {
  return parse_profile_text(kLine + "cross_traffic:\n" + traffic, "x.yaml");
}

std::vector<std::string> errors_of(const std::string& traffic) {
  return validation_errors([&] { parse(traffic); });
}

TEST(CrossTraffic, EachKindIsReadWithItsDefaults) {
  const Topology t = parse(
      "  - {from: a, to: c, kind: bulk, flows: 4, start: 10s, stop: 60s}\n"
      "  - {from: c, to: a, kind: udp, rate: 20mbit}\n"
      "  - {from: b, to: c, kind: poisson, load: 30%, mean_size: 1MiB}\n");
  ASSERT_EQ(t.cross_traffic.size(), 3u);
  const auto& bulk = t.cross_traffic[0];
  EXPECT_EQ(bulk.kind, CrossTraffic::Kind::kBulk);
  EXPECT_EQ(bulk.from, 0u);
  EXPECT_EQ(bulk.to, 2u);
  EXPECT_EQ(bulk.flows, 4);
  EXPECT_EQ(bulk.start_us, 10000000);
  EXPECT_EQ(bulk.stop_us, 60000000);
  const auto& udp = t.cross_traffic[1];
  EXPECT_EQ(udp.rate.bits_per_s, 20000000u);
  EXPECT_EQ(udp.start_us, 0);
  EXPECT_FALSE(udp.stop_us);
  const auto& p = t.cross_traffic[2];
  EXPECT_DOUBLE_EQ(p.load, 0.3);
  EXPECT_EQ(p.mean_size, 1u << 20);
  EXPECT_EQ(p.max_size, kDefaultMaxSizeOverMean << 20);
  EXPECT_DOUBLE_EQ(p.shape, kDefaultParetoShape);
  // Seeded from the lab's seed (1) and the entry's place, unless given.
  EXPECT_NE(p.seed, 0u);
  EXPECT_EQ(parse("  - {from: b, to: c, kind: poisson, load: 1%, mean_size: 1k, seed: 7}\n")
                .cross_traffic[0]
                .seed,
            7u);
}

TEST(CrossTraffic, MistakesAreNamedWhereTheyAreWritten) {
  const auto one = [&](const std::string& entry) {
    const auto e = errors_of("  - " + entry + "\n");
    return e.size() == 1 ? e[0] : "(" + std::to_string(e.size()) + " errors)";
  };
  // Line 6 is the entry's: the profile's five lines and "cross_traffic:".
  EXPECT_EQ(one("{from: a, to: zz, kind: bulk}"),
            "x.yaml:7:19: cross_traffic: to: no node named 'zz'");
  EXPECT_NE(one("{from: a, to: a, kind: bulk}").find("to: the same node as from"),
            std::string::npos);
  EXPECT_NE(one("{from: a, to: c}").find("kind: expected bulk"), std::string::npos);
  EXPECT_NE(one("{from: a, to: c, kind: udp, rate: 5mbit, flows: 2}").find("only a bulk entry"),
            std::string::npos);
  EXPECT_NE(one("{from: a, to: c, kind: bulk, flows: 129}").find("from 1 to 128"),
            std::string::npos);
  EXPECT_NE(one("{from: a, to: c, kind: udp}").find("rate: missing"), std::string::npos);
  EXPECT_NE(one("{from: a, to: c, kind: bulk, rate: 5mbit}").find("a bulk entry has no rate"),
            std::string::npos);
  EXPECT_NE(one("{from: a, to: c, kind: udp, rate: 5mbit, start: 9s, stop: 9s}")
                .find("stop: must be later than start"),
            std::string::npos);
  EXPECT_NE(one("{from: a, to: c, kind: poisson, load: 0%, mean_size: 1MiB}").find("load:"),
            std::string::npos);
  EXPECT_NE(one("{from: a, to: c, kind: poisson, load: 5%, mean_size: 1MiB, shape: 1}")
                .find("shape: expected a Pareto shape above 1"),
            std::string::npos);
  EXPECT_NE(one("{from: a, to: c, kind: poisson, load: 5%}").find("mean_size: missing"),
            std::string::npos);
  EXPECT_NE(one("{from: a, to: c, kind: udp, rate: 5mbit, load: 5%}")
                .find("load: only a poisson entry has it"),
            std::string::npos);
  EXPECT_NE(one("{from: a, to: c, kind: bulk, flow: 2}").find("unknown key 'flow'"),
            std::string::npos);
  // Every error of a list at once, none planned.
  EXPECT_EQ(
      errors_of("  - {from: a, to: zz, kind: bulk}\n  - {from: q, to: c, kind: bulk}\n").size(),
      2u);
}

TEST(CrossTraffic, PlannedAlongTheRoutesWithCountersOnEveryLinkEnd) {
  const Plan plan = make_plan(parse("  - {from: a, to: c, kind: bulk, flows: 2}\n"
                                    "  - {from: c, to: b, kind: poisson, load: 25%, "
                                    "mean_size: 64k}\n"),
                              false);
  ASSERT_EQ(plan.traffic.size(), 2u);
  const PlannedTraffic& bulk = plan.traffic[0];
  EXPECT_EQ(bulk.path, (std::vector<std::string>{"a>b", "b>c"}));
  EXPECT_EQ(bulk.port, kCrossTrafficFirstPort);
  EXPECT_EQ(bulk.to_ns, plan.nodes[2].ns);
  EXPECT_EQ(bulk.to_address, plan.nodes[2].address.str());
  // The poisson load is of the path's narrowest rate: 25% of c>b's 40 Mbit/s.
  EXPECT_EQ(plan.traffic[1].rate_bits_per_s, 10000000u);
  EXPECT_EQ(plan.traffic[1].port, kCrossTrafficFirstPort + 1);

  // Counters in every namespace, on each device a link arrives through: b has two.
  std::map<std::string, std::vector<std::string>> counted;
  for (const Step& s : plan.steps)
    if (const auto* c = std::get_if<AddTrafficCounters>(&s)) counted[c->ns] = c->counters.devs;
  ASSERT_EQ(counted.size(), 3u);
  EXPECT_EQ(counted[plan.nodes[1].ns].size(), 2u);
  EXPECT_EQ(counted[plan.nodes[0].ns], std::vector<std::string>{plan.links[0].b2a.rx_dev});

  // What other verbs read back from plan.json is what was planned; the steps too.
  const auto back = plan_from_json(plan_to_json(plan)).traffic;
  EXPECT_EQ(back, plan.traffic);
  for (const Step& s : plan.steps) {
    if (std::holds_alternative<AddTrafficCounters>(s)) {
      EXPECT_EQ(step_to_json(step_from_json(step_to_json(s))), step_to_json(s));
    }
  }
  EXPECT_THROW(traffic_from_json({{"index", 0}, {"kind", "tcp"}}), std::invalid_argument);

  // iperf3 for bulk, with its flows; the testbed's own generator for poisson.
  const auto client = traffic_client_argv(bulk, "/bin/testbed");
  EXPECT_EQ(client.front(), "iperf3");
  EXPECT_NE(std::find(client.begin(), client.end(), "--parallel"), client.end());
  EXPECT_EQ(traffic_server_argv(plan.traffic[1], "/bin/testbed")[1], "_flows");
  // A lab without cross traffic has neither counters nor the key in its plan.
  const Plan none = make_plan(parse_profile_text(kLine, "x.yaml"), false);
  EXPECT_FALSE(plan_to_json(none).contains("cross_traffic"));
}

TEST(CrossTraffic, CountersAreAppliedAndRemovedWithTheLab) {
  const Plan plan = make_plan(parse("  - {from: a, to: c, kind: udp, rate: 1mbit}\n"), false);
  FakeKernel kernel;
  Applier(kernel).apply(plan);
  const auto& b = plan.nodes[1].ns;
  kernel.count_traffic(b, plan.links[0].a2b.rx_dev, 1500);
  kernel.count_traffic(b, plan.links[0].a2b.rx_dev, 700, false);
  EXPECT_EQ(kernel.traffic_counts(b).at(plan.links[0].a2b.rx_dev).bytes, 1500u);
  // Through the directions, as the exporter and a run read them.
  std::vector<LiveDirection> dirs =
      live_directions(plan_from_json(plan_to_json(plan)), CurrentLinks{});
  const auto received = received_traffic(dirs, kernel);
  EXPECT_EQ(received.at("a>b").bytes, 1500u);
  EXPECT_EQ(received.at("a>b").other_bytes, 700u);
  EXPECT_EQ(received.at("c>b").bytes, 0u);
  // Undone as the other steps are (an adopted namespace keeps none of them).
  for (const Step& s : plan.steps)
    if (std::holds_alternative<AddTrafficCounters>(s)) remove_step(kernel, s);
  EXPECT_TRUE(kernel.traffic_counts(b).empty());
}

TEST(FlowDraws, SizesAndArrivalsMakeTheStatedLoad) {
  // The cut Pareto's mean, against the integral of its survival function done numerically.
  const double scale = pareto_scale(1e6, 1.5), max = 1e9;
  EXPECT_NEAR(scale, 1e6 / 3, 1e-6);
  double integral = scale;  // P(X > x) = 1 below the scale
  const int steps = 2000000;
  const double lo = std::log(scale), hi = std::log(max);
  for (int i = 0; i < steps; ++i) {
    const double x = std::exp(lo + (hi - lo) * (i + 0.5) / steps);
    integral += std::pow(scale / x, 1.5) * x * (hi - lo) / steps;
  }
  EXPECT_NEAR(cut_pareto_mean(scale, 1.5, max), integral, integral * 1e-4);

  // 10 Mbit/s of flows of mean 100 kB, cut at 10 MB; shape 2.5, whose variance is finite,
  // so that 200,000 draws settle within 2%.
  FlowDraws d(10000000, 100000, 10000000, 2.5, 42);
  double bytes = 0, seconds = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    bytes += static_cast<double>(d.next_size());
    seconds += d.next_gap_s();
  }
  EXPECT_NEAR(bytes / n, d.cut_mean(), d.cut_mean() * 0.02);
  EXPECT_NEAR(bytes * 8 / seconds, 10e6, 10e6 * 0.03);
  // The same seed, the same flows.
  FlowDraws a(1000000, 5000, 500000, 1.5, 7), b(1000000, 5000, 500000, 1.5, 7);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(a.next_size(), b.next_size());
    EXPECT_EQ(a.next_gap_s(), b.next_gap_s());
  }
}

TEST(CrossTrafficShares, TheJobsShareBesideItsFairShare) {
  ShareInputs in;
  PlannedTraffic bulk;
  bulk.kind = CrossTraffic::Kind::kBulk;
  bulk.flows = 3;
  bulk.path = {"a>b"};
  PlannedTraffic udp;
  udp.kind = CrossTraffic::Kind::kUdp;
  udp.rate_bits_per_s = 20000000;
  udp.path = {"a>b", "b>c"};
  udp.start_us = 50000000;  // on for the second half of the run only
  in.traffic = {bulk, udp};
  in.run_start_s = 0;
  in.run_end_s = 100;
  in.rate_bits_per_s = {{"a>b", 100000000}, {"b>c", 40000000}};
  in.job_bytes = {{"a>b", 200000000}, {"b>c", 175000000}};
  in.background_bytes = {{"a>b", 800000000}, {"b>c", 125000000}};
  const auto j = cross_traffic_shares(in);
  const auto& ab = j.at("a>b");
  EXPECT_EQ(ab["job_bytes"], 200000000u);
  EXPECT_DOUBLE_EQ(ab["job_share"].get<double>(), 0.2);
  // 100 Mbit/s less half a run of 20 Mbit/s, split between the job and 3 flows.
  EXPECT_DOUBLE_EQ(ab["job_fair_share"].get<double>(), (100e6 - 10e6) / 4 / 100e6);
  EXPECT_DOUBLE_EQ(ab["job_share_of_rate"].get<double>(), 200e6 * 8 / (100e6 * 100));
  EXPECT_DOUBLE_EQ(j.at("b>c")["job_fair_share"].get<double>(), (40e6 - 10e6) / 40e6);
  EXPECT_FALSE(j.contains("b>a"));  // no entry crosses it
}

}  // namespace
}  // namespace testbed
