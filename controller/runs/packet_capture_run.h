// `testbed capture`: the packets of chosen link directions, each captured where it is sent
// (its sender's device, netns/packet_capture.h), into one pcapng file with an interface per
// direction named after it, in time order (observe/pcapng_writer.h). Stops at its duration
// or on a signal; reports each direction's packets beside the kernel's own count of what the
// device sent meanwhile, so that a capture that missed packets says so.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace testbed {

struct CaptureTarget {
  std::string name;         // "from->to": the pcapng interface's name
  std::string description;  // where it was captured
  std::string ns, dev;      // the sender's namespace and device
};

struct CaptureOptions {
  std::string out;        // the pcapng file, written 0600
  double duration_s = 0;  // 0: until a signal
  // 262144: tcpdump's default, the largest packet a Linux device hands up (GSO included).
  int snaplen = 262144;
};

struct CaptureOutcome {
  struct Direction {
    std::string name;
    uint64_t packets = 0;      // written to the file
    uint64_t dropped = 0;      // lost by the capture (its buffer was full)
    uint64_t kernel_sent = 0;  // the device's transmitted packets while capturing
  };
  std::vector<Direction> directions;
  uint64_t packets = 0;
  double seconds = 0;
  bool by_signal = false;
  nlohmann::json to_json() const;
};

// Opens every capture first (throws std::runtime_error naming the one that failed; no file
// is made then), writes "capturing ..." to `progress` once all are open, and returns when
// the duration is over or `signal` is set.
CaptureOutcome run_packet_capture(const std::vector<CaptureTarget>& targets,
                                  const CaptureOptions& options, const std::atomic<int>& signal,
                                  std::ostream& progress);

}  // namespace testbed
