// Jobs side by side on one lab (docs/jobs.md): each `train` and `launch` takes a slot of the
// lab, and the kernel counts its own bytes on every link direction, apart from the other
// jobs' and the cross traffic's (netns/job_marks.h), rather than by subtracting anything.
//
// A slot is a file jobs/SLOT.json in the lab's directory, made with O_EXCL under the lab's
// lock and recorded (with the groups it is about to make, also added to the lab's state so
// that `down` removes them) before any group or rule exists. A slot whose owner is gone (a
// job killed outright) is taken back by the next job: its rules and groups removed first.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "controller/dynamics/link_control.h"
#include "controller/lab/lab_state.h"
#include "netns/job_marks.h"

namespace testbed {

struct JobRecord {
  int slot = 0;
  std::string kind;   // "train" or "launch"
  std::string label;  // its label in the metrics: the strategy, or the launch's --name
  pid_t pid = 0;      // the owner (the train or launch process), with its start time
  uint64_t start_time = 0;
  std::vector<std::string> namespaces;  // where it marks and counts
  std::vector<std::string> groups;      // its control groups, absolute
};
nlohmann::json to_json(const JobRecord& r);
JobRecord job_record_from_json(const nlohmann::json& j);  // throws naming the field

// Pure: the lowest slot not in `taken`, nullopt when all kMaxJobs are.
std::optional<int> free_slot(const std::vector<int>& taken);

// The jobs running on the lab now (their owners alive), by slot.
std::vector<JobRecord> running_jobs(const std::string& lab_dir);

// Takes back the slots whose owner is gone (a job killed outright): their rules, groups and
// records, and their groups in `state`, once the groups are empty. The caller holds the
// lab's lock and saves `state` (`clean`, after ending the dead job's processes). Returns
// how many slots it freed.
int take_back_dead_jobs(const std::string& lab_dir, LabState& state, JobMarks& marks);

// Pure: a job's own bytes per direction ("from>to") beside what the link delivered in the
// same time, from the receivers' counters at its start and now.
struct JobDirectionCounts {
  uint64_t job_bytes = 0;          // the job's, since its rules were made
  uint64_t link_bytes_before = 0;  // everything the direction delivered, at the job's start
  uint64_t link_bytes_now = 0;
};
nlohmann::json job_traffic_summary(const JobRecord& job,
                                   const std::map<std::string, JobDirectionCounts>& counts);

// A job the lab cannot take: a second `train` (its agents hold the lab's agent port), or a
// 17th job. Nothing was made.
class JobRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class JobAccounting {
 public:
  // Takes a slot, makes the job's group in each of this host's nodes and their rules, and
  // has every process this one starts in a node from now on join them. Throws JobRefused
  // for a second train or when every slot is taken (naming the jobs), checked under the
  // lab's lock; std::runtime_error when a step fails, after undoing what it made. On a host
  // without cgroup v2 it does nothing: summary() says why.
  // `cgroup_root`: the cgroup v2 mount; unset, the host's (tests give a directory).
  JobAccounting(const LabStore& store, const std::string& lab,
                std::vector<LiveDirection> directions, std::string kind, std::string label,
                JobMarks& marks, std::optional<std::string> cgroup_root = std::nullopt);
  ~JobAccounting();  // the rules, the groups, the slot
  JobAccounting(const JobAccounting&) = delete;
  JobAccounting& operator=(const JobAccounting&) = delete;

  std::optional<int> slot() const;
  // The summary's "job_traffic" section: slot, code point, per direction its bytes and the link's.
  nlohmann::json summary();

 private:
  void release();
  std::map<std::string, JobDirectionCounts> summary_counts();

  const LabStore& store_;
  std::string lab_, dir_;
  std::vector<LiveDirection> directions_;
  JobMarks& marks_;
  std::optional<JobRecord> record_;
  std::string why_not_;                          // when inactive
  std::map<std::string, uint64_t> link_before_;  // by direction
};

}  // namespace testbed
