// Changing a node's CPU share while the lab runs (docs/compute.md): `testbed node set LAB
// NODE --cpus X`, applied in place to the node's control group and logged in timeline.csv
// as a node row whose state is "cpus=X" ("cpus=all" when the limit is lifted).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "controller/lab/lab_state.h"

namespace testbed {

// The lab has no control groups (no node of its profile has `cpus`, `cpuset` or `memory`):
// a share could only be set by making one, which `up` alone does.
class NoComputeGroups : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses "0.5" or "all"; std::nullopt inside the result means no limit. Empty on bad input.
std::optional<std::optional<double>> parse_cpus_setting(const std::string& text);
std::string cpus_state(std::optional<double> cpus);  // "cpus=0.5", "cpus=all"

// Sets the share of `node`'s group and logs the row; `scheduled_s` is when it was due on
// the lab's clock (by hand: now). Throws NoComputeGroups, or naming the node on failure.
void set_lab_node_cpus(const LabState& state, const std::string& lab_dir, const std::string& node,
                       std::optional<double> cpus, std::optional<double> scheduled_s = {});

}  // namespace testbed
