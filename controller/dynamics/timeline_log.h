// timeline.csv: one row per change a lab's links and nodes went through, from the timeline
// (scheduled) or from `testbed link` and `testbed node` (by hand: due when applied, lag 0).
//   scheduled_s,applied_s,lag_ms,link,from,to,rate_bits_per_s,delay_us,loss,error,state
// Times are seconds since the lab's time zero (timeline-start, Unix seconds): the timeline's
// start, or for a lab without schedules its first change by hand. A node's row has no link:
// the node is `from`, its state after the event (running, paused, crashed) is `state`.
#pragma once

#include <string>

#include "controller/dynamics/link_control.h"

namespace testbed {

inline constexpr const char* kTimelineHeader =
    "scheduled_s,applied_s,lag_ms,link,from,to,rate_bits_per_s,delay_us,loss,error,state\n";

std::string direction_row(double scheduled_s, double applied_s, const LiveDirection& d,
                          const std::string& error);
std::string node_row(double scheduled_s, double applied_s, const std::string& node,
                     const std::string& state, const std::string& error);

// Seconds since the lab's time zero, now; writes the zero (now) when the lab has none yet.
double lab_time_s(const std::string& lab_dir);
// Appends one row (header first, to a new file), in one write: the timeline and a verb may
// append at once, and O_APPEND keeps each row whole.
void append_timeline_row(const std::string& lab_dir, const std::string& row);

// A change by hand (`testbed link`, `testbed partition`): applied, recorded in current.json
// and logged, due when applied. Throws as LinkChanger::apply does, before recording.
void apply_by_hand(LinkChanger& changer, const std::string& lab_dir, LiveDirection& d,
                   const ScheduleChange& change);

}  // namespace testbed
