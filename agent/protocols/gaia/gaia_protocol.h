// Gaia (Hsieh et al., NSDI'17): every node is a data center. Its workers (`workers_per_node`
// of them, in this process: the node's namespace stands for the data center's LAN, and
// its traffic never crosses a shaped link) read and update the data center's own full
// replica of the model under BSP: each clock, every local worker computes from the same
// values and their summed update is applied at the clock's end. Between data centers,
// Approximate Synchronous Parallel: the significance filter (significance_filter.h) picks
// what the mirrors must see, the mirror client (mirror_client.h) sends it, and the mirror
// state (mirror_state.h) holds reads back by the selective barrier and the mirror clock.
//
// Commands (as the parameter server's, ps_protocol.h):
//   setup {protocol: gaia, endpoints, job: {name, seed, scale, parameters, workers_per_node},
//          workers: [nodes, one per data center], iterations, compute: {min_ms, max_ms},
//          seed, eval_interval_ms, slow: {node: factor},
//          gaia: {threshold, ds, soft, t: clock|pass,
//                 mirrors: {node: [{node, window_bytes, hub}]},
//                 partition: block|continue, silence_ms: {node: {node: ms}}}}      -> ready
//   start, stop, evaluate, stats      as the parameter server's; stats adds `gaia`
//   digest          -> {event: digest, clock, norm, sketch: [floats], waiting_keys}: the
//                      replica summed into replica_digest.h's sketch, for the controller's
//                      divergence between data centers
// Events of its own: {event: mirror_cut, node, cut: bool} when the mirror watch presumes a
// mirror cut off or hears it again (gaia_partition.cpp).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "agent/contracts/gaia/gaia_setup.h"
#include "agent/jobs/compute_time.h"
#include "agent/jobs/job.h"
#include "agent/protocols/gaia/mirror_client.h"
#include "agent/protocols/gaia/mirror_state.h"
#include "agent/protocols/gaia/mirror_watch.h"
#include "agent/protocols/gaia/significance_filter.h"
#include "agent/protocols/gaia/update_census.h"
#include "agent/protocols/worker_clock_log.h"
#include "agent/runtime/protocol.h"

namespace testbed {

class GaiaProtocol : public Protocol {
 public:
  explicit GaiaProtocol(AgentLink& link) : link_(link), self_(link.self()), log_(link) {}
  void setup(const nlohmann::json& cmd) override;
  void command(const std::string& verb, const nlohmann::json& cmd) override;
  void message(Received r) override;
  void tick() override;
  std::chrono::milliseconds timeout() const override;

 private:
  using Clock = std::chrono::steady_clock;
  void try_read();
  void end_clock();
  void server_clock_ended();  // the filter's pass, the mirrors' update and clock report
  void note_block(ReadBlock block, Clock::time_point now);
  // Sec. 4.5's overlay: what a hub passes on, summed until it is sent.
  void stage_relay(const Received& r);
  void forward_relays();
  static void add_to(std::map<uint32_t, float>& into, const Significant& s);
  void finish();
  // The data center's workers' mean held-out loss on the replica (mf's L is the workers').
  double held_out_loss() const;
  // SSP inside the data center (gaia_local_ssp.cpp).
  void ssp_try_read();
  void ssp_tick();
  void ssp_clock_started();
  nlohmann::json stats() const;
  // A mirror cut off or heard again (gaia_partition.cpp): the watch's setup, its heartbeats
  // and verdicts, and the controller's digest of the replica.
  void setup_watch(const GaiaSetup& gaia);
  void heard_from(int node);
  void watch_tick();
  void reply_digest() const;

  AgentLink& link_;
  int self_;
  std::vector<int> data_centers_;  // node of each data center
  int per_node_ = 1;
  std::unique_ptr<Job> job_;   // this data center's workers, summed (BSP inside; else null)
  std::vector<float> values_;  // the data center's replica
  std::unique_ptr<SignificanceFilter> filter_;
  UpdateCensus census_;  // every local worker's update, as Fig. 5 counts them
  // The filter's counts per clock ended: updates accumulated, and those sent (hard or soft).
  std::vector<uint64_t> filtered_by_clock_, sent_by_clock_;
  FilterCounts counted_;  // the filter's counts at the last clock's end
  std::unique_ptr<MirrorState> mirrors_;
  std::unique_ptr<MirrorClient> client_;
  std::unique_ptr<MirrorWatch> watch_;    // null when the setup named no silence bounds
  bool go_on_when_cut_ = true;            // the `continue` policy (else `block`)
  std::set<int> hubs_;                    // other groups' hubs this data center exchanges with
  bool group_members_ = false;            // whether its group has other members
  std::map<uint32_t, float> from_group_;  // for the other groups' hubs
  std::map<uint32_t, float> from_other_groups_;  // for this group's members, relayed
  uint64_t relays_staged_ = 0;
  // t of v/sqrt(t): clocks, or passes begun (the job's clocks per pass).
  bool t_in_passes_ = false;
  uint64_t clocks_per_pass_ = 1;

  int iterations_ = 0;
  ComputeRange compute_;
  double slowdown_ = 1.0;
  Stragglers stragglers_;
  uint64_t seed_ = 0;
  std::chrono::milliseconds eval_interval_{1000};

  // SSP inside the data center (`local_staleness`, Appendix B's setting): each local worker
  // at its own clock, reading the replica while at most that many clocks ahead of the data
  // center's slowest; the server's clock (clock_) is the slowest worker's. -1: BSP, every
  // local worker in the same clock, their updates summed (the paper's main results).
  int local_staleness_ = -1;
  struct LocalWorker {
    std::unique_ptr<Job> job;
    uint64_t clock = 0;
    bool computing = false;
    std::chrono::steady_clock::time_point compute_end;
    SparseUpdate update;
  };
  std::vector<LocalWorker> local_;
  uint64_t local_max_ahead_ = 0;  // most clocks a local worker read ahead of the server's

  enum class Phase { kIdle, kReading, kComputing, kFinished } phase_ = Phase::kIdle;
  uint64_t clock_ = 0;
  bool stop_requested_ = false;
  Clock::time_point next_eval_, compute_end_;
  SparseUpdate update_;
  WorkerClockLog log_;

  // How reads were held back: count and time per reason.
  ReadBlock blocked_ = ReadBlock::kNone;
  Clock::time_point blocked_since_;
  uint64_t blocked_reads_clock_ = 0, blocked_reads_barrier_ = 0;
  double blocked_s_clock_ = 0, blocked_s_barrier_ = 0;
  uint64_t barriers_received_ = 0, updates_received_ = 0, applied_keys_ = 0;
};

}  // namespace testbed
