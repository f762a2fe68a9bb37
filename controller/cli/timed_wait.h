// The wait of a verb that undoes its fault after a while (`node pause --for`, `partition
// --for`): a length of time, cut short by an interrupt, so that the verb still undoes what
// it did before it exits and never leaves a node stopped or a partition standing.
#pragma once

#include <cstdint>

namespace testbed::cli {

// Waits `us`, or until SIGINT, SIGTERM or SIGHUP (blocked, so taken here and not by a
// handler); returns the signal, or 0 when the time ran out.
int wait_or_signal(int64_t us);

}  // namespace testbed::cli
