// What a launched job reports, and what the testbed makes of it. A job appends JSON lines
// to $TESTBED_METRICS, or prints them on stdout behind kMetricsPrefix:
//
//   {"iteration": 12, "loss": 0.41, "samples": 512, "lr": 0.01}
//
//   iteration  a whole number >= 0: the line ends an iteration of this node
//   loss       the held-out loss (the run's loss curve is the mean of the nodes' latest)
//   samples    samples this node processed in the iteration (samples per second)
//   seconds    the iteration's own duration; without it, the time since this node's
//              previous iteration line (or since the launch, for the first)
//   compute_s  of the iteration, the time spent computing (the rest waited on the network):
//              the node's compute utilization, as the built-in runs report it; at most the
//              iteration's seconds
//   others     any other numeric field: a gauge under its name; other kinds are ignored
//
// A line that is not a JSON object, or whose known fields have the wrong type or range, is
// dropped and counted against its node, never fatal: the job is not trusted. Pure.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace testbed {

// Stdout lines that start with this carry a metrics line, for jobs that cannot open a file.
constexpr std::string_view kMetricsPrefix = "TESTBED_METRICS ";

// Longer lines are malformed: a job writing a megabyte to one line has a bug, and the
// controller must not hold its memory hostage. 64 KiB holds a thousand gauges.
constexpr size_t kMaxMetricsLine = 64 * 1024;

struct MetricLine {
  std::optional<uint64_t> iteration;
  std::optional<double> loss, samples, seconds, compute_s;
  std::map<std::string, double> gauges;
};

// The parsed line, or nullopt with `why` set.
std::optional<MetricLine> parse_metric_line(std::string_view line, std::string& why);

// Every node's reports over one launch, in arrival order.
class JobMetrics {
 public:
  explicit JobMetrics(std::vector<std::string> nodes);

  // A line from node `rank` at `t_s` seconds since the launch. Returns the events for the
  // lab's exporter (train_metrics.h: job_iteration, job_loss, job_value), none when the
  // line was malformed.
  std::vector<nlohmann::json> add(size_t rank, std::string_view line, double t_s,
                                  const std::string& job);

  size_t accepted() const { return accepted_; }
  size_t malformed() const;
  // The per-node figures, the run's loss curve, final loss and time to `target`, and the
  // line counts, as `launch --json` and runs/*.json carry them.
  nlohmann::json summary(std::optional<double> target_loss) const;

 private:
  struct Node {
    std::string name;
    uint64_t iterations = 0;
    std::optional<uint64_t> last_iteration;
    double last_iteration_t = 0;
    std::vector<double> iteration_s;
    double samples = 0;
    std::optional<double> compute_s;                // its iterations' compute, when reported
    std::vector<std::pair<double, double>> losses;  // (t, loss)
    std::map<std::string, double> gauges;           // latest values
    size_t malformed = 0;
    std::string last_error;
  };
  std::vector<Node> nodes_;
  size_t accepted_ = 0;
};

}  // namespace testbed
