// Several workers of one job in one process: a data center's workers in Gaia, or a
// machine's worker threads behind Bösen's process cache. They read the same parameters,
// and their updates are summed before they leave the node, so K workers on each of N
// nodes train exactly as N*K single workers under BSP (the single-process reference of
// N*K workers checks it).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "agent/jobs/compute_time.h"
#include "agent/jobs/job.h"

namespace testbed {

// Sees each worker's own update before the node sums them: Gaia's Fig. 5 counts updates
// as the worker machines send them (protocols/gaia/update_census.h).
using WorkerUpdateObserver = std::function<void(const SparseUpdate&)>;

// Node `node`'s workers are the job's workers node*per_node .. node*per_node+per_node-1;
// `config.workers` counts the workers of all nodes. One worker per node without an
// observer is the job itself.
std::unique_ptr<Job> make_local_workers(const JobConfig& config, int node, int per_node,
                                        WorkerUpdateObserver observe = {});

// The emulated compute time of a node's `per_node` workers in `clock` when they wait for
// one another (BSP inside the node): the slowest draw, each times `stragglers.factor` when
// that worker straggles this clock, times the node's slow-down factor. One worker without
// stragglers draws as draw_compute_ms(range, seed, node, clock) always did.
int local_compute_ms(const ComputeRange& range, uint64_t seed, int node, int per_node,
                     uint64_t clock, double slowdown = 1.0, const Stragglers& stragglers = {});
// Local worker k's own compute time in `clock` (SSP inside the node: each goes at its own
// pace); local_compute_ms is the slowest of these.
int worker_compute_ms(const ComputeRange& range, uint64_t seed, int node, int k, uint64_t clock,
                      double slowdown = 1.0, const Stragglers& stragglers = {});

}  // namespace testbed
