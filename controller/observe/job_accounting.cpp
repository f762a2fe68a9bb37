#include "controller/observe/job_accounting.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "controller/lab/teardown.h"
#include "netns/job_cgroup.h"
#include "netns/kernel_error.h"
#include "netns/node_cgroup.h"

namespace testbed {
namespace {

std::string record_path(const std::string& dir, int slot) {
  return dir + "/jobs/" + std::to_string(slot) + ".json";
}

bool owner_alive(const JobRecord& r) {
  return r.pid > 0 && r.start_time != 0 && process_start_time(r.pid) == r.start_time;
}

// A process that ended a moment ago may still be leaving its group (the kernel empties it
// as the process exits): a busy group is tried again for up to two seconds, as teardown
// does for the nodes' groups. False when it still holds processes then.
bool remove_group(const std::string& dir, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    try {
      remove_cgroup_dir(dir);
      return true;
    } catch (const std::system_error& e) {
      if (e.code().value() != EBUSY || std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

// Removes a job's rules and groups and forgets them in `state`; the record file goes too
// when every group is gone (else the next job tries again). True when all is gone.
bool undo_job(const std::string& dir, const JobRecord& r, JobMarks& marks, LabState& state) {
  for (const auto& ns : r.namespaces) {
    try {
      marks.remove(ns, r.slot);
    } catch (const std::exception&) {
      // A namespace half gone: its rules go with it.
    }
  }
  // One wait for the whole job, not one per group: a group still busy past it means
  // processes the job left, and waiting again at each of 300 nodes' groups took 10 minutes.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  bool all = true;
  for (const auto& g : r.groups) {
    if (remove_group(g, deadline)) {
      std::erase(state.cgroups, g);
    } else {
      all = false;
    }
  }
  if (all) std::filesystem::remove(record_path(dir, r.slot));
  return all;
}

// `under_lock`: the caller holds the lab's lock, so no job is writing its record now, and
// a malformed one was cut short by a crash between its creation and its write (no group
// or rule was made after it): nothing to undo but the file. Without the lock such a file
// may be a record being written, and is only skipped.
std::vector<JobRecord> read_records(const std::string& dir, bool under_lock) {
  std::vector<JobRecord> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/jobs", ec)) {
    try {
      std::ifstream in(entry.path());
      out.push_back(job_record_from_json(nlohmann::json::parse(in)));
    } catch (const std::exception&) {
      if (under_lock) std::filesystem::remove(entry.path(), ec);
    }
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const JobRecord& r) {
  return {{"slot", r.slot},
          {"kind", r.kind},
          {"label", r.label},
          {"pid", r.pid},
          {"start_time", r.start_time},
          {"namespaces", r.namespaces},
          {"groups", r.groups}};
}

JobRecord job_record_from_json(const nlohmann::json& j) {
  JobRecord r;
  const auto field = [&](const char* name) -> const nlohmann::json& {
    if (!j.contains(name)) throw std::runtime_error(std::string("job record: no '") + name + "'");
    return j.at(name);
  };
  r.slot = field("slot").get<int>();
  if (r.slot < 1 || r.slot > kMaxJobs)
    throw std::runtime_error("job record: slot " + std::to_string(r.slot) + " out of range");
  r.kind = field("kind").get<std::string>();
  r.label = field("label").get<std::string>();
  r.pid = field("pid").get<pid_t>();
  r.start_time = field("start_time").get<uint64_t>();
  r.namespaces = field("namespaces").get<std::vector<std::string>>();
  r.groups = field("groups").get<std::vector<std::string>>();
  return r;
}

std::optional<int> free_slot(const std::vector<int>& taken) {
  for (int s = 1; s <= kMaxJobs; ++s)
    if (std::find(taken.begin(), taken.end(), s) == taken.end()) return s;
  return std::nullopt;
}

std::vector<JobRecord> running_jobs(const std::string& lab_dir) {
  auto all = read_records(lab_dir, /*under_lock=*/false);
  std::erase_if(all, [](const JobRecord& r) { return !owner_alive(r); });
  std::sort(all.begin(), all.end(),
            [](const JobRecord& a, const JobRecord& b) { return a.slot < b.slot; });
  return all;
}

int take_back_dead_jobs(const std::string& lab_dir, LabState& state, JobMarks& marks) {
  int freed = 0;
  for (const auto& r : read_records(lab_dir, /*under_lock=*/true))
    if (!owner_alive(r) && undo_job(lab_dir, r, marks, state)) ++freed;
  return freed;
}

nlohmann::json job_traffic_summary(const JobRecord& job,
                                   const std::map<std::string, JobDirectionCounts>& counts) {
  nlohmann::json directions = nlohmann::json::object();
  uint64_t own = 0, link = 0;
  for (const auto& [key, c] : counts) {
    const uint64_t delivered =
        c.link_bytes_now >= c.link_bytes_before ? c.link_bytes_now - c.link_bytes_before : 0;
    if (delivered == 0 && c.job_bytes == 0) continue;
    own += c.job_bytes;
    link += delivered;
    directions[key] = {
        {"bytes", c.job_bytes},
        {"link_bytes", delivered},
        {"share",
         delivered ? static_cast<double>(c.job_bytes) / static_cast<double>(delivered) : 0.0}};
  }
  return {{"slot", job.slot},
          {"kind", job.kind},
          {"label", job.label},
          {"dscp", job_dscp(job.slot)},
          {"accounting",
           "the job's control group marks what it sends with a DSCP code point of its own; "
           "each link's receiver counts it (IP bytes, after GRO)"},
          {"wan_bytes", own},
          {"link_bytes", link},
          {"share", link ? static_cast<double>(own) / static_cast<double>(link) : 0.0},
          {"directions", directions}};
}

JobAccounting::JobAccounting(const LabStore& store, const std::string& lab,
                             std::vector<LiveDirection> directions, std::string kind,
                             std::string label, JobMarks& marks,
                             std::optional<std::string> cgroup_root)
    : store_(store),
      lab_(lab),
      dir_(store.dir(lab)),
      directions_(std::move(directions)),
      marks_(marks) {
  const auto mount = cgroup_root ? cgroup_root : cgroup2_mount();
  if (!mount) {
    why_not_ = "this host has no cgroup v2 hierarchy: the kernel cannot tell jobs apart";
    return;
  }
  auto lock = store_.lock(lab_, /*wait=*/true);
  LabState state = store_.load(lab_);
  // What a command killed outright left (its agents or ranks, by recorded pid): ended
  // first, so that its job's groups are empty and its slot free.
  end_orphans(state);
  std::vector<int> taken;
  std::vector<std::string> running;
  for (const auto& r : read_records(dir_, /*under_lock=*/true)) {
    if (owner_alive(r)) {
      if (r.kind == "train" && kind == "train")
        throw JobRefused("lab " + lab_ + " runs train " + r.label + " already (pid " +
                         std::to_string(r.pid) +
                         "): one train per lab at a time (its agents hold the lab's agent "
                         "port); a launch may run beside it");
      taken.push_back(r.slot);
      running.push_back(r.kind + " " + r.label + " (pid " + std::to_string(r.pid) + ")");
    } else if (!undo_job(dir_, r, marks_, state)) {
      taken.push_back(r.slot);  // its group still holds processes: not free yet
    }
  }
  store_.save(state);
  const auto slot = free_slot(taken);
  if (!slot) {
    std::string names;
    for (const auto& r : running) names += (names.empty() ? "" : ", ") + r;
    throw JobRefused("lab " + lab_ + " runs " + std::to_string(kMaxJobs) + " jobs already (" +
                     names +
                     "): that is as many as it can "
                     "tell apart");
  }
  JobRecord r;
  r.slot = *slot;
  r.kind = std::move(kind);
  r.label = std::move(label);
  r.pid = getpid();
  r.start_time = process_start_time(r.pid);
  std::vector<JobGroup> groups;
  for (const auto& ns : plan_namespaces(state.plan)) {
    r.namespaces.push_back(ns);
    groups.push_back(job_group(*mount, ns, r.slot));
    r.groups.push_back(groups.back().dir);
  }
  // Recorded before anything exists: the slot's file, then the groups in the lab's state,
  // ahead of the nodes' own (a job's group may be a node group's child: removed first).
  std::filesystem::create_directories(dir_ + "/jobs");
  {
    const std::string path = record_path(dir_, r.slot);
    FileDescriptor fd(open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (fd.get() < 0) throw_errno("open(" + path + ")");
    const std::string text = to_json(r).dump() + "\n";
    if (write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
      throw_errno("write(" + path + ")");
  }
  state.cgroups.insert(state.cgroups.begin(), r.groups.begin(), r.groups.end());
  store_.save(state);
  record_ = r;
  try {
    for (size_t i = 0; i < groups.size(); ++i) {
      create_job_group(groups[i]);
      std::vector<std::string> devs;
      for (const auto& d : directions_)
        if (d.local_rx && d.rx_ns == r.namespaces[i]) devs.push_back(d.rx_dev);
      marks_.add(r.namespaces[i], devs, r.slot, groups[i].path);
    }
  } catch (...) {
    undo_job(dir_, r, marks_, state);
    store_.save(state);
    record_.reset();
    throw;
  }
  for (const auto& [key, c] : summary_counts()) link_before_[key] = c.link_bytes_now;
  set_current_job(r.slot);
}

JobAccounting::~JobAccounting() {
  try {
    release();
  } catch (const std::exception&) {
    // Left recorded: the next job, or `down`, removes it.
  }
}

void JobAccounting::release() {
  if (!record_) return;
  set_current_job(std::nullopt);
  auto lock = store_.lock(lab_, /*wait=*/true);
  LabState state = store_.load(lab_);
  undo_job(dir_, *record_, marks_, state);
  store_.save(state);
  record_.reset();
}

std::optional<int> JobAccounting::slot() const {
  return record_ ? std::optional<int>(record_->slot) : std::nullopt;
}

std::map<std::string, JobDirectionCounts> JobAccounting::summary_counts() {
  std::map<std::string, std::map<std::string, JobArrivals>> by_ns;  // one read per node
  std::map<std::string, JobDirectionCounts> out;
  for (const auto& d : directions_) {
    if (!d.local_rx) continue;
    auto it = by_ns.find(d.rx_ns);
    if (it == by_ns.end()) it = by_ns.emplace(d.rx_ns, marks_.arrivals(d.rx_ns)).first;
    const auto a = it->second.find(d.rx_dev);
    if (a == it->second.end()) continue;
    JobDirectionCounts& c = out[d.from + ">" + d.to];
    const auto own = a->second.slot_bytes.find(record_->slot);
    c.job_bytes = own == a->second.slot_bytes.end() ? 0 : own->second;
    c.link_bytes_now = a->second.bytes;
    const auto before = link_before_.find(d.from + ">" + d.to);
    c.link_bytes_before = before == link_before_.end() ? 0 : before->second;
  }
  return out;
}

nlohmann::json JobAccounting::summary() {
  if (!record_) return {{"accounted", false}, {"why", why_not_}};
  nlohmann::json j = job_traffic_summary(*record_, summary_counts());
  j["accounted"] = true;
  return j;
}

}  // namespace testbed
