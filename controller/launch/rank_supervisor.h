// The first process of every launched rank: `testbed _rank -- CMD [ARGS...]` runs CMD as
// its child, in the same process group, and exits with CMD's status. It exists for one
// case: when the controller dies without stopping the job (SIGKILL, a crash, the OOM
// killer), the kernel tells the supervisor (PR_SET_PDEATHSIG), and the supervisor stops
// its whole group, CMD's own children included: SIGTERM, then SIGKILL after the grace the
// controller would have given. A controller that stops the job itself signals the group,
// which reaches CMD directly; the supervisor only waits.
#pragma once

#include <string>
#include <vector>

namespace testbed {

// How long a rank's group gets between SIGTERM and SIGKILL when the supervisor stops it:
// the controller's own grace (job_runner.h).
constexpr int kRankGraceMs = 1000;

// Runs argv (PATH searched) and returns the exit status to exit with: CMD's, 128 + the
// signal that ended it, 127 when it cannot be run.
int supervise_rank(const std::vector<std::string>& argv);

}  // namespace testbed
