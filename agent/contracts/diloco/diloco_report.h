// DiLoCo's own section of a data center's final "stats" (beside the van's counters and, at
// the first rank, the ring's model: model_report.h): the outer steps it took and the ring's
// frames it dropped. The agent's DilocoRounds (agent/protocols/diloco/) and StreamingRounds
// (streaming_diloco/: an outer step per fragment) write it; the controller's DilocoRun
// (controller/runs/diloco/) and its check of agents' replies read it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

namespace testbed {

struct DilocoSection {
  uint64_t outer_steps = 0;  // the rounds of H inner steps it ended with an outer step
  // Frames from no worker, of a round already over, or that the all-reduce refused.
  uint64_t dropped = 0;
};

void write_diloco_section(nlohmann::json& report, const DilocoSection& s);
// The section of a final "stats" (none in another system's, or a node with no worker);
// throws ContractError naming a field that is missing, of the wrong type or out of range.
std::optional<DilocoSection> diloco_section_from(const nlohmann::json& report);

}  // namespace testbed
