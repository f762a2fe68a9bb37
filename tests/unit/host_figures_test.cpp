// The other hosts' links in a run's figures (controller/training/host_figures.*): what a
// host answers crosses whole, anything else is refused by field, and only a host that runs
// some of the run's nodes is heard (remote_hosts.h).
#include <gtest/gtest.h>

#include "controller/training/host_figures.h"
#include "controller/training/remote_hosts.h"

namespace testbed {
namespace {

HostFigures figures() {
  HostFigures f;
  f.request = 4;
  f.wan_bytes = {{"chicago>new_york", 123456}, {"new_york>chicago", 789}};
  HealthReport h;
  h.duration_s = 3;
  h.cpu_intervals = 15;
  f.health = h;
  return f;
}

TEST(HostFigures, AnAnswerAndARequestCrossWhole) {
  const HostFigures f = figures();
  const HostFigures got = host_figures_from_json(nlohmann::json::parse(to_json(f).dump()));
  EXPECT_EQ(got.request, 4u);
  EXPECT_EQ(got.wan_bytes, f.wan_bytes);
  ASSERT_TRUE(got.health);
  EXPECT_EQ(got.health->to_json(), f.health->to_json());
  const FiguresRequest r = figures_request_from_json(to_json(FiguresRequest{9, true}));
  EXPECT_EQ(r.request, 9u);
  EXPECT_TRUE(r.health);
}

TEST(HostFigures, AnythingElseIsRefusedByField) {
  const nlohmann::json good = to_json(figures());
  const auto refused = [&](auto change) {
    nlohmann::json j = good;
    change(j);
    EXPECT_THROW(host_figures_from_json(j), std::invalid_argument) << j.dump();
  };
  refused([](auto& j) { j["request"] = 0; });
  refused([](auto& j) { j["request"] = -1; });
  refused([](auto& j) { j["request"] = 1e300; });
  refused([](auto& j) { j["wan_bytes"] = {{"ab", 1}}; });
  refused([](auto& j) { j["wan_bytes"] = {{">b", 1}}; });
  refused([](auto& j) { j["wan_bytes"] = {{"a>", 1}}; });
  refused([](auto& j) { j["wan_bytes"] = {{"a>b", -5}}; });
  refused([](auto& j) { j["wan_bytes"] = nlohmann::json::array(); });
  refused([](auto& j) { j.erase("health"); });
  refused([](auto& j) { j["health"] = {{"duration_s", 1}}; });
  EXPECT_THROW(figures_request_from_json({{"cmd", "figures"}, {"request", 1}}),
               std::invalid_argument);
}

TEST(HostFigures, OnlyAHostThatRunsSomeOfTheRunsNodesIsHeard) {
  RemoteHosts hosts({"a", "b", "c"}, {false, true, true}, {"host1", "host2", "host2"});
  const auto now = RemoteHosts::Clock::now();
  const std::string answer = to_json(figures()).dump();
  // host2 has not beaten yet: it runs none of the run's nodes.
  EXPECT_FALSE(hosts.hear("host/host2", answer, now));
  EXPECT_TRUE(hosts.figures().empty());
  ASSERT_TRUE(hosts.hear("host/host2", R"({"event":"beat","nodes":[1]})", now));
  EXPECT_TRUE(hosts.hear("host/host2", answer, now));
  EXPECT_EQ(hosts.figures().at("host2").wan_bytes.at("chicago>new_york"), 123456u);
  EXPECT_FALSE(hosts.hear("host/host2", R"({"event":"figures","request":1})", now));
}

}  // namespace
}  // namespace testbed
