#include "controller/placement/placement_lp.h"

#include <glpk.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace testbed::placement {
namespace {

struct ProblemDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

}  // namespace

LpSolution solve_problem4(const std::vector<FlowPaths>& flows, const CapacityRows& rows,
                          double model_bits) {
  std::unique_ptr<glp_prob, ProblemDeleter> lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MAX);
  // Rows: the capacities first, then one equality per flow (sum of its z, minus m, = 0).
  const int capacity_rows = static_cast<int>(rows.size());
  glp_add_rows(lp.get(), capacity_rows + static_cast<int>(flows.size()));
  for (int r = 0; r < capacity_rows; ++r)
    glp_set_row_bnds(lp.get(), r + 1, GLP_UP, 0.0,
                     rows.capacity_bps(static_cast<size_t>(r)) / model_bits);
  for (size_t f = 0; f < flows.size(); ++f)
    glp_set_row_bnds(lp.get(), capacity_rows + static_cast<int>(f) + 1, GLP_FX, 0.0, 0.0);
  // Columns: m, then every z_fp. GLPK's sparse arrays start at index 1.
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0.0};
  const auto add = [&](int row, int col, double value) {
    ia.push_back(row);
    ja.push_back(col);
    ar.push_back(value);
  };
  int columns = 1;
  for (const auto& f : flows) columns += static_cast<int>(f.paths.size());
  glp_add_cols(lp.get(), columns);
  glp_set_col_bnds(lp.get(), 1, GLP_LO, 0.0, 0.0);
  glp_set_obj_coef(lp.get(), 1, 1.0);
  for (size_t f = 0; f < flows.size(); ++f) add(capacity_rows + static_cast<int>(f) + 1, 1, -1.0);
  int col = 2;
  for (size_t f = 0; f < flows.size(); ++f) {
    for (const auto& p : flows[f].paths) {
      glp_set_col_bnds(lp.get(), col, GLP_LO, 0.0, 0.0);
      // A path crossing a row twice cannot happen (simple paths), so each entry is new.
      for (size_t row : rows.rows_of(p)) add(static_cast<int>(row) + 1, col, p.hops());
      add(capacity_rows + static_cast<int>(f) + 1, col, 1.0);
      ++col;
    }
  }
  glp_load_matrix(lp.get(), static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  if (const int rc = glp_simplex(lp.get(), &parm); rc != 0)
    throw std::runtime_error("glp_simplex failed (code " + std::to_string(rc) + ")");
  if (const int status = glp_get_status(lp.get()); status != GLP_OPT)
    throw std::runtime_error("glp_get_status: Problem 4 has no optimum (status " +
                             std::to_string(status) + ")");
  LpSolution s;
  s.m = glp_get_col_prim(lp.get(), 1);
  col = 2;
  for (const auto& f : flows) {
    auto& z = s.z.emplace_back();
    for (size_t p = 0; p < f.paths.size(); ++p) z.push_back(glp_get_col_prim(lp.get(), col++));
  }
  return s;
}

}  // namespace testbed::placement
