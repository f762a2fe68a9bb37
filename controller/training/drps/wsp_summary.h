// What a WSP run reports (`train --json`'s `wsp`), pure: the master's counters, its waits
// summarised (how long each was expected and how long it took, and how many delta
// forced), and our readings where the paper is silent or its text lost the formula.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "agent/contracts/drps/drps_report.h"

namespace testbed {

// `master`: the master's section of its node's report (agent/contracts/drps/drps_report.h);
// `delta`: the bound, TrainingSetup::kNoBound for none.
nlohmann::json wsp_summary(const WspMasterSection& master, const std::string& master_node,
                           int delta);

}  // namespace testbed
