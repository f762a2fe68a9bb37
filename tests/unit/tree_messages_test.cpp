// NetStorm's messages (agent/contracts/tree_messages.h) and the replies every agent shares
// (agent/contracts/node_replies.h): what one end writes the other reads back field for
// field, and a missing, mistyped, out-of-range or unknown field is refused with its name,
// by the reader and by the controller's check of agents' replies (dropped, not thrown).
#include "agent/contracts/tree_messages.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "controller/training/agent_reply.h"

namespace testbed {
namespace {

template <class Read>
std::string refusal(Read read) {
  try {
    read();
  } catch (const ContractError& e) {
    return e.what();
  }
  return "";
}

TreeSetup a_setup() {
  TreeSetup s;
  s.van.endpoints = {"tcp://198.18.0.1:7000", "tcp://198.18.0.2:7000", "tcp://198.18.0.3:7000"};
  s.van.secret = "s3cret";
  s.van.max_message = 1 << 20;
  s.chunk_elements = 32768;
  s.model_elements = 100000;
  s.seed = 7;
  s.neighbors = {0, 2};
  s.probe_bytes = 65536;
  return s;
}

TEST(TreeMessages, TheSetupRoundTripsWithAndWithoutTheLogRegJob) {
  TreeSetup in = a_setup();
  TreeSetup out = tree_setup_from_json(to_json(in));
  EXPECT_EQ(out.van.endpoints, in.van.endpoints);
  EXPECT_EQ(out.van.secret, in.van.secret);
  EXPECT_EQ(out.van.max_message, in.van.max_message);
  EXPECT_EQ(out.chunk_elements, in.chunk_elements);
  EXPECT_EQ(out.model_elements, in.model_elements);
  EXPECT_EQ(out.seed, in.seed);
  EXPECT_EQ(out.neighbors, in.neighbors);
  EXPECT_EQ(out.probe_bytes, in.probe_bytes);
  EXPECT_FALSE(out.logreg);
  EXPECT_TRUE(out.van.van_curve.is_null());
  in.logreg = TreeLogRegJob{3, 20, 64, 0.5};
  out = tree_setup_from_json(to_json(in));
  ASSERT_TRUE(out.logreg);
  EXPECT_EQ(*out.logreg, *in.logreg);
  // The agent's runtime picks the protocol by this name.
  EXPECT_EQ(to_json(in)["protocol"], "tree");
}

TEST(TreeMessages, ASetupFieldMissingMistypedOrOutOfRangeIsRefusedByName) {
  const auto with = [](const char* field, nlohmann::json value) {
    nlohmann::json j = to_json(a_setup());
    if (value.is_null())
      j.erase(field);
    else
      j[field] = value;
    return refusal([&] { tree_setup_from_json(j); });
  };
  EXPECT_NE(with("chunk_elements", nullptr).find("setup.chunk_elements"), std::string::npos);
  EXPECT_NE(with("chunk_elements", 0).find("setup.chunk_elements is 0"), std::string::npos);
  EXPECT_NE(with("chunk_elements", 1LL << 33).find("setup.chunk_elements"), std::string::npos);
  EXPECT_NE(with("seed", -1).find("setup.seed"), std::string::npos);
  EXPECT_NE(with("neighbors", {3}).find("setup.neighbors"), std::string::npos);  // 3 nodes
  EXPECT_NE(with("neighbors", {1e300}).find("setup.neighbors"), std::string::npos);
  EXPECT_NE(with("protocol", "ps").find("setup.protocol"), std::string::npos);
  EXPECT_NE(with("stray", 1).find("setup.stray is not a field"), std::string::npos);
  nlohmann::json j = to_json(a_setup());
  j["logreg"] = {{"nodes", 3}, {"features", 0}, {"samples_per_node", 1}, {"learning_rate", 1}};
  EXPECT_NE(refusal([&] { tree_setup_from_json(j); }).find("setup.logreg"), std::string::npos);
}

TEST(TreeMessages, TheProbeAndItsAnswerRoundTripAndNameOnlyTheLabsNodes) {
  const ProbeLinks p = probe_links_from_json(to_json(ProbeLinks{{1, 2}, {0}, 65536, 8}), 3);
  EXPECT_EQ(p.to, (std::vector<int>{1, 2}));
  EXPECT_EQ(p.from, std::vector<int>{0});
  EXPECT_EQ(p.bytes, 65536u);
  EXPECT_EQ(p.count, 8u);
  EXPECT_NE(refusal([] {
              probe_links_from_json(to_json(ProbeLinks{{3}, {}, 1, 1}), 3);
            }).find("probe.to"),
            std::string::npos);
  const LinksProbed l = links_probed_from_json(to_json(LinksProbed{{{0, 95.5}, {2, 3}}}), 3);
  EXPECT_EQ(l.mbit, (std::map<size_t, double>{{0, 95.5}, {2, 3}}));
  EXPECT_NE(refusal([] {
              links_probed_from_json(to_json(LinksProbed{{{3, 1}}}), 3);
            }).find("probed.mbit names node 3"),
            std::string::npos);
}

IterationDone a_done() {
  IterationDone d;
  d.iteration = 4;
  d.seconds = 1.25;
  d.checksum = -3.5;
  d.loss = 0.693;
  d.weights = {0.5f, -1.0f};
  d.link_samples = {{0, {131072, 0.01, 2}}, {2, {65536, 0.02, 1}}};
  d.chunks_sent = 10;
  d.aux_chunks_sent = 3;
  d.chunks_forwarded = 2;
  d.primary = {7, 0.7};
  d.aux = {3, 0.6};
  d.counters.bytes_sent = {{0, 1000}, {2, 2000}};
  d.counters.bytes_received = {{0, 1500}};
  d.counters.malformed_messages = {{"2", 4}, {"peer-00ab", 1}};
  d.counters.refused_connections = 1;
  d.counters.dropped_connections = 2;
  return d;
}

TEST(TreeMessages, AnIterationsReportRoundTripsWithTheVansCounters) {
  const IterationDone in = a_done();
  const IterationDone out = iteration_done_from_json(to_json(in), 3, 10);
  EXPECT_EQ(out.iteration, 4u);
  EXPECT_DOUBLE_EQ(out.seconds, 1.25);
  EXPECT_DOUBLE_EQ(out.checksum, -3.5);
  EXPECT_EQ(out.loss, 0.693);
  EXPECT_EQ(out.weights, in.weights);
  ASSERT_EQ(out.link_samples.size(), 2u);
  EXPECT_DOUBLE_EQ(out.link_samples.at(2).bytes, 65536);
  EXPECT_EQ(out.link_samples.at(0).count, 2u);
  EXPECT_EQ(out.chunks_sent, 10u);
  EXPECT_EQ(out.aux_chunks_sent, 3u);
  EXPECT_EQ(out.chunks_forwarded, 2u);
  EXPECT_EQ(out.primary.count, 7u);
  EXPECT_DOUBLE_EQ(out.aux.seconds, 0.6);
  EXPECT_EQ(out.counters.bytes_sent, in.counters.bytes_sent);
  EXPECT_EQ(out.counters.bytes_received, in.counters.bytes_received);
  EXPECT_EQ(out.counters.malformed_messages, in.counters.malformed_messages);
  EXPECT_EQ(out.counters.refused_connections, 1u);
  EXPECT_EQ(out.counters.dropped_connections, 2u);
  // The synthetic gradient has no job: no loss, no weights.
  IterationDone synthetic = in;
  synthetic.loss.reset();
  synthetic.weights.clear();
  EXPECT_FALSE(to_json(synthetic).contains("job"));
  EXPECT_FALSE(iteration_done_from_json(to_json(synthetic), 3, 10).loss);
}

// A diverged job: its loss and checksum are NaN, null on the wire, NaN again when read.
TEST(TreeMessages, ADivergedJobsLossAndChecksumTravelAsNull) {
  IterationDone in = a_done();
  in.loss = std::numeric_limits<double>::quiet_NaN();
  in.checksum = std::numeric_limits<double>::quiet_NaN();
  const auto wire = nlohmann::json::parse(to_json(in).dump());
  EXPECT_TRUE(wire["checksum"].is_null());
  const IterationDone out = iteration_done_from_json(wire, 3, 10);
  EXPECT_TRUE(std::isnan(*out.loss));
  EXPECT_TRUE(std::isnan(out.checksum));
  EXPECT_TRUE(decode_agent_reply("1", wire.dump(), 3, 10));
}

TEST(TreeMessages, AMalformedReportIsRefusedByNameAndDroppedByTheController) {
  const auto broken = [](auto change) {
    nlohmann::json j = to_json(a_done());
    change(j);
    return j;
  };
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {broken([](auto& j) { j.erase("chunks_sent"); }), "done.chunks_sent"},
      {broken([](auto& j) { j["iteration"] = 11; }), "done.iteration"},  // past the run's 10
      {broken([](auto& j) { j["link_samples"]["3"] = j["link_samples"]["0"]; }),
       "done.link_samples"},
      {broken([](auto& j) { j["link_samples"]["0"]["seconds"] = -1; }),
       "done.link_samples.0.seconds"},
      {broken([](auto& j) { j["bytes_sent"]["01"] = 5; }), "done.bytes_sent"},
      {broken([](auto& j) { j["refused_connections"] = -2; }), "done.refused_connections"},
      {broken([](auto& j) { j["job"]["weights"] = {1e300}; }), "done.job.weights"},
      {broken([](auto& j) { j["delivered"]["aux"].erase("count"); }), "done.delivered.aux.count"},
      {broken([](auto& j) { j["stray"] = 1; }), "done.stray"},
  };
  for (const auto& [j, field] : cases) {
    EXPECT_NE(refusal([&] { iteration_done_from_json(j, 3, 10); }).find(field), std::string::npos)
        << field;
    EXPECT_FALSE(decode_agent_reply("0", j.dump(), 3, 10)) << field;
  }
}

TEST(NodeReplies, HelloReadyAndErrorRoundTripAndAreCheckedWhole) {
  EXPECT_EQ(node_ready_from_json(to_json(NodeReady{1234})).parameters, 1234u);
  EXPECT_FALSE(node_ready_from_json(to_json(NodeReady{})).parameters);
  EXPECT_EQ(node_error_from_json(to_json(NodeError{"no such shard"})).what, "no such shard");
  node_hello_from_json(to_json(NodeHello{}));
  EXPECT_NE(refusal([] {
              node_ready_from_json({{"event", "ready"}, {"parameters", "many"}});
            }).find("ready.parameters"),
            std::string::npos);
  EXPECT_NE(refusal([] {
              node_error_from_json({{"event", "error"}});
            }).find("error.what"),
            std::string::npos);
  // The final report of any system: its counters are checked, its own sections left to it.
  nlohmann::json stats = {{"event", kStatsEvent}, {"server", {{"updates", 3}}}};
  write_van_counters(stats, a_done().counters);
  EXPECT_TRUE(decode_agent_reply("0", stats.dump(), 3));
  stats["bytes_received"]["7"] = 1;
  EXPECT_FALSE(decode_agent_reply("0", stats.dump(), 3));
}

}  // namespace
}  // namespace testbed
