#include "controller/lab/fit/run_demand.h"

#include <algorithm>

namespace testbed {
namespace {

bool delayed(const PlannedDirection& d) {
  return d.queue >= 0 || d.netem.has_value();
}

double data_packets_per_s(uint64_t bits_per_s) {
  return static_cast<double>(bits_per_s) / 8.0 / kBytesPerDataPacket;
}

}  // namespace

uint64_t peak_bits_per_s(const DirectionParams& d) {
  uint64_t peak = d.rate.bits_per_s;
  for (const auto& c : d.schedule.changes)
    if (c.rate) peak = std::max(peak, c.rate->bits_per_s);
  if (d.schedule.kind == Schedule::Kind::kRandom) {
    peak = std::max(peak, d.schedule.max_rate.bits_per_s);
    for (const auto& r : d.schedule.choices) peak = std::max(peak, r.bits_per_s);
  }
  return peak;
}

RunDemand estimate_demand(const Plan& plan) {
  RunDemand demand;
  for (const auto& link : plan.links) {
    using Pair = std::pair<const PlannedDirection*, const PlannedDirection*>;
    for (const Pair& pair : {Pair{&link.a2b, &link.b2a}, Pair{&link.b2a, &link.a2b}}) {
      const PlannedDirection& data = *pair.first;
      const PlannedDirection& acks = *pair.second;
      const uint64_t bits = peak_bits_per_s(data.params);
      const double packets = data_packets_per_s(bits);
      if (delayed(data)) {
        ++demand.directions;
        demand.packets_per_s += packets;
        demand.bits_per_s += static_cast<double>(bits);
      }
      // The ACKs of this direction's data cross the reverse direction's delay.
      if (delayed(acks)) demand.packets_per_s += packets;
    }
  }
  return demand;
}

nlohmann::json demand_to_json(const RunDemand& d) {
  return {{"packets_per_s", d.packets_per_s},
          {"bits_per_s", d.bits_per_s},
          {"delayed_directions", d.directions},
          {"rule",
           "every delayed direction at its peak rate, in packets of 2 x 1448 bytes, and as "
           "many ACKs the other way"}};
}

}  // namespace testbed
