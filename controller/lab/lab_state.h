// What a lab created, kept in /run/testbed/LAB/state.json: the namespaces (with their
// identity) and the processes (pid and start time) that `down` and `clean` may remove.
// Nothing is ever removed that is not recorded here. A lock file serializes controllers.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "controller/lab/plan.h"
#include "netns/named_netns.h"

namespace testbed {

struct NamespaceRecord {
  std::string name;
  uint64_t inode = 0;  // 0: creation was about to happen when the record was written
};

struct ProcessRecord {
  int pid = 0;
  uint64_t start_time = 0;  // /proc/PID/stat field 22: tells a reused pid from ours
  std::string node;
  std::vector<std::string> argv;
  // It leads a process group of its own (a launched job): ending it ends the group, so a
  // job's own children (a shell's, a framework's workers) go with it.
  bool group = false;
  // The testbed command that started it and ends it (a train's agents, a launch's ranks):
  // when that command is gone (killed outright), `clean` ends what it left. 0: the lab's
  // own (up's delay lines, exporter, timeline), which live until `down`.
  int owner_pid = 0;
  uint64_t owner_start_time = 0;
};

// A node's identity (netns/node_identity.h): its UTS namespace and hosts file, both keyed
// by the network namespace's name.
struct IdentityRecord {
  std::string node, ns;
  uint64_t uts_inode = 0;  // 0: creation was about to happen when the record was written
};

struct LabState {
  std::string lab;
  std::string source;
  std::string phase;  // "applying", "up", "removing" or "failed"
  int controller_pid = 0;
  double time_scale = 1.0;  // of the lab's schedules (`up --time-scale`)
  // The schedules' time zero on the wall clock (`up --start-at`), so that the slices of a lab
  // spread over hosts change their links together; 0: when the timeline starts.
  double start_at_unix_s = 0;
  std::string created_at;
  // Where to watch the lab: "exporter" (its /metrics), "prometheus", "grafana".
  std::map<std::string, std::string> urls;
  std::vector<NamespaceRecord> namespaces;
  std::vector<ProcessRecord> processes;
  std::vector<IdentityRecord> identities;
  // The directories of the nodes' control groups (netns/node_cgroup.h), recorded before
  // each is made: removed by `down` and `clean` once the processes in them have ended.
  std::vector<std::string> cgroups;
  // A slice of a lab spread over hosts (docs/multihost.md): this host's name, and the
  // namespaces it found already made (a pod's, by Kubernetes) and adopted. Those are never
  // deleted: `down` undoes, newest first, the plan steps listed in adopted_steps instead.
  std::string host;
  std::vector<std::string> adopted;
  std::vector<size_t> adopted_steps;
  // A slice's placement as `train` and `agents` need it (hosts/host_placement.h's
  // placement_record): every host's nodes, CURVE public key and underlay address; null on
  // one box. This host's own key pair is `host.key` in the lab's directory (0600).
  nlohmann::json placement;
  // The plan, from plan.json (plan_from_json): written once by `up`, as it is large (every
  // link and step) while state.json is rewritten at every namespace. Empty before `up` has
  // written it; when plan.json cannot be read, empty too and `plan_problem` says why, so
  // that `down` and `clean` still remove what the state records.
  Plan plan;
  std::string plan_problem;
};

nlohmann::json state_to_json(const LabState& s);
LabState state_from_json(const nlohmann::json& j);

// An exclusive flock on the lab's lock file; released on destruction or process death.
class LabLock {
 public:
  explicit LabLock(FileDescriptor fd) : fd_(std::move(fd)) {}

 private:
  FileDescriptor fd_;
};

class LabStore {
 public:
  // The root is /run/testbed unless TESTBED_RUN_DIR says otherwise (tests use a temp dir).
  LabStore();
  explicit LabStore(std::string root) : root_(std::move(root)) {}

  const std::string& root() const { return root_; }
  std::string dir(const std::string& lab) const { return root_ + "/" + lab; }
  std::string state_path(const std::string& lab) const { return dir(lab) + "/state.json"; }
  std::string plan_path(const std::string& lab) const { return dir(lab) + "/plan.json"; }
  std::string journal_path(const std::string& lab) const { return dir(lab) + "/state.journal"; }
  // A slice's CURVE key pair (agent/transport/curve_keys.h), 0600: its host's identity to the
  // other hosts of the lab.
  std::string host_key_path(const std::string& lab) const { return dir(lab) + "/host.key"; }
  // A slice's whole lab (every host's nodes and links), kept by `up --hosts` so that a run
  // on this host can address every node (`train` across hosts).
  std::string whole_plan_path(const std::string& lab) const {
    return dir(lab) + "/whole-plan.json";
  }
  std::vector<std::string> labs() const;  // every directory under the root
  bool has_state(const std::string& lab) const;

  // Creates the lab directory when needed. Without `wait`, returns nullopt if another
  // controller holds the lock.
  std::optional<LabLock> lock(const std::string& lab, bool wait) const;
  // Whether load() reads the plan's steps (the kernel changes `up` made, which `down`,
  // `clean` and a resumed `up` work from). What only reads a lab (`status`, the exporter)
  // skips them: at 1000 nodes they are half of plan.json's 5 MB, and making them was a
  // third of `status`. A state so loaded has no steps and is not to be applied or saved.
  // kIfAdopted: read only where a slice adopted namespaces, whose steps `down` undoes one
  // by one; a lab's own namespaces take their steps with them (reading them was half of
  // a 1000-node `down`'s CPU).
  enum class PlanSteps { kRead, kSkipped, kIfAdopted };
  // Throws std::runtime_error.
  LabState load(const std::string& lab, PlanSteps steps = PlanSteps::kRead) const;
  // load() in its two parts, for a reader with other work to do while the plan is parsed
  // (`status`: the plan is most of its time at 1000 nodes). The records (state.json and its
  // journal) without the plan, throwing as load() does; then the plan into them, a problem
  // with it kept in `plan_problem`.
  LabState load_records(const std::string& lab) const;
  void load_plan(const std::string& lab, LabState& state, PlanSteps steps) const;
  void save(const LabState& state) const;  // atomic: write then rename; not the plan
  // One record added to the saved state without rewriting it: appended to the lab's journal,
  // which load() replays and save() folds in. `up` records each namespace before making it
  // and each process it starts; at 1000 nodes, 3000 rewrites of a 600 KB state each time
  // made state writing most of `up`'s own CPU. The caller keeps its LabState in step.
  void record_namespace(const std::string& lab, const NamespaceRecord& ns) const;
  void record_process(const std::string& lab, const ProcessRecord& p) const;
  void save_plan(const std::string& lab, const Plan& plan) const;
  void save_whole_plan(const std::string& lab, const Plan& plan) const;
  // The whole lab's plan: whole-plan.json for a slice, the lab's own plan otherwise. Throws
  // naming the file and the field when it cannot be read.
  Plan load_whole_plan(const LabState& state) const;
  void remove(const std::string& lab) const;  // the lab's directory and its files

  // The one lab when `lab` is empty and exactly one exists; throws otherwise.
  std::string resolve(const std::string& lab) const;

 private:
  void append(const std::string& lab, const nlohmann::json& entry) const;
  void make_dirs(const std::string& lab) const;

  std::string root_;
};

std::string now_iso8601();

}  // namespace testbed
