#include "controller/runs/packet_capture_run.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "controller/observe/pcapng_writer.h"
#include "netns/packet_capture.h"
#include "netns/private_files.h"

namespace testbed {
namespace {

// Packets from different devices arrive through different sockets; each is written once
// every capture has been read past its time, so the file is in time order. 200 ms covers a
// reader held off the CPU for a moment on a loaded machine.
constexpr int64_t kReorderNs = 200'000'000;
// How often the captures are looked at when nothing arrives: a stop is seen this soon.
constexpr int kPollMs = 100;
// Tries at a start where captures and counters agree (see run_packet_capture): a busy link
// may never pause between two readings; then the last try stands and the counts may differ
// by the packets sent during it.
constexpr int kStartAttempts = 100;

struct Pending {
  int64_t unix_ns;
  uint32_t interface;
  uint32_t length;
  std::string data;
};

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The file: made new 0600 (packets are the lab's traffic) in a directory no other user can
// redirect, never through a link (private_files.h).
class OutputFile {
 public:
  explicit OutputFile(const std::string& path) : file_(create_output_file(path)), path_(path) {}
  // Writes what `buffer` holds and empties it.
  void flush(std::ostringstream& buffer) {
    const std::string bytes = buffer.str();
    for (size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::write(file_.get(), bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::runtime_error(path_ + ": " + std::strerror(errno));
      done += static_cast<size_t>(n);
    }
    buffer.str("");
  }

 private:
  FileDescriptor file_;
  std::string path_;
};

}  // namespace

nlohmann::json CaptureOutcome::to_json() const {
  nlohmann::json dirs = nlohmann::json::array();
  for (const auto& d : directions) {
    dirs.push_back({{"interface", d.name},
                    {"packets", d.packets},
                    {"dropped_by_capture", d.dropped},
                    {"kernel_sent_packets", d.kernel_sent}});
  }
  return {{"packets", packets},
          {"seconds", seconds},
          {"stopped_by", by_signal ? "signal" : "duration"},
          {"directions", dirs}};
}

CaptureOutcome run_packet_capture(const std::vector<CaptureTarget>& targets,
                                  const CaptureOptions& options, const std::atomic<int>& signal,
                                  std::ostream& progress) {
  std::vector<PacketCapture> captures;
  for (const auto& t : targets) captures.emplace_back(t.ns, t.dev, options.snaplen);
  OutputFile file(options.out);
  std::ostringstream buffer;
  PcapngWriter writer(buffer, "testbed capture");
  CaptureOutcome outcome;
  for (size_t i = 0; i < targets.size(); ++i) {
    writer.add_interface(targets[i].name, targets[i].description, captures[i].link_type(),
                         static_cast<uint32_t>(options.snaplen));
    outcome.directions.push_back({targets[i].name, 0, 0, 0});
  }
  file.flush(buffer);
  // The start, where the captures and the devices' counters agree: counters read, what the
  // captures hold so far dropped, counters read again, until nothing was sent in between.
  // A packet is handed to the capture before its device counts it, so one sent while the
  // counters were read shows as a change and the start is tried again; once they agree,
  // every packet after it is both captured and counted. (A first try, with the counters
  // read once after the captures opened, counted one packet fewer than it captured in CI:
  // one sent in between.)
  const auto counters = [&] {
    std::vector<uint64_t> out;
    for (const auto& t : targets) out.push_back(transmitted_packets(t.ns, t.dev));
    return out;
  };
  std::vector<uint64_t> sent_before = counters();
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    for (auto& c : captures) c.read([](const CapturedPacket&) {});
    const auto again = counters();
    if (again == sent_before) break;
    sent_before = again;
  }
  progress << "capturing " << targets.size() << " link direction(s) into " << options.out
           << (options.duration_s > 0 ? "" : " until Ctrl-C") << "\n"
           << std::flush;

  std::vector<Pending> pending;
  const auto read_all = [&] {
    for (size_t i = 0; i < captures.size(); ++i) {
      outcome.directions[i].packets += captures[i].read([&](const CapturedPacket& p) {
        pending.push_back({p.unix_ns, static_cast<uint32_t>(i), p.length, std::string(p.data)});
      });
    }
  };
  // Writes, in time order, what is older than `before`.
  const auto write_older = [&](int64_t before) {
    std::stable_sort(pending.begin(), pending.end(),
                     [](const Pending& a, const Pending& b) { return a.unix_ns < b.unix_ns; });
    size_t n = 0;
    for (; n < pending.size() && pending[n].unix_ns < before; ++n)
      writer.add_packet(pending[n].interface, pending[n].unix_ns, pending[n].length,
                        pending[n].data);
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(n));
    file.flush(buffer);
  };

  const auto began = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  };
  std::vector<pollfd> fds;
  for (const auto& c : captures) fds.push_back({c.selectable_fd(), POLLIN, 0});
  while (!signal && (options.duration_s <= 0 || elapsed() < options.duration_s)) {
    ::poll(fds.data(), fds.size(), kPollMs);  // EINTR: a signal, seen above
    read_all();
    write_older(now_ns() - kReorderNs);
  }
  outcome.by_signal = signal != 0;
  outcome.seconds = elapsed();
  for (size_t i = 0; i < targets.size(); ++i)
    outcome.directions[i].kernel_sent =
        transmitted_packets(targets[i].ns, targets[i].dev) - sent_before[i];
  read_all();
  write_older(INT64_MAX);
  for (size_t i = 0; i < captures.size(); ++i) {
    outcome.directions[i].dropped = captures[i].dropped();
    outcome.packets += outcome.directions[i].packets;
  }
  return outcome;
}

}  // namespace testbed
