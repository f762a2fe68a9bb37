#include "controller/lab/lab_state.h"

#include "netns/crash_point.h"
#include "netns/private_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace testbed {

namespace fs = std::filesystem;

namespace {

nlohmann::json namespace_json(const NamespaceRecord& n) {
  return {{"name", n.name}, {"inode", n.inode}};
}

NamespaceRecord namespace_from(const nlohmann::json& n) {
  return {n.at("name").get<std::string>(), n.value("inode", uint64_t{0})};
}

nlohmann::json process_json(const ProcessRecord& p) {
  nlohmann::json j = {{"pid", p.pid},
                      {"start_time", p.start_time},
                      {"node", p.node},
                      {"argv", p.argv},
                      {"group", p.group}};
  if (p.owner_pid != 0) j["owner"] = {{"pid", p.owner_pid}, {"start_time", p.owner_start_time}};
  return j;
}

ProcessRecord process_from(const nlohmann::json& p) {
  ProcessRecord r{p.at("pid").get<int>(), p.value("start_time", uint64_t{0}), p.value("node", ""),
                  p.value("argv", std::vector<std::string>{}), p.value("group", false)};
  if (const auto owner = p.find("owner"); owner != p.end() && owner->is_object()) {
    r.owner_pid = owner->value("pid", 0);
    r.owner_start_time = owner->value("start_time", uint64_t{0});
  }
  return r;
}

// A journal entry folded into the state: a namespace replaces its namesake (its inode
// arrives after its name), a process is added unless already there (a journal that
// outlived the save it was folded into, by a crash between the two).
void replay(LabState& state, const nlohmann::json& entry) {
  if (const auto n = entry.find("namespace"); n != entry.end()) {
    const NamespaceRecord r = namespace_from(*n);
    const auto same = std::find_if(state.namespaces.begin(), state.namespaces.end(),
                                   [&](const NamespaceRecord& x) { return x.name == r.name; });
    if (same != state.namespaces.end()) {
      *same = r;
    } else {
      state.namespaces.push_back(r);
    }
  } else if (const auto p = entry.find("process"); p != entry.end()) {
    const ProcessRecord r = process_from(*p);
    const bool known = std::any_of(
        state.processes.begin(), state.processes.end(),
        [&](const ProcessRecord& x) { return x.pid == r.pid && x.start_time == r.start_time; });
    if (!known) state.processes.push_back(r);
  }
}

}  // namespace

nlohmann::json state_to_json(const LabState& s) {
  nlohmann::json j = {{"lab", s.lab},
                      {"source", s.source},
                      {"phase", s.phase},
                      {"controller_pid", s.controller_pid},
                      {"time_scale", s.time_scale},
                      {"start_at_unix_s", s.start_at_unix_s},
                      {"urls", s.urls},
                      {"created_at", s.created_at},
                      {"namespaces", nlohmann::json::array()},
                      {"processes", nlohmann::json::array()},
                      {"identities", nlohmann::json::array()}};
  for (const auto& n : s.namespaces) j["namespaces"].push_back(namespace_json(n));
  for (const auto& p : s.processes) j["processes"].push_back(process_json(p));
  j["cgroups"] = s.cgroups;
  for (const auto& i : s.identities)
    j["identities"].push_back({{"node", i.node}, {"namespace", i.ns}, {"uts_inode", i.uts_inode}});
  if (!s.host.empty()) {
    j["host"] = s.host;
    j["adopted"] = {{"namespaces", s.adopted}, {"steps", s.adopted_steps}};
    if (!s.placement.is_null()) j["placement"] = s.placement;
  }
  return j;
}

LabState state_from_json(const nlohmann::json& j) {
  LabState s;
  s.lab = j.at("lab").get<std::string>();
  s.source = j.value("source", "");
  s.phase = j.at("phase").get<std::string>();
  s.controller_pid = j.value("controller_pid", 0);
  s.time_scale = j.value("time_scale", 1.0);
  s.start_at_unix_s = j.value("start_at_unix_s", 0.0);
  s.urls = j.value("urls", std::map<std::string, std::string>{});
  s.created_at = j.value("created_at", "");
  for (const auto& n : j.value("namespaces", nlohmann::json::array()))
    s.namespaces.push_back(namespace_from(n));
  for (const auto& p : j.value("processes", nlohmann::json::array()))
    s.processes.push_back(process_from(p));
  s.cgroups = j.value("cgroups", std::vector<std::string>{});
  for (const auto& i : j.value("identities", nlohmann::json::array())) {
    s.identities.push_back({i.at("node").get<std::string>(), i.at("namespace").get<std::string>(),
                            i.value("uts_inode", uint64_t{0})});
  }
  s.host = j.value("host", "");
  s.placement = j.value("placement", nlohmann::json());
  if (const auto a = j.find("adopted"); a != j.end() && a->is_object()) {
    s.adopted = a->value("namespaces", std::vector<std::string>{});
    s.adopted_steps = a->value("steps", std::vector<size_t>{});
  }
  return s;
}

LabStore::LabStore() {
  const char* env = std::getenv("TESTBED_RUN_DIR");
  root_ = env && *env ? env : "/run/testbed";
}

