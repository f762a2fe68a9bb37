#include "testbed_cli.h"

#include "controller/lab/lab_state.h"
#include "controller/lab/teardown.h"

#include "netns/capabilities.h"
#include "netns/netns_exec.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>
#include <tuple>
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

// The environment for one child: set around the fork, and what was there before put back
// after (tests are serial).
class ScopedEnv {
 public:
  explicit ScopedEnv(const std::map<std::string, std::string>& env) {
    for (const auto& [k, v] : env) {
      const char* before = std::getenv(k.c_str());
      saved_.emplace_back(k, before ? std::optional<std::string>(before) : std::nullopt);
      setenv(k.c_str(), v.c_str(), 1);
    }
  }
  ~ScopedEnv() {
    for (const auto& [k, v] : saved_) {
      if (v) {
        setenv(k.c_str(), v->c_str(), 1);
      } else {
        unsetenv(k.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Every lab the tests bring up is planned without this machine's emulation budget (`doctor
// --budget` keeps one in /var/lib/testbed): what a test checks must not depend on how fast
// the machine was when it was measured. The fit's own test writes a budget of its own.
[[maybe_unused]] const bool kNoMachineBudget = [] {
  setenv("TESTBED_BUDGET_FILE", "/nonexistent/tb-integration-budget.json", 1);
  return true;
}();

std::vector<std::string> command(const std::vector<std::string>& args) {
  std::vector<std::string> argv{TESTBED_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace

bool running_as_root() {
  return geteuid() == 0;
}

bool delay_line_backend() {
  const char* env = std::getenv("TESTBED_BACKEND");
  const std::string backend = env ? env : "";
  if (backend == "delayline") return true;
  if (backend == "netem") return false;
  return !detect_netem().available;  // what `auto` does
}

Result run_testbed(const std::vector<std::string>& args,
                   const std::map<std::string, std::string>& env) {
  ScopedEnv scoped(env);
  const CommandResult r = run_in_netns("", command(args));
  return {r.status, r.output};
}

pid_t spawn_testbed(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& env) {
  ScopedEnv scoped(env);
  return spawn_in_netns("", command(args), "/dev/null");
}

void stop_spawned(pid_t pid) {
  if (pid <= 0) return;
  if (waitpid(pid, nullptr, WNOHANG) == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
}

std::string temp_file(const std::string& name) {
  struct Written {
    std::vector<std::string> paths;
    ~Written() {
      for (const auto& p : paths) std::filesystem::remove(p);
    }
  };
  static Written written;
  const std::string path = std::filesystem::temp_directory_path() / name;
  written.paths.push_back(path);
  return path;
}

std::string profile_as_lab(const std::string& profile, const std::string& lab) {
  std::ifstream in(TESTBED_PROFILES_DIR + "/" + profile);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text =
      std::regex_replace(ss.str(), std::regex("\nlab: [a-z0-9-]+"), "\nlab: " + lab);
  const std::string path = temp_file(lab + ".yaml");
  std::ofstream(path) << text;
  return path;
}

bool lab_state_exists(const std::string& lab) {
  return std::filesystem::exists("/run/testbed/" + lab + "/state.json");
}

LabGuard::~LabGuard() {
  if (lab_state_exists(lab_)) run_testbed({"down", lab_});
  for (pid_t pid : children_) stop_spawned(pid);
  // A lab killed before `up` finished is left for `clean`; that only touches labs whose
  // controller is gone and whose run did not finish.
  if (lab_state_exists(lab_)) run_testbed({"clean"});
}

BackgroundTrain::BackgroundTrain(LabGuard& guard, const std::string& verb, const std::string& lab,
                                 const std::vector<std::string>& args, std::string log)
    : log_(std::move(log)) {
  std::vector<std::string> argv = {verb, lab};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_ = spawn_in_netns("", command(argv), log_);
  guard.own(pid_);
}

BackgroundTrain::~BackgroundTrain() {
  std::remove(log_.c_str());
}

std::string BackgroundTrain::output() const {
  std::ifstream in(log_);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool BackgroundTrain::wait_for(const std::string& text, double seconds) const {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (output().find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

int BackgroundTrain::wait() {
  int status = -1;
  if (waitpid(pid_, &status, 0) != pid_) ADD_FAILURE() << "waitpid " << pid_ << " failed";
  return status;
}

nlohmann::json summary_of(const std::string& output) {
  std::string json_line;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    // The summary: the last JSON line that is not a progress event (those go to stderr).
    if (!line.empty() && line[0] == '{' && line.rfind(R"({"event":"iteration")", 0) != 0)
      json_line = line;
  }
  return nlohmann::json::parse(json_line);
}

nlohmann::json line4_join_leave_crash(LabGuard& guard, const std::vector<std::string>& args,
                                      const std::string& log) {
  const std::string lab = "tbt-line4";
  EXPECT_EQ(run_testbed({"node", "leave", lab, "n4"}).status, 0);
  BackgroundTrain trainer(guard, lab, args, log);
  const std::vector<std::tuple<int, const char*, const char*>> changes = {
      {20, "join", "n4"}, {60, "leave", "n2"}, {100, "crash", "n3"}};
  for (const auto& [iteration, verb, node] : changes) {
    if (!trainer.wait_for("\"iteration\":" + std::to_string(iteration) + ",", 60)) {
      ADD_FAILURE() << "no iteration " << iteration << ": " << trainer.output();
      return nullptr;
    }
    EXPECT_EQ(run_testbed({"node", verb, lab, node}).status, 0) << verb << " " << node;
  }
  const int status = trainer.wait();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    ADD_FAILURE() << "the run ended " << status << ": " << trainer.output();
    return nullptr;
  }
  return summary_of(trainer.output());
}

nlohmann::json train_json(const std::string& lab, std::vector<std::string> args) {
  args.insert(args.begin(), {"train", lab});
  args.push_back("--json");
  const Result r = run_testbed(args);
  EXPECT_EQ(r.status, 0) << r.output;
  return r.status == 0 ? summary_of(r.output) : nlohmann::json();
}

nlohmann::json lab_state_json(const std::string& lab, const std::string& run_dir) {
  try {
    return state_to_json(LabStore(run_dir).load(lab));
  } catch (const std::exception&) {
    return nullptr;
  }
}

std::vector<std::pair<int, std::string>> agents_of(const std::string& lab) {
  const auto state = lab_state_json(lab);
  std::vector<std::pair<int, std::string>> out;
  if (state.is_null()) return out;
  for (const auto& p : state["processes"]) {
    if (!p["argv"].empty() &&
        p["argv"][0].get<std::string>().find("testbed-agent") != std::string::npos) {
      out.emplace_back(p["pid"], p["node"]);
    }
  }
  return out;
}

void expect_train_refused(const std::string& lab, const std::vector<std::string>& args,
                          const std::string& says) {
  std::vector<std::string> argv = {"train", lab};
  argv.insert(argv.end(), args.begin(), args.end());
  const Result r = run_testbed(argv);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(says), std::string::npos) << r.output;
  EXPECT_TRUE(agents_of(lab).empty());
}

void Line4Lab::SetUp() {
  REQUIRE_ROOT();
  ASSERT_EQ(
      run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/line4.yaml", "--prometheus", "off"}).status,
      0);
}

void wait_for_listener(const std::string& lab, const std::string& node) {
  // Poll for iperf3's socket rather than sleeping a guessed time; give up after 10 s.
  for (int i = 0; i < 200; ++i) {
    const Result r =
        run_testbed({"exec", "--lab", lab, node, "--", "ss", "-Hltn", "sport = :5201"});
    if (r.output.find("5201") != std::string::npos) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL() << "iperf3 server never listened";
}

char process_state(int pid) {
  const char s = testbed::process_state(pid);  // controller/lab/teardown.h
  return s == '\0' ? '?' : s;
}

}  // namespace testbed::it
