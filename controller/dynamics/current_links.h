// current.json: the values each link direction has now, where the timeline, `testbed link`
// or a fault changed them since `up` (a direction never changed is absent: its plan's
// values hold). Written by record_current under the lab's lock, read by every verb that
// needs the links as they are (live_directions, `status`, the exporter). One struct, one
// writer, one reader: a file that is not as written is refused with the direction and
// field it got wrong (a ContractError), never read by key elsewhere.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "controller/topology/units.h"
#include "netns/kernel.h"

namespace testbed {

struct CurrentDirection {
  Rate rate;
  Duration delay, jitter;
  Fraction loss;
  bool down = false;                  // cut by a fault until it is up again
  RateShaping shaping;                // the sender's class, as sized for `rate`
  std::optional<IngressNetem> netem;  // netem backend: the receiver's
};

// By direction key, LiveDirection::key(): "3:a2b".
using CurrentLinks = std::map<std::string, CurrentDirection>;

nlohmann::json to_json(const CurrentLinks& links);
// `where` names the file in an error ("/run/testbed/lab/current.json").
CurrentLinks current_links_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace testbed
