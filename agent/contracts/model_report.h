// A model's values in a node's final "stats", for the check against the single-process
// reference run: a parameter-server shard's (ps_node_report.h) and the model a ring holds,
// sent by its first rank (RR-Sync's all-reduce and DiLoCo, under "allreduce"). The agent
// writes them, the controller's session and its check of agents' replies read them.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace testbed {

// Values travel in a report only up to this many: beyond, the JSON would dwarf the run
// (200,000 floats are about 2 MB of text), and the check is skipped.
constexpr size_t kReportValuesUpTo = 200000;

// Adds the ring's model to `report`.
void write_ring_model(nlohmann::json& report, const std::vector<float>& values);
// The ring's model in `report`, or nullopt when it carries none; throws ContractError
// naming a malformed field (a NaN travels as null and comes back NaN).
std::optional<std::vector<float>> ring_model_from(const nlohmann::json& report);

}  // namespace testbed
