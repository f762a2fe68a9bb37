// The held-out loss of a run against wall time, from the workers' evaluations, and the
// figures that judge approximate strategies by it: time to a target loss and final loss.
//
// Each worker evaluates its own held-out shard on its own view of the parameters, every
// eval interval. The run's loss at a moment is the mean of every worker's latest
// evaluation (equal shards), defined once each worker has evaluated once; a point is
// added whenever an evaluation arrives. Pure, tested without agents.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace testbed {

class LossCurve {
 public:
  explicit LossCurve(int workers)
      : latest_(static_cast<size_t>(workers)), gone_(static_cast<size_t>(workers), false) {}

  // Worker `worker` evaluated `loss` at `t_s` seconds into the run.
  void add(int worker, double t_s, double loss);
  // Whether a worker's evaluations count (not an elastic run's that is outside: left,
  // crashed, or not come in yet); the mean is over those that do.
  void set_counted(int worker, bool counted) { gone_.at(static_cast<size_t>(worker)) = !counted; }

  struct Point {
    double t_s, loss;
  };
  const std::vector<Point>& points() const { return points_; }
  // The mean of the latest evaluations, once every worker has one.
  std::optional<double> current() const;
  // The first time the curve is at or below `target`.
  std::optional<double> time_to(double target) const;
  nlohmann::json to_json() const;  // [[t, loss], ...]

 private:
  std::vector<std::optional<double>> latest_;
  std::vector<bool> gone_;
  std::vector<Point> points_;
};

// `--target-rule converged`, Gaia's rule (Sec. 5.3), which every strategy may be timed by:
// "if the value of the objective function changes by less than 2% over the course of 10
// iterations, we declare that the algorithm has converged"; the absolute value reached then
// is every run's target. objective[c] is the value before clock c. Returns the first such
// c, or nothing when the curve never settles.
std::optional<size_t> converged_at(const std::vector<double>& objective, double change = 0.02,
                                   size_t over = 10);

}  // namespace testbed
