#include "controller/dynamics/current_links.h"

#include "agent/contracts/message_fields.h"
#include "controller/lab/plan.h"

namespace testbed {

nlohmann::json to_json(const CurrentLinks& links) {
  nlohmann::json all = nlohmann::json::object();
  for (const auto& [key, d] : links) {
    all[key] = {{"rate_bits_per_s", d.rate.bits_per_s},
                {"delay_us", d.delay.us},
                {"jitter_us", d.jitter.us},
                {"loss", d.loss.value},
                {"down", d.down},
                {"shaping", shaping_to_json(d.shaping)}};
    if (d.netem) all[key]["netem"] = netem_to_json(*d.netem);
  }
  return all;
}

CurrentLinks current_links_from_json(const nlohmann::json& j, const std::string& where) {
  CurrentLinks links;
  const FieldReader file(j, where);
  for (const auto& [key, value] : j.items()) {
    // A key is LINK:a2b or LINK:b2a; anything else no verb would ever look up.
    const auto colon = key.find(':');
    if (colon == 0 || colon == std::string::npos || key.find_first_not_of("0123456789") != colon ||
        (key.substr(colon) != ":a2b" && key.substr(colon) != ":b2a"))
      throw file.error(key, "is no link direction (LINK:a2b or LINK:b2a)");
    const FieldReader r(value, where + "." + key);
    r.refuse_unknown(
        {"rate_bits_per_s", "delay_us", "jitter_us", "loss", "down", "shaping", "netem"});
    CurrentDirection d;
    d.rate = Rate{r.required<uint64_t>("rate_bits_per_s")};
    const auto at_least_0 = [&](const char* field) {
      return r.in_range(field, r.required<int64_t>(field), int64_t{0}, INT64_MAX);
    };
    d.delay = Duration{at_least_0("delay_us")};
    d.jitter = Duration{at_least_0("jitter_us")};
    d.loss = Fraction{r.in_range("loss", r.required<double>("loss"), 0.0, 1.0)};
    d.down = r.required<bool>("down");
    d.shaping = r.part("shaping", shaping_from_json);
    if (r.json().contains("netem")) d.netem = r.part("netem", netem_from_json);
    links[key] = d;
  }
  return links;
}

}  // namespace testbed
