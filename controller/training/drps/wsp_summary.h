// What a WSP run reports (`train --json`'s `wsp`), pure: the master's counters, its waits
// summarised (how long each was expected and how long it took, and how many delta
// forced), and our readings where the paper is silent or its text lost the formula.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace testbed {

// `master`: the master's stats (agent/protocols/drps/wsp_policy.cpp's stats); `delta`: the bound,
// kWspNoBound for none.
nlohmann::json wsp_summary(const nlohmann::json& master, const std::string& master_node, int delta);

}  // namespace testbed
