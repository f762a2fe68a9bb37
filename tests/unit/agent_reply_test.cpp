// The controller's decoding of agents' replies: a node's event passes; a routing id that
// is not a node index of the run, a payload that is not a JSON object with a string
// "event", and an error whose reason is not text are dropped (nullopt), never thrown.
#include "controller/training/agent_reply.h"

#include <gtest/gtest.h>

namespace testbed {
namespace {

TEST(AgentReply, ANodesEventDecodes) {
  const auto r = decode_agent_reply("2", R"({"event":"done","checksum":7})", 3);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 2u);
  EXPECT_EQ(r->second["checksum"], 7);
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

}  // namespace
}  // namespace testbed
