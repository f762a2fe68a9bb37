// A training job as a parameter server sees it: a model of `parameters()` float keys held
// by the servers, and one worker's part: its data shard, any state it keeps to itself
// (matrix factorization's user factors), and its held-out shard.
//
// A worker reads the keys it needs for a clock, computes an update and pushes it; the
// servers add the updates of all workers to the parameters (Bösen's and ps-lite's
// additive updates). Every job scales its update so that the sum over workers is one step
// of its full-batch (or seeded mini-batch) optimizer: BSP on the servers is then exactly
// the single-process run of reference_run(), whatever the number of servers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace testbed {

struct JobConfig {
  std::string name;  // logreg, mf, lmf, sparse-lr, dense
  uint64_t seed = 1;
  int workers = 1;
  double scale = 1.0;     // of the job's data and model size; 1 is the benchmark size
  size_t parameters = 0;  // dense: the model's size in floats (a named model, scaled)
  // What the t of a decaying step size counts: clocks (false) or passes over the worker's
  // data (true; IterStore's and Bösen's iterations). Gaia's threshold v/sqrt(t) counts the
  // same t (Sec. 3.5 pairs eta/sqrt(t) with it). Only jobs whose step decays read it (mf,
  // whose schedule by reading is in matrix_factorization.cpp).
  bool t_in_passes = false;
};

// What a worker pushes: additive deltas for some keys (sorted, unique), or for all keys
// when `keys` is empty and `values` has parameters() entries.
struct SparseUpdate {
  std::vector<uint32_t> keys;
  std::vector<float> values;
};

// Adds `u` into the dense `total` (parameters() entries), in double precision as the
// servers sum updates.
void add_update(const SparseUpdate& u, std::vector<double>& total);

class Job {
 public:
  virtual ~Job() = default;
  virtual size_t parameters() const = 0;
  // The servers' starting value of `key` (the same for every server and run of a seed).
  virtual float initial_value(uint32_t key) const = 0;
  // The keys the update at `clock` reads, sorted and unique; empty means every key.
  virtual std::vector<uint32_t> keys_for(uint64_t clock) const = 0;
  // The keys the held-out loss reads; empty means every key.
  virtual std::vector<uint32_t> eval_keys() const = 0;
  // This worker's update at `clock`, from `w` (parameters() values, of which the keys
  // keys_for(clock) are current). May change the worker's own state.
  virtual SparseUpdate update(uint64_t clock, const std::vector<float>& w) = 0;
  // Mean loss over this worker's held-out shard (eval_keys() of `w` current).
  virtual double held_out_loss(const std::vector<float>& w) const = 0;
  // Training samples one update processes (for samples/s).
  virtual size_t samples_per_update() const = 0;
  // Clocks in one pass over the worker's data: 1 for a full-batch job, the mini-batches of
  // a pass for a mini-batch one.
  virtual uint64_t clocks_per_pass() const { return 1; }
};

// The t of v/sqrt(t) and eta/sqrt(t) after `clocks_ended` (>= 1) clocks: those clocks, or
// the passes begun (the first pass is t = 1).
uint64_t schedule_t(uint64_t clocks_ended, uint64_t clocks_per_pass, bool in_passes);

// The jobs there are; throws std::invalid_argument naming them for another name.
const std::vector<std::string>& job_names();
bool is_job(const std::string& name);
std::unique_ptr<Job> make_job(const JobConfig& config, int worker);

// The same training in one process: every clock, each worker's update is computed from
// the same parameters, summed in double precision and applied (BSP by definition).
// held_out[c] is the mean held-out loss over workers before clock c (c = 0..iterations).
struct ReferenceRun {
  std::vector<float> parameters;
  std::vector<double> held_out;
};
ReferenceRun reference_run(const JobConfig& config, int iterations);

}  // namespace testbed
