// Gaia's part of an agent's setup (TrainingSetup::gaia): the significance filter, the
// mirror clock, each data center's mirrors and how long each may fall silent. The controller
// fills it from Gaia's plan (controller/training/gaia/gaia_plan.h), each data center's
// agent reads it (agent/protocols/gaia/); every field is required, so the two ends cannot
// disagree on a default.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

namespace testbed {

class FieldReader;

struct GaiaMirrorLink {
  int node = -1;            // the data center mirrored to
  size_t window_bytes = 0;  // the bytes in flight on its path (the send window)
  bool hub = false;         // a hub of the overlay, relaying for its group (Sec. 3.3)
  bool operator==(const GaiaMirrorLink&) const = default;
};

struct GaiaSetup {
  double threshold = 0;  // the significance filter's v, as a fraction (Sec. 3.2)
  int ds = 0;            // the mirror clock's data-center staleness; negative: off
  bool soft = false;     // the soft threshold (Sec. 4.3)
  // Inside a data center: -1 for BSP, else SSP's bound in clocks (Appendix B).
  int local_staleness = -1;
  bool t_in_passes = false;  // t in v/sqrt(t) counts passes over the data, not clocks
  // Per data center (node): the mirrors it sends to.
  std::map<int, std::vector<GaiaMirrorLink>> mirrors;
  // A mirror presumed cut off is left out (true: "continue") or waited for ("block").
  bool continue_when_cut = true;
  // Per data center (node), per mirror (node): the silence after which it is presumed cut.
  std::map<int, std::map<int, int64_t>> silence_ms;
  bool operator==(const GaiaSetup&) const = default;
};

nlohmann::json to_json(const GaiaSetup& g);
// Throws ContractError naming the field; `nodes`: the run's node count (indices below it).
GaiaSetup gaia_setup_from(const FieldReader& r, size_t nodes);

}  // namespace testbed
