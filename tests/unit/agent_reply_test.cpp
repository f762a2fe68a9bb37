// The controller's decoding of agents' replies: a node's event passes; a routing id that
// is not a node index of the run, a payload that is not a JSON object with a string
// "event", and an error whose reason is not text are dropped (nullopt), never thrown.
#include "controller/training/agent_reply.h"

#include <gtest/gtest.h>

namespace testbed {
namespace {

TEST(AgentReply, ANodesEventDecodes) {
  const auto r = decode_agent_reply("2", R"({"event":"arrived","seq":7})", 3);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 2u);
  EXPECT_EQ(r->second["seq"], 7);
  EXPECT_TRUE(decode_agent_reply("0", R"({"event":"error","what":"bad"})", 1));
}

TEST(AgentReply, WhatDoesNotDecodeIsDroppedNotThrown) {
  for (const auto& [id, payload] : std::vector<std::pair<std::string, std::string>>{
           {"3", R"({"event":"done"})"},              // node 3 of three
           {"", R"({"event":"done"})"},               // no id
           {"-1", R"({"event":"done"})"},             // not an index
           {"1 ", R"({"event":"done"})"},             // trailing space
           {"99999999999999999999", "{}"},            // would overflow
           {"1", R"({"event":"do)"},                  // cut short
           {"1", "[1,2]"},                            // not an object
           {"1", R"({"what":"x"})"},                  // no event
           {"1", R"({"event":5})"},                   // not a string
           {"1", R"({"event":"error","what":[1]})"},  // a reason that is not text
           {"1", std::string("\xff\xfe", 2)}}) {
    EXPECT_FALSE(decode_agent_reply(id, payload, 3)) << id << " " << payload;
  }
}

TEST(AgentReply, ANodeHasOneSpellingAndEveryPeerKeyIsANodeOfTheRun) {
  for (const std::string id : {"00", "01", " 1", "+1", "1e0", "0x1"})
    EXPECT_FALSE(decode_agent_reply(id, R"({"event":"hello"})", 3)) << id;
  EXPECT_EQ(canonical_node_index("10", 11), 10u);
  EXPECT_FALSE(canonical_node_index("10", 10));
  // A probe's peers (train_session reads graph_.mbit[peer][n]) and byte maps.
  EXPECT_TRUE(decode_agent_reply("0", R"({"event":"probed","mbit":{"1":5.5,"2":3}})", 3));
  for (const std::string payload :
       {R"({"event":"probed","mbit":{"3":5.5}})", R"({"event":"probed","mbit":{"01":5.5}})",
        R"({"event":"probed","mbit":{"1":"fast"}})", R"({"event":"probed","mbit":[1]})",
        R"({"event":"done","bytes_sent":{"99999":1}})",
        R"({"event":"done","link_samples":{"1":{"bytes":1}}})",
        R"({"event":"done","checksum":7})",  // a report missing most of its fields
        R"({"event":"stats","bytes_sent":{"3":1},"bytes_received":{},)"
        R"("malformed_messages":{},"refused_connections":0,"dropped_connections":0})",
        R"({"event":"ready","parameters":-1})", R"({"event":"hello","extra":1})",
        R"({"event":"error"})", R"({"event":"clock","clock":-1,"seconds":1})",
        R"({"event":"clock","clock":1.5,"seconds":1})",
        R"({"event":"clock","clock":3,"seconds":"1"})"})
    EXPECT_FALSE(decode_agent_reply("0", payload, 3)) << payload;
  // A clock past the run's bound is not the run's; a diverged loss (null) still is.
  EXPECT_TRUE(decode_agent_reply("0", R"({"event":"clock","clock":20,"seconds":1,"compute_s":0.5})",
                                 3, 20));
  EXPECT_FALSE(decode_agent_reply(
      "0", R"({"event":"clock","clock":21,"seconds":1,"compute_s":0.5})", 3, 20));
  EXPECT_FALSE(decode_agent_reply(
      "0", R"({"event":"clock","clock":18446744073709551615,"seconds":1})", 3, 1000));
  EXPECT_TRUE(decode_agent_reply("0", R"({"event":"evaluated","loss":null})", 3));
}

}  // namespace
}  // namespace testbed
