// current.json's contract (controller/dynamics/current_links.h): what record_current
// writes, read_current reads back field for field, and live_directions overlays on the
// plan; a file that is not as written is refused with the direction and field it got wrong.
#include "controller/dynamics/current_links.h"

#include <gtest/gtest.h>

#include "agent/contracts/message_fields.h"

namespace testbed {
namespace {

CurrentLinks some_links() {
  CurrentDirection cut;
  cut.rate = Rate{50'000'000};
  cut.delay = Duration{15'000};
  cut.jitter = Duration{2'000};
  cut.loss = Fraction{0.01};
  cut.down = true;
  cut.shaping = RateShaping{6'250'000, 15'000, QueueLimit{QueueLimit::Unit::kPackets, 100}};
  CurrentDirection netem = cut;
  netem.down = false;
  netem.netem = IngressNetem{"tbifb3", NetemParams{15'000, 2'000, 0.01, 1000, true, {}}};
  return {{"3:a2b", cut}, {"12:b2a", netem}};
}

std::string refusal(const nlohmann::json& j) {
  try {
    current_links_from_json(j, "lab/current.json");
  } catch (const ContractError& e) {
    return e.what();
  }
  return "";
}

TEST(CurrentLinks, WhatIsWrittenReadsBackFieldForField) {
  const CurrentLinks in = some_links();
  const CurrentLinks out =
      current_links_from_json(nlohmann::json::parse(to_json(in).dump()), "lab/current.json");
  ASSERT_EQ(out.size(), 2u);
  for (const auto& [key, d] : in) {
    const CurrentDirection& o = out.at(key);
    EXPECT_EQ(o.rate.bits_per_s, d.rate.bits_per_s) << key;
    EXPECT_EQ(o.delay.us, d.delay.us) << key;
    EXPECT_EQ(o.jitter.us, d.jitter.us) << key;
    EXPECT_DOUBLE_EQ(o.loss.value, d.loss.value) << key;
    EXPECT_EQ(o.down, d.down) << key;
    EXPECT_EQ(o.shaping, d.shaping) << key;
    EXPECT_EQ(o.netem, d.netem) << key;
  }
  EXPECT_TRUE(current_links_from_json(nlohmann::json::object(), "x").empty());
}

TEST(CurrentLinks, AFileNotAsWrittenIsRefusedNamingTheDirectionAndField) {
  const nlohmann::json good = to_json(some_links());
  const auto with = [&](const std::string& key, const char* field, nlohmann::json value) {
    nlohmann::json j = good;
    if (value.is_null())
      j[key].erase(field);
    else
      j[key][field] = value;
    return refusal(j);
  };
  EXPECT_NE(with("3:a2b", "delay_us", "15ms").find("lab/current.json.3:a2b.delay_us"),
            std::string::npos);
  EXPECT_NE(with("3:a2b", "loss", 1.5).find("lab/current.json.3:a2b.loss"), std::string::npos);
  EXPECT_NE(with("3:a2b", "jitter_us", -1).find("3:a2b.jitter_us"), std::string::npos);
  EXPECT_NE(with("12:b2a", "down", nullptr).find("12:b2a.down is missing"), std::string::npos);
  EXPECT_NE(
      with("12:b2a", "shaping", {{"rate_bits_per_s", 1}}).find("12:b2a.shaping is not as written"),
      std::string::npos);
  EXPECT_NE(with("12:b2a", "speed", 1).find("12:b2a.speed is not a field"), std::string::npos);
  nlohmann::json stray = good;
  stray["3:sideways"] = good["3:a2b"];
  EXPECT_NE(refusal(stray).find("3:sideways is no link direction"), std::string::npos);
  EXPECT_NE(refusal(nlohmann::json::array()).find("not an object"), std::string::npos);
}

}  // namespace
}  // namespace testbed
