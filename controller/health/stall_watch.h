// Tells a stalled run from a slow one, and names what stalls it. Between every two nodes of
// a run there is a TCP connection from the sender to the receiver's agent port; data
// written to it but not yet acknowledged is its send queue (netns/tcp_queues.h). While
// bytes flow, that queue changes within a round trip; a queue that holds data, has not
// changed for `after` seconds and is in loss recovery (a retransmission timeout fired, or
// zero-window probes went out, since the last acknowledgement that moved) is stuck: the
// link delivers nothing (a rate of nearly zero, 100% loss), or the receiver does not read
// (a paused or hung node; its socket then holds unread bytes). Without the last condition a
// stream of small messages whose acknowledgements are delayed past the next message read
// as stuck: the same few hundred bytes queued at every look, different bytes each time
// (measured: a BSP run with its servers on one node, every worker's pair "stuck" for 40 s).
// A run that waits and has a stuck pair is stalled; the pairs, their bytes and since when
// are its report. Pure but for the reader of the queues, which is passed in.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "netns/tcp_queues.h"

namespace testbed {

struct StuckPair {
  std::string from, to;
  uint64_t queued_bytes = 0;  // written by `from`, not acknowledged by `to`
  uint64_t unread_bytes = 0;  // delivered to `to`'s socket, not read by its agent
  double seconds = 0;         // since the queue last changed
  // Where the fault is: "link" (nothing delivered) or "receiver" (delivered, not read).
  std::string cause() const { return unread_bytes > 0 ? "receiver" : "link"; }
};

struct StallEpisode {
  double started_s = 0;  // since the watch began: when the first stuck queue last moved
  double seconds = 0;    // how long it lasted (so far, while it goes on)
  bool ongoing = true;
  std::vector<StuckPair> pairs;  // the most pairs seen stuck at once, with their figures
};

class StallWatch {
 public:
  using Clock = std::chrono::steady_clock;
  // Node n's sockets: in a run, the table of the namespace its agent is in.
  using QueueReader = std::function<std::vector<TcpQueue>(size_t node)>;
  // A queue this long unchanged is stuck. Healthy queues move every round trip (well under
  // a second on the bundled WANs), and TCP's retransmission back-off reaches 10 s only after
  // five losses in a row of one segment; a pause of a few seconds (a node stopped for 5 s)
  // is not a stall.
  static constexpr double kStuckAfter = 10.0;
  // Queues are read at most this often.
  static constexpr double kSampleEvery = 1.0;
  // A sample reads nodes' tables, in turn from where the last stopped, until this much time
  // is spent; every node is read when time allows. Reading one namespace's table walks the
  // kernel's table of established TCP sockets, which every namespace shares (262,144
  // buckets on this 24 GB machine): 3.8 ms of CPU, so a sample of a 1000-node run took 3.8
  // s, and the controller, busy reading, heard its 1000 agents' hellos one per sample and
  // gave up on them. 100 ms is a tenth of the controller's time: a run of up to about 25
  // nodes is read whole at each sample, as before; at 1000 nodes a node is read every 40 s
  // or so, and a stall is named that much later (the run ends a stall at 295 s). A queue
  // counts as unchanged only between two reads.
  static constexpr std::chrono::milliseconds kReadBudget{100};

  // `clock` times the reads against kReadBudget (scripted in tests).
  StallWatch(std::vector<std::string> names, std::vector<std::string> addresses, uint16_t port,
             QueueReader read, Clock::time_point start, double stuck_after = kStuckAfter,
             std::function<Clock::time_point()> clock = Clock::now);

  // Samples the queues when due. Returns the episode when a stall begins, for a report.
  std::optional<StallEpisode> poll(Clock::time_point now);
  bool stalled() const { return !episodes_.empty() && episodes_.back().ongoing; }
  // The stall under way, if any.
  const StallEpisode* current() const { return stalled() ? &episodes_.back() : nullptr; }
  // Every episode, as the run's summary reports them ("stalls").
  nlohmann::json to_json() const;

 private:
  std::vector<StuckPair> sample(Clock::time_point now);

  // Reads nodes' tables from the cursor on, within kReadBudget; returns which were read.
  std::vector<bool> read_some(Clock::time_point now);

  std::vector<std::string> names_, addresses_;
  std::map<std::string, size_t> node_at_;  // by address
  uint16_t port_;
  QueueReader read_;
  std::function<Clock::time_point()> clock_;
  std::vector<std::vector<TcpQueue>> tables_;  // each node's table as last read
  std::vector<Clock::time_point> read_at_;     // and when
  size_t cursor_ = 0;                          // the node the next sample reads first
  Clock::time_point start_, last_sample_{}, last_stuck_{};
  double stuck_after_;
  struct Queue {
    uint64_t bytes = 0;
    Clock::time_point changed;
  };
  std::map<std::pair<size_t, size_t>, Queue> queues_;  // (from, to) -> its send queue
  std::vector<StallEpisode> episodes_;
};

// One line for a person: "n2 -> n3: 1.2 MB not acknowledged for 12 s (the link delivers
// nothing)"; pairs separated by "; ".
std::string describe(const std::vector<StuckPair>& pairs);

}  // namespace testbed
