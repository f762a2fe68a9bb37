// Helpers for integration tests: run the real `testbed` binary, spawn it in the
// background, and guarantee the test's lab is removed whatever the test's outcome.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace testbed::it {

struct Result {
  int status = -1;     // exit status, or 128 + signal
  std::string output;  // stdout and stderr, interleaved
};

bool running_as_root();
// Whether labs brought up here get the userspace delay line (TESTBED_BACKEND, else what
// `auto` picks on this kernel): tests of the delay line's own figures skip otherwise, as
// they do under scripts/kernel-test.sh's netem run.
bool delay_line_backend();
#define REQUIRE_DELAY_LINE()                \
  if (!::testbed::it::delay_line_backend()) \
  GTEST_SKIP() << "tests the delay line; this run's backend is netem"
// Integration tests build real namespaces: without root they skip, saying so.
#define REQUIRE_ROOT() \
  if (!::testbed::it::running_as_root()) GTEST_SKIP() << "needs root: builds real namespaces"
Result run_testbed(const std::vector<std::string>& args,
                   const std::map<std::string, std::string>& env = {});
// Starts `testbed ARGS...` with stdout/stderr to /dev/null; returns its pid.
pid_t spawn_testbed(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& env = {});
// Kills and reaps a spawned process if still running.
void stop_spawned(pid_t pid);

// A path in the temporary directory for a file a test writes (a profile); removed when the
// test program exits, whatever the tests' outcome.
std::string temp_file(const std::string& name);

// A bundled profile with its lab renamed, so tests never collide with a user's lab.
std::string profile_as_lab(const std::string& profile, const std::string& lab);

// Brings the lab down (if it exists) on destruction, and reaps spawned children.
class LabGuard {
 public:
  explicit LabGuard(std::string lab) : lab_(std::move(lab)) {}
  ~LabGuard();
  void own(pid_t pid) { children_.push_back(pid); }

 private:
  std::string lab_;
  std::vector<pid_t> children_;
};

bool lab_state_exists(const std::string& lab);

// `testbed train LAB ARGS...` in the background (owned by `guard`: reaped whatever the
// test's outcome), its output in the file `log` (removed on destruction).
class BackgroundTrain {
 public:
  BackgroundTrain(LabGuard& guard, const std::string& lab, const std::vector<std::string>& args,
                  std::string log)
      : BackgroundTrain(guard, "train", lab, args, std::move(log)) {}
  // Another verb run the same way (`launch`).
  BackgroundTrain(LabGuard& guard, const std::string& verb, const std::string& lab,
                  const std::vector<std::string>& args, std::string log);
  ~BackgroundTrain();
  pid_t pid() const { return pid_; }
  std::string output() const;  // so far
  // Polls the output until it holds `text` or `seconds` pass; whether it does.
  bool wait_for(const std::string& text, double seconds) const;
  int wait();  // reaps the train: its waitpid status

 private:
  std::string log_;
  pid_t pid_ = -1;
};

// The JSON summary of `train --json`: one line, with progress lines (stderr) around it.
nlohmann::json summary_of(const std::string& output);
// `testbed train LAB ARGS... --json`: its summary, or null (and a test failure naming the
// output) when it failed.
nlohmann::json train_json(const std::string& lab, std::vector<std::string> args);

// An elastic run (`train LAB ARGS...` with --json) on line4 through three changes, as the
// elastic DiLoCo and Streaming DiLoCo tests take it: n4 outside from the start joins at the
// 20th iteration, n2 leaves at the 60th, n3 crashes at the 100th. Its summary, or null (and
// a test failure naming the output) when a change was not reached or the run did not end 0.
nlohmann::json line4_join_leave_crash(LabGuard& guard, const std::vector<std::string>& args,
                                      const std::string& log);

// The agents a lab's state records: (pid, node).
std::vector<std::pair<int, std::string>> agents_of(const std::string& lab);
// A lab's state as the testbed reads it (state.json with its journal replayed), as JSON;
// null when there is none. `run_dir`: the labs' root.
nlohmann::json lab_state_json(const std::string& lab, const std::string& run_dir = "/run/testbed");

// `testbed train LAB ARGS...` is refused before any agent starts: exit status 2, the
// output saying `says`, no agent recorded.
void expect_train_refused(const std::string& lab, const std::vector<std::string>& args,
                          const std::string& says);

// Returns once an iperf3 server in `node` listens on its port (5201), polled with `ss`
// rather than a guessed sleep (a loaded machine starts it late); a test failure after 10 s.
void wait_for_listener(const std::string& lab, const std::string& node);

// A process's state letter from /proc/PID/stat ('R', 'S', 'T' when stopped, ...), '?' once
// it is gone. The name in parentheses may hold spaces, so the state follows the last ')'.
char process_state(int pid);

// Tests on profiles/tiny/line4.yaml's lab, tbt-line4 (four nodes in a line, the middle
// hop the bottleneck): up before each test, down after it whatever its outcome.
class Line4Lab : public ::testing::Test {
 protected:
  void SetUp() override;
  LabGuard guard_{"tbt-line4"};
};

}  // namespace testbed::it
