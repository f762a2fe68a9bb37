// Renders a plan for people: nodes, links with per-direction shaping, routes, and steps.
#pragma once

#include <ostream>

#include "controller/lab/plan.h"

namespace testbed {

// Routes are listed when asked for, or when there are few enough to read: beyond 10,000
// lines (a lab of about 100 nodes) a table is searched, not read, and one of 1000 nodes
// would print 999,000 lines; the rule and the count stand in for them.
constexpr size_t kRoutesListedUnasked = 10000;
bool list_routes(size_t count, bool asked);

void print_plan_table(const Plan& plan, std::ostream& out, bool with_steps,
                      bool with_routes = false);
void print_routes(const std::vector<PlannedRoute>& routes, std::ostream& out);

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
