// MLfabric's failover (Sec. 5.3: "upon server failure, the lost work due to non-replicated
// updates can be recovered by generating fresh worker updates using the latest model at
// the replica"). The controller runs the scheduler and sees the server's agent die; it
// tells every node the replica is the server now, and from which place its new order
// starts. The paper does not say how the workers learn of the death: here the scheduler,
// which every worker already hears from, tells them.
//
// With checkpoints instead (Sec. 7.3, the paper's alternative), the standby loads the server's
// last checkpoint and is the server from there.
//
// What each node does with what was under way (our choices; docs/faults.md):
//   - the replica keeps the model it has, every place it applied; the places the dead
//     server had ordered beyond them are lost (at most Div_max of them were applied at
//     the server, the bound's point), and its version counts them, so that versions stay
//     the scheduler's place numbers;
//   - an update a worker still holds (announced, no word yet, or its word lost with the
//     old order) is announced again to the new order: it was never applied anywhere;
//   - an update already sent to the dead server, or copied towards the replica but not
//     applied there, is lost with the server: the workers' next updates, computed from the
//     replica's model, are the paper's "fresh worker updates";
//   - a pull under way is asked again of the new server; whatever the dead server or the
//     old order sent that arrives later is dropped and counted.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "agent/protocols/mlfabric/mlfabric_policy.h"

namespace testbed {

void MlfabricPolicy::fail_over(const nlohmann::json& cmd) {
  const int server = cmd.at("server").get<int>();
  const bool from_checkpoint = cmd.value("from_checkpoint", false);
  const int expected = from_checkpoint ? checkpoint_.standby : replica_;
  if (!scheduled_ || expected < 0 || server != expected || failover_.dead_server >= 0)
    throw std::runtime_error("a failover to node " + std::to_string(server) + ", which is not " +
                             (from_checkpoint ? "this run's standby" : "this run's replica"));
  failover_.dead_server = core_.servers().front();
  failover_.first_seq = cmd.at("first_seq").get<uint64_t>();
  core_.set_servers({server});
  const std::string checkpoint_path = checkpoint_.path;
  checkpoint_ = {};  // no standby is left to take the checkpoints
  if (self_ == server && from_checkpoint) {
    promote_from_checkpoint(checkpoint_path);
  } else if (self_ == server) {
    const size_t waiting = ordered_.waiting();
    failover_.skipped_places = ordered_.skip_to(failover_.first_seq);
    failover_.discarded_waiting = waiting - ordered_.waiting();
    core_.shard()->count_lost(failover_.skipped_places);
  }
  replica_ = -1;
  // The old order's sums and copies will never complete: aggregators start afresh.
  for_replica_.clear();
  replicated_early_.clear();
  replica_sums_.reset();
  if (worker_) sums_ = std::make_unique<UpdateSums>(core_.keys().ranges().front().size());
  // A distributor's words and models were the dead server's.
  forward_to_.clear();
  held_models_.clear();
  forward_clocks_.clear();
  if (!worker_) return;
  for (const auto& [clock, u] : held_) {
    announce(clock, u, held_versions_.at(clock));
    ++failover_.reannounced;
  }
  if (core_.ask_again()) ++failover_.repulled;
}

// The checkpoint's file: the places it holds, the number of values, the values (floats, as
// the shard holds them), written to a new file and renamed over the last, so that the
// standby never reads half of one.
void MlfabricPolicy::write_checkpoint() {
  const auto began = std::chrono::steady_clock::now();
  const std::vector<float> values = core_.shard()->values();
  const uint64_t applied = ordered_.applied(), count = values.size();
  const std::string tmp = checkpoint_.path + ".tmp";
  std::filesystem::create_directories(std::filesystem::path(checkpoint_.path).parent_path());
  // 0600: the model is the run's, open to no other user.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("checkpoint: cannot write " + tmp);
  bool ok = ::write(fd, &applied, sizeof applied) == sizeof applied &&
            ::write(fd, &count, sizeof count) == sizeof count;
  const auto bytes = static_cast<ssize_t>(count * sizeof(float));
  ok = ok && ::write(fd, values.data(), static_cast<size_t>(bytes)) == bytes;
  // The paper's checkpoint is on disk: it is there only once synced.
  ok = ::fsync(fd) == 0 && ok;
  ::close(fd);
  if (!ok || std::rename(tmp.c_str(), checkpoint_.path.c_str()) != 0)
    throw std::runtime_error("checkpoint: writing " + checkpoint_.path + " failed");
  checkpointed_ = applied;
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  ++checkpoint_cost_.writes;
  checkpoint_cost_.bytes += sizeof applied + sizeof count + static_cast<uint64_t>(bytes);
  checkpoint_cost_.seconds += took;
  checkpoint_cost_.max_s = std::max(checkpoint_cost_.max_s, took);
}

// The standby loads the server's last checkpoint (none yet: the model's initial values,
// which it holds) and is the server from the new order's first place: the places since the
// checkpoint are lost.
void MlfabricPolicy::promote_from_checkpoint(const std::string& path) {
  const auto began = std::chrono::steady_clock::now();
  uint64_t applied = 0, count = 0;
  std::vector<float> values;
  std::ifstream in(path, std::ios::binary);
  if (in) {
    in.read(reinterpret_cast<char*>(&applied), sizeof applied);
    in.read(reinterpret_cast<char*>(&count), sizeof count);
    if (!in || count != core_.shard()->range().size())
      throw std::runtime_error("checkpoint: " + path + " is not this run's model");
    values.resize(count);
    in.read(reinterpret_cast<char*>(values.data()),
            static_cast<std::streamsize>(count * sizeof(float)));
    if (!in) throw std::runtime_error("checkpoint: " + path + " is cut short");
    core_.replace_shard(std::make_unique<ServerShard>(core_.shard()->range(),
                                                      static_cast<int>(core_.workers().size()),
                                                      core_.consistency(), std::move(values)));
  }
  if (applied > failover_.first_seq)
    throw std::runtime_error("checkpoint: it holds more places than were ordered");
  ordered_.skip_to(failover_.first_seq);
  core_.shard()->count_lost(failover_.first_seq);  // the shard counts from 0: versions go on
  failover_.skipped_places = failover_.first_seq - applied;
  checkpoint_loaded_ = CheckpointLoaded{
      static_cast<bool>(in), applied,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count()};
}

// A message of the dead order: a place below the new order's first, or a copy meant for
// the replica (there is none now).
bool MlfabricPolicy::stale_after_failover(const WireHeader& h) {
  if (failover_.dead_server < 0) return false;
  if (h.tag >= failover_.first_seq && !(h.flags & kToReplica)) return false;
  ++failover_.stale_messages;
  return true;
}

MlfabricFailoverSection MlfabricPolicy::failover_stats() const {
  MlfabricFailoverSection f;
  f.dead_server = static_cast<uint64_t>(failover_.dead_server);
  f.first_seq = failover_.first_seq;
  f.stale_messages_dropped = failover_.stale_messages;
  f.updates_announced_again = failover_.reannounced;
  f.pulls_asked_again = failover_.repulled;
  if (self_ == core_.servers().front())
    f.promoted = MlfabricFailoverSection::Promoted{failover_.skipped_places,
                                                   failover_.discarded_waiting, checkpoint_loaded_};
  return f;
}

}  // namespace testbed
