#include "testbed_cli.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace testbed::it {
namespace {

void exec_testbed(const std::vector<std::string>& args,
                  const std::map<std::string, std::string>& env) {
  for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
  std::vector<char*> argv{const_cast<char*>(TESTBED_BIN)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(TESTBED_BIN, argv.data());
  _exit(127);
}

int decode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

bool running_as_root() {
  return geteuid() == 0;
}

Result run_testbed(const std::vector<std::string>& args,
                   const std::map<std::string, std::string>& env) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipefd[1], STDOUT_FILENO);
    dup2(pipefd[1], STDERR_FILENO);
    exec_testbed(args, env);
  }
  close(pipefd[1]);
  Result r;
  std::array<char, 4096> buf;
  for (ssize_t n; (n = read(pipefd[0], buf.data(), buf.size())) > 0;)
    r.output.append(buf.data(), n);
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = decode(status);
  return r;
}

pid_t spawn_testbed(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& env) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, STDOUT_FILENO);
    dup2(devnull, STDERR_FILENO);
    exec_testbed(args, env);
  }
  return pid;
}

void stop_spawned(pid_t pid) {
  if (pid <= 0) return;
  if (waitpid(pid, nullptr, WNOHANG) == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
}

std::string profile_as_lab(const std::string& profile, const std::string& lab) {
  std::ifstream in(std::string(TESTBED_PROFILES_DIR) + "/" + profile);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text =
      std::regex_replace(ss.str(), std::regex("\nlab: [a-z0-9-]+"), "\nlab: " + lab);
  const std::string path = std::filesystem::temp_directory_path() / (lab + ".yaml");
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

}  // namespace testbed::it
