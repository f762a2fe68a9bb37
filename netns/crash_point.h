// Crash points: the moments where a testbed command killed outright leaves the most for
// `clean` to find (a record written but the thing not yet made, a thing made but its
// record not yet updated, a temporary file not yet renamed). The crash tests
// (tests/integration/crash_test.cpp) stop a command at each of them in turn and kill it
// there, instead of killing at a random moment and hoping to land on the bad ones.
//
// - TESTBED_CRASH_TRACE=FILE: each point passed appends its name as a line to FILE, so a
//   test learns how many points a command passes and which phases they belong to.
// - TESTBED_CRASH_AT=N: the Nth point passed stops the process (SIGSTOP), for the test to
//   SIGKILL it there.
// Without either variable a point costs one branch on a value read once. Points act only
// in a program that called enable_crash_points() (the `testbed` command): a test that
// sets the variables for the command it starts must not stop itself at its own points.
#pragma once

namespace testbed {

// Reads TESTBED_CRASH_AT and TESTBED_CRASH_TRACE; until then every point is inert.
void enable_crash_points();

// `name` says where: "phase:what", e.g. "identity:hosts.tmp written".
void crash_point(const char* name);

}  // namespace testbed