std::vector<std::string> LabStore::labs() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root_, ec)) {
    if (e.is_directory()) out.push_back(e.path().filename());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool LabStore::has_state(const std::string& lab) const {
  return fs::exists(state_path(lab));
}

void LabStore::make_dirs(const std::string& lab) const {
  // The root and each lab's directory are root's alone (0700): they hold the lab's control
  // sockets and files that root's processes read and write (private_files.h).
  const fs::path parent = fs::path(root_).parent_path();
  if (!parent.empty() && !fs::exists(parent)) fs::create_directories(parent);
  make_private_dir(root_);
  make_private_dir(dir(lab));
}

std::optional<LabLock> LabStore::lock(const std::string& lab, bool wait) const {
  make_dirs(lab);
  const std::string path = dir(lab) + "/lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw_errno("open(" + path + ")");
  FileDescriptor owned(fd);
  if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    if (errno == EWOULDBLOCK) return std::nullopt;
    throw_errno("flock(" + path + ")");
  }
  return LabLock(std::move(owned));
}

namespace {

void write_plan(const std::string& path, const Plan& plan) {
  std::ofstream out(path, std::ios::trunc);
  out << plan_to_json(plan).dump() << "\n";
  if (!out) throw std::runtime_error("cannot write " + path);
}

// The whole file, read at once: nlohmann's parser reads a stream a character at a time
// through a virtual call, twice as slow as from memory (a 1000-node lab's 4.8 MB plan:
// 0.2 s of its `status`).
std::string whole_file(std::ifstream& in) {
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Throws naming the file: "not JSON", or the first field plan_from_json_text refuses.
Plan read_plan(const std::string& path, LabStore::PlanSteps steps = LabStore::PlanSteps::kRead) {
  std::ifstream in(path);
  try {
    return plan_from_json_text(whole_file(in), steps != LabStore::PlanSteps::kSkipped);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace

LabState LabStore::load(const std::string& lab, PlanSteps steps) const {
  LabState state = load_records(lab);
  load_plan(lab, state, steps);
  return state;
}

LabState LabStore::load_records(const std::string& lab) const {
  std::ifstream in(state_path(lab));
  if (!in) throw std::runtime_error("lab '" + lab + "' has no state file " + state_path(lab));
  LabState state;
  try {
    state = state_from_json(nlohmann::json::parse(whole_file(in)));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(state_path(lab) + ": unreadable state: " + e.what());
  }
  std::ifstream journal(journal_path(lab));
  for (std::string line; std::getline(journal, line);) {
    // A line cut short by a crash mid-write is no record: skipped.
    const auto entry = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!entry.is_object()) continue;
    try {
      replay(state, entry);
    } catch (const nlohmann::json::exception&) {
    }
  }
  return state;
}

void LabStore::load_plan(const std::string& lab, LabState& state, PlanSteps steps) const {
  const std::string path = plan_path(lab);
  if (!std::ifstream(path)) return;
  try {
    const bool with_steps = steps == PlanSteps::kRead ||
                            (steps == PlanSteps::kIfAdopted && !state.adopted_steps.empty());
    state.plan = read_plan(path, with_steps ? PlanSteps::kRead : PlanSteps::kSkipped);
  } catch (const std::exception& e) {
    state.plan_problem = e.what();
  }
}

void LabStore::save_plan(const std::string& lab, const Plan& plan) const {
  make_dirs(lab);
  write_plan(plan_path(lab), plan);
}

void LabStore::save_whole_plan(const std::string& lab, const Plan& plan) const {
  make_dirs(lab);
  write_plan(whole_plan_path(lab), plan);
}

Plan LabStore::load_whole_plan(const LabState& state) const {
  if (state.host.empty()) return state.plan;
  return read_plan(whole_plan_path(state.lab));
}

void LabStore::save(const LabState& state) const {
  make_dirs(state.lab);
  const std::string tmp = state_path(state.lab) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << state_to_json(state).dump(1) << "\n";
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  crash_point("state:state.json.tmp written");
  fs::rename(tmp, state_path(state.lab));
  // Folded in now; a crash before this line leaves entries that replay finds already there.
  std::error_code ignored;
  fs::remove(journal_path(state.lab), ignored);
}

void LabStore::append(const std::string& lab, const nlohmann::json& entry) const {
  const std::string path = journal_path(lab);
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw_errno("open(" + path + ")");
  FileDescriptor owned(fd);
  // One write per entry: appends of whole lines, which a reader never sees half of unless
  // the writer died inside the call.
  const std::string line = entry.dump() + "\n";
  if (write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    throw_errno("write(" + path + ")");
  crash_point("state:journal entry appended");
}

void LabStore::record_namespace(const std::string& lab, const NamespaceRecord& ns) const {
  append(lab, {{"namespace", namespace_json(ns)}});
}

void LabStore::record_process(const std::string& lab, const ProcessRecord& p) const {
  append(lab, {{"process", process_json(p)}});
}

void LabStore::remove(const std::string& lab) const {
  fs::remove_all(dir(lab));
}

std::string LabStore::resolve(const std::string& lab) const {
  if (!lab.empty()) {
    if (!has_state(lab)) throw std::runtime_error("no lab named '" + lab + "' is up");
    return lab;
  }
  std::vector<std::string> with_state;
  for (const auto& l : labs()) {
    if (has_state(l)) with_state.push_back(l);
  }
  if (with_state.empty()) throw std::runtime_error("no lab is up");
  if (with_state.size() > 1) {
    std::string names;
    for (const auto& l : with_state) names += " " + l;
    throw std::runtime_error("several labs are up (" + names.substr(1) + "); name one");
  }
  return with_state.front();
}

std::string now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace testbed
