// Runs one `testbed` verb as a child process for the scenario runner, streaming its stderr
// lines (train's progress) to a callback and keeping its stdout (the JSON summary). A
// SIGTERM or SIGINT the runner receives is passed on, so the child cleans up as it would
// on its own (up rolls back, train stops its agents).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace testbed {

struct ChildResult {
  int status = -1;  // exit status, or 128 + signal
  std::string out, err;
};

ChildResult run_child(const std::vector<std::string>& argv,
                      const std::function<void(const std::string&)>& on_stderr_line,
                      const std::atomic<int>& forward_signal);

// Where the testbed's programs are: beside the running `testbed`.
std::string program_path(const std::string& name);

}  // namespace testbed
