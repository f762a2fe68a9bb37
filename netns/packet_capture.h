// Packets as a device sends them, captured with libpcap inside a node's namespace: one
// open capture per link direction (`testbed capture`, controller/runs/packet_capture_run.h).
// RAII around the pcap handle, which is opened in the namespace (its packet socket is bound
// to the device there) and read from wherever the caller runs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

struct pcap;

namespace testbed {

struct CapturedPacket {
  int64_t unix_ns = 0;    // when the kernel saw it (nanoseconds)
  uint32_t length = 0;    // on the wire
  std::string_view data;  // the captured part, at most the snap length; valid in the callback
};

class PacketCapture {
 public:
  // Opens `dev` in namespace `ns`, keeping only what the device sends (the direction leaves
  // through it) with nanosecond timestamps and no buffering delay. Throws std::runtime_error
  // naming the device and libpcap's reason.
  PacketCapture(const std::string& ns, const std::string& dev, int snaplen);
  ~PacketCapture();
  PacketCapture(PacketCapture&& o) noexcept;
  PacketCapture(const PacketCapture&) = delete;
  PacketCapture& operator=(const PacketCapture&) = delete;
  PacketCapture& operator=(PacketCapture&&) = delete;

  int selectable_fd() const;
  int link_type() const;  // DLT_*: Ethernet on veth and VXLAN ends
  // Hands each waiting packet to `on_packet`; returns how many. Never blocks.
  size_t read(const std::function<void(const CapturedPacket&)>& on_packet);
  // Packets the kernel dropped because this capture's buffer was full.
  uint64_t dropped() const;

 private:
  pcap* handle_ = nullptr;
  std::string name_;
};

// The device's transmitted-packet counter (the kernel's, as /proc/net/dev shows it inside
// the namespace). Throws std::runtime_error when there is no such device.
uint64_t transmitted_packets(const std::string& ns, const std::string& dev);

}  // namespace testbed
