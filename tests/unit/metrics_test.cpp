// The exporter's two halves without a server: training events become counters that only
// grow by what each iteration added, and link samples become labelled families.
#include <gtest/gtest.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "controller/observe/link_metrics.h"
#include "controller/observe/peer_refusals.h"
#include "controller/observe/train_metrics.h"

namespace testbed {
namespace {

nlohmann::json iteration(double seconds, int chunks, int aux, int bytes_to_b) {
  return {{"event", "iteration"},
          {"strategy", "netstorm-pro"},
          {"seconds", seconds},
          {"samples_per_node", 32},
          {"policy", {{"version", 3}, {"shares", {{"a", 0.75}, {"b", 0.25}}}}},
          {"nodes",
           {{"a",
             {{"seconds", seconds},
              {"chunks_sent", chunks},
              {"aux_chunks_sent", aux},
              {"chunks_forwarded", 0},
              {"bytes_sent", {{"b", bytes_to_b}}},
              {"bytes_received", nlohmann::json::object()}}}}}};
}

std::string exposition(prometheus::Registry& r) {
  return prometheus::TextSerializer().Serialize(r.Collect());
}

TEST(TrainMetrics, ParameterServerRunsReportLossClocksAndTimeToTarget) {
  prometheus::Registry registry;
  TrainMetrics m(registry, "lab1");
  m.apply({{"event", "loss"}, {"strategy", "ssp"}, {"loss", 0.5}});
  m.apply({{"event", "worker_clock"},
           {"strategy", "ssp"},
           {"node", "a"},
           {"clock", 3},
           {"seconds", 0.4},
           {"compute_s", 0.3}});
  m.apply(
      {{"event", "run_end"}, {"strategy", "ssp"}, {"final_loss", 0.25}, {"time_to_target_s", 7.5}});
  const std::string text = exposition(registry);
  for (const std::string line :
       {R"(testbed_held_out_loss{lab="lab1",strategy="ssp"} 0.25)",
        R"(testbed_worker_clock{lab="lab1",node="a",strategy="ssp"} 3)",
        R"(testbed_time_to_target_seconds{lab="lab1",strategy="ssp"} 7.5)",
        R"(testbed_worker_compute_seconds_total{lab="lab1",node="a",strategy="ssp"} 0.3)",
        R"(testbed_iteration_duration_seconds_count{lab="lab1",node="a",strategy="ssp"} 1)"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
}

// An elastic run's membership: who is in now, who is outside, and each change by kind; a
// worker's compute adds up clock by clock, so its rate is its utilization over time.
TEST(TrainMetrics, AnElasticRunsMembersAndChangesAndComputeOverTime) {
  prometheus::Registry registry;
  TrainMetrics m(registry, "lab1");
  m.apply({{"event", "membership"},
           {"strategy", "diloco"},
           {"members", {"a", "b", "c"}},
           {"outside", {"d"}}});
  m.apply({{"event", "membership"},
           {"strategy", "diloco"},
           {"members", {"a", "c"}},
           {"outside", {"b", "d"}},
           {"change", {{"node", "b"}, {"what", "leave"}, {"t_s", 4.0}}}});
  m.apply({{"event", "membership"},
           {"strategy", "diloco"},
           {"members", {"a", "c", "d"}},
           {"outside", {"b"}},
           {"change", {{"node", "d"}, {"what", "join"}, {"t_s", 9.0}}}});
  for (double compute : {0.4, 0.5})
    m.apply({{"event", "worker_clock"},
             {"strategy", "diloco"},
             {"node", "a"},
             {"clock", 1},
             {"seconds", 0.5},
             {"compute_s", compute}});
  const std::string text = exposition(registry);
  for (
      const std::string line :
      {R"(testbed_elastic_members{lab="lab1",strategy="diloco"} 3)",
       R"(testbed_elastic_member{lab="lab1",node="b",strategy="diloco"} 0)",
       R"(testbed_elastic_member{lab="lab1",node="d",strategy="diloco"} 1)",
       R"(testbed_elastic_membership_changes_total{change="leave",lab="lab1",strategy="diloco"} 1)",
       R"(testbed_elastic_membership_changes_total{change="join",lab="lab1",strategy="diloco"} 1)",
       R"(testbed_worker_compute_seconds_total{lab="lab1",node="a",strategy="diloco"} 0.9)"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  EXPECT_EQ(text.find(R"(change="crash")"), std::string::npos) << "no crash was published";
}

TEST(TrainMetrics, CountersAddEachIterationsDeltaAndTheHistogramCountsIterations) {
  prometheus::Registry registry;
  TrainMetrics m(registry, "lab1");
  m.apply(iteration(2.0, 10, 1, 1000));
  m.apply(iteration(4.0, 10, 3, 500));
  const std::string text = exposition(registry);
  const auto has = [&](const std::string& line) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  };
  has(R"(testbed_chunks_sent_total{lab="lab1",node="a",strategy="netstorm-pro"} 20)");
  has(R"(testbed_aux_chunks_sent_total{lab="lab1",node="a",strategy="netstorm-pro"} 4)");
  has(R"(testbed_neighbor_sent_bytes_total{lab="lab1",node="a",peer="b",strategy="netstorm-pro"} 1500)");
  has(R"(testbed_iteration_duration_seconds_count{lab="lab1",node="a",strategy="netstorm-pro"} 2)");
  has(R"(testbed_iteration_duration_seconds_sum{lab="lab1",node="a",strategy="netstorm-pro"} 6)");
  has(R"(testbed_samples_per_second{lab="lab1",node="a",strategy="netstorm-pro"} 8)");  // 32/4
  has(R"(testbed_policy_version{lab="lab1",strategy="netstorm-pro"} 3)");
  has(R"(testbed_policy_root_share_ratio{lab="lab1",node="b",strategy="netstorm-pro"} 0.25)");
  has(R"(testbed_iterations_total{lab="lab1",strategy="netstorm-pro"} 2)");
  m.apply({{"event", "measured"},
           {"strategy", "ps"},
           {"nodes", {"a", "b"}},
           {"mbit", {{0, 80}, {0, 0}}}});
  // 80 Mbit/s a -> b in bytes; no series where there is no link.
  EXPECT_NE(
      exposition(registry).find(
          R"(testbed_probe_throughput_bytes_per_second{lab="lab1",node="a",peer="b",strategy="ps"} 10000000)"),
      std::string::npos);
  EXPECT_EQ(exposition(registry).find(R"(node="b",peer="a",strategy="ps")"), std::string::npos);
  EXPECT_THROW(m.apply({{"event", "iteration"}, {"strategy", "x"}}), nlohmann::json::exception);
}

TEST(LinkMetrics, BytesSentBetweenTwoReadingsCountAResetCounterFromZero) {
  const auto sent =
      bytes_sent_between({{"a>b", 100}, {"b>a", 500}}, {{"a>b", 350}, {"b>a", 20}, {"a>c", 7}});
  EXPECT_EQ(sent, (std::map<std::string, uint64_t>{{"a>b", 250}, {"b>a", 20}, {"a>c", 7}}));
}

TEST(LinkMetrics, TimelineTailFollowsTheLogAndSkipsFailedChanges) {
  TimelineTail t("/nonexistent");
  t.add_line("scheduled_s,applied_s,lag_ms,link,from,to,rate_bits_per_s,delay_us,loss,error");
  t.add_line("1.0,1.001,1.250,0,a,b,5000000,30000,0,\"\"");
  t.add_line("2.0,2.002,2.500,0,a,b,6000000,30000,0,\"\"");
  t.add_line("2.0,2.003,3.000,0,b,a,6000000,30000,0,\"netlink: busy, try again\"");
  t.add_line("3.0,3.0");  // cut short by a crash
  const auto& e = t.entries();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e.at({"a", "b"}).changes, 2u);
  EXPECT_DOUBLE_EQ(e.at({"a", "b"}).last_lag_s, 0.0025);
  t.poll();  // a missing file is no error
}

TEST(LinkMetrics, FamiliesCarryUnitsInBaseUnitsAndTheDirectionLabels) {
  DirectionSample s;
  s.node = "a";
  s.peer = "b";
  s.link = 3;
  s.rate_bits_per_s = 80e6;
  s.delay_s = 0.03;
  s.loss_ratio = 0.0002;
  s.transmit_bytes = 12345;
  s.down = true;  // cut by a fault
  const auto families = link_families("lab1", {s});
  const std::string text = prometheus::TextSerializer().Serialize(families);
  for (
      const char* line :
      {R"(testbed_link_configured_bandwidth_bytes_per_second{lab="lab1",link="3",node="a",peer="b"} 10000000)",
       R"(testbed_link_configured_delay_seconds{lab="lab1",link="3",node="a",peer="b"} 0.03)",
       R"(testbed_link_transmit_bytes_total{lab="lab1",link="3",node="a",peer="b"} 12345)",
       R"(testbed_link_up{lab="lab1",link="3",node="a",peer="b"} 0)",
       "# TYPE testbed_link_transmit_bytes_total counter"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  // No job runs: no per-job family.
  EXPECT_EQ(text.find("testbed_job_link_bytes_total"), std::string::npos);
  // Two jobs side by side (docs/jobs.md): a series each, labelled by job and slot.
  s.job_bytes = {{"bsp/1", 777}, {"ddp/2", 42}};
  const std::string jobs = prometheus::TextSerializer().Serialize(link_families("lab1", {s}));
  for (
      const char* line :
      {R"(testbed_job_link_bytes_total{lab="lab1",link="3",node="a",peer="b",job="bsp",slot="1"} 777)",
       R"(testbed_job_link_bytes_total{lab="lab1",link="3",node="a",peer="b",job="ddp",slot="2"} 42)"})
    EXPECT_NE(jobs.find(line), std::string::npos) << line << "\n" << jobs;
}

}  // namespace
}  // namespace testbed

namespace testbed {
namespace {

TEST(PeerRefusals, NamesMembersCountsStrangersAndReachesTheMetrics) {
  const std::vector<std::string> names = {"seattle", "chicago"};
  VanCounters seattle;
  seattle.malformed_messages = {{"1", 3}, {"peer-00ab", 2}};
  seattle.refused_connections = 5;
  const nlohmann::json peers = peer_refusals({seattle, VanCounters{}}, names);
  EXPECT_EQ(peers["malformed_messages"]["seattle"]["chicago"], 3);  // node 1, by its name
  EXPECT_EQ(peers["malformed_messages"]["seattle"]["peer-00ab"], 2);
  EXPECT_EQ(peers["malformed_total"], 5);
  EXPECT_EQ(peers["refused_connections"]["seattle"], 5);
  EXPECT_EQ(peers["refused_total"], 5);

  prometheus::Registry registry;
  TrainMetrics m(registry, "lab1");
  m.apply(peers_event(peers, names, "bsp"));
  const std::string text = exposition(registry);
  for (const std::string line :
       {R"(testbed_peer_malformed_messages{lab="lab1",node="seattle",strategy="bsp"} 5)",
        R"(testbed_peer_refused_connections{lab="lab1",node="seattle",strategy="bsp"} 5)",
        R"(testbed_peer_refused_connections{lab="lab1",node="chicago",strategy="bsp"} 0)"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
}

}  // namespace
}  // namespace testbed
