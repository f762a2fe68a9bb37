// Renders a plan for people: nodes, links with per-direction shaping, routes, and steps.
#pragma once

#include <ostream>

#include "plan.h"

namespace testbed {

void print_plan_table(const Plan& plan, std::ostream& out, bool with_steps);

// Pads columns to the widest cell; shared by `plan` and `status`.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out, const std::string& indent = "  ") const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace testbed
