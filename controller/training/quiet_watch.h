// Tells a run that waits on a lost message from a slow one. The stall watch
// (health/stall_watch.h) sees data that does not move; a message that was never sent, or
// was sent to the wrong node, or dropped as malformed leaves nothing queued, and workers
// blocked on it would wait forever. So the controller watches the workers' own progress:
// when no worker has finished a clock for the limit while the network held nothing stuck,
// the run fails, naming every worker still waiting and the clock it waits in.
// Pure: the session feeds it the workers' events and the stall watch's verdict.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace testbed {

class QuietWatch {
 public:
  // The limit, 300 s: the tree protocol's agents give up waiting for an iteration's data
  // after as long (tree_protocol.cpp), and the slowest clock of the bundled suites (a
  // 1 MB model over N3's 0.8 Mbit/s links, DRPS from disk) takes tens of seconds; so a
  // clock this late is lost, never slow, on a loaded 2-core machine too.
  static constexpr double kLimitS = 300;

  QuietWatch(std::vector<std::string> workers, double start_s, double limit_s = kLimitS);

  // Worker `w` has finished `clocks` clocks, or its run.
  void clock_done(size_t w, uint64_t clocks, double now_s);
  void finished(size_t w, double now_s);
  // Time the network spends stalled is the stall watch's to report: it does not count.
  void network_stalled(double now_s) { last_progress_s_ = now_s; }
  // Why the run cannot go on, when it has been quiet past the limit; else nothing.
  std::optional<std::string> lost(double now_s) const;

 private:
  std::vector<std::string> workers_;
  std::vector<uint64_t> clocks_;
  std::vector<char> finished_;
  double last_progress_s_;
  double limit_s_;
};

}  // namespace testbed
