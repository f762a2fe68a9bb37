// Gaia's mirror client (Sec. 4.2): sends a data center's significant updates and control
// messages to its mirrors in the other data centers, over the van.
//
// Control messages (the mirror clock, selective barriers) go at once. Data waits in a
// queue per mirror while the link already has a window of unacknowledged data in flight
// (twice the path's bandwidth-delay product, from the lab's configured rate and delay):
// that is how the filter "detects that significant updates arrive faster than the WAN can
// carry them". Updates that wait are merged into one message per mirror (the client "packs
// together the messages to the same destination"), and their indexes leave first as a
// selective barrier, so they overtake the backlog.
//
// With data-center groups (Sec. 4.5, controller/training/gaia/gaia_groups.h) a data
// center's links are its group's members and, where it is a hub, other groups' hubs; a
// link carries two lanes: its own group's updates, and (to group members only) the
// updates a hub relays from other groups, flagged kRelayed so that no hub passes them on
// again. The lanes share the link's sequence numbers and leave in their order, so a
// mirror's barriers lift as they did with one lane.
//
// A mirror presumed cut off (mirror_watch.h) is sent no control messages (each would wait
// in a queue that cannot drain, and a full queue blocks the sender): its data waits,
// merged, as behind any slow link; heartbeats go only if its queue has room. When it is
// heard again it is sent the current clock and one barrier naming everything that waits
// for it, so that from then on it holds its readers as before.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "agent/protocols/gaia/significance_filter.h"
#include "agent/transport/van.h"

namespace testbed {

struct MirrorLink {
  int node = 0;             // the mirror's node
  size_t window_bytes = 0;  // data in flight before the queue holds it
  bool hub = false;         // a link between two groups' hubs (else: within the group)
};

struct MirrorClientCounts {
  uint64_t data_messages = 0, data_bytes = 0, control_bytes = 0;
  uint64_t barriers = 0, barrier_keys = 0;
  uint64_t merged = 0;         // updates merged into a message still waiting
  uint64_t hub_bytes = 0;      // data bytes on links between hubs
  uint64_t relayed_bytes = 0;  // data bytes of other groups' updates passed on to members
  uint64_t heartbeats = 0, heartbeats_dropped = 0;  // dropped: the mirror's queue was full
  uint64_t control_held = 0;  // clocks and barriers not sent to a mirror presumed cut off
};

// Which of a data center's links an update goes to, and in which lane.
enum class Reach { kGroup, kHubs };
enum class Lane { kOwnGroup = 0, kRelayed = 1 };

class MirrorClient {
 public:
  // `parameters`: the model's size. A message naming at least half of them goes dense (every
  // value, no keys): 4 bytes a parameter instead of 8 for keys and values. `clock_to`: the
  // data centers told of each clock ended (every other one, whatever the groups).
  MirrorClient(Van& van, int self, size_t parameters, std::vector<MirrorLink> mirrors,
               std::vector<int> clock_to);

  // Significant updates, of the clock that just ended, to the links `reach` names.
  void update(const Significant& s, uint64_t clock, Reach reach = Reach::kGroup,
              Lane lane = Lane::kOwnGroup);
  // This data center has ended `clocks` clocks.
  void clock(uint64_t clocks);
  // Mirror `node` acknowledged data message `seq`.
  void acked(int node, uint64_t seq);
  // Every data center is sent `clocks` again if its queue has room (MirrorWatch::kHeartbeat).
  void heartbeat(uint64_t clocks);
  // Mirror `node` is presumed cut off, or heard again after it was (`clocks`: this data
  // center's clock now).
  void set_cut(int node, bool cut, uint64_t clocks);
  // Sends whatever waits, window or not (the end of the run): at most a message a lane,
  // which a queue held short of its bound by the rules above always takes.
  void flush();
  // Nothing waits for any link.
  bool idle() const;
  // Updates waiting for a link (not yet sent), summed over links and lanes.
  uint64_t waiting_keys() const;
  const MirrorClientCounts& counts() const { return counts_; }

 private:
  struct Waiting {
    std::map<uint32_t, float> deltas;  // merged deltas not yet sent
    uint64_t seq = 0;                  // the message they will leave in
    uint64_t clock = 0;
    bool barred_all = false;  // a dense barrier for seq has gone: every key is barred
  };
  struct Link {
    MirrorLink config;
    uint64_t next_seq = 1;
    std::array<Waiting, 2> waiting;        // by Lane
    std::map<uint64_t, size_t> in_flight;  // seq -> bytes
    size_t in_flight_bytes = 0;
  };
  void pump(Link& l, bool force);
  // A barrier on the keys waiting in `w`'s message, new since the last (all, after a cut).
  void bar(Link& l, Waiting& w, uint64_t clock, const std::vector<uint32_t>& keys);
  bool is_cut(int node) const { return cut_.count(node) > 0; }
  void send(Link& l, Lane lane);
  // `all_keys`, or a list naming most keys: the header alone, flagged dense (every key).
  void send_control(int node, WireKind kind, uint64_t iteration, uint64_t tag,
                    const std::vector<uint32_t>& keys, bool all_keys = false);

  bool dense(size_t keys) const { return keys * 2 >= parameters_; }

  Van& van_;
  int self_;
  size_t parameters_;
  std::vector<Link> links_;
  std::vector<int> clock_to_;
  std::set<int> cut_;  // mirrors presumed cut off
  MirrorClientCounts counts_;
};

}  // namespace testbed
