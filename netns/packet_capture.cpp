#include "netns/packet_capture.h"

#include <pcap/pcap.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "netns/named_netns.h"

namespace testbed {
namespace {

// The kernel buffer of each capture: 4 MiB holds a second of a 32 Mbit/s direction at full
// snap length, so a reader held off the CPU for a moment loses nothing (drops are counted).
constexpr int kBufferBytes = 4 << 20;

[[noreturn]] void fail(const std::string& what, pcap_t* p) {
  const std::string why = p ? pcap_geterr(p) : "";
  if (p) pcap_close(p);
  throw KernelError(what + (why.empty() ? "" : ": " + why));
}

}  // namespace

PacketCapture::PacketCapture(const std::string& ns, const std::string& dev, int snaplen)
    : name_(ns + "/" + dev) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  pcap_t* p = nullptr;
  {
    // The packet socket pcap_activate makes belongs to the namespace the thread is in.
    const FileDescriptor target = open_netns(ns);
    NetnsScope inside(target.get());
    p = pcap_create(dev.c_str(), errbuf);
    if (!p) throw KernelError("capture on " + name_ + ": " + errbuf);
    if (pcap_set_snaplen(p, snaplen) != 0 || pcap_set_promisc(p, 0) != 0 ||
        pcap_set_immediate_mode(p, 1) != 0 || pcap_set_buffer_size(p, kBufferBytes) != 0 ||
        pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) != 0)
      fail("capture on " + name_ + ": setting it up", p);
    const int status = pcap_activate(p);
    if (status < 0) fail("capture on " + name_ + ": " + pcap_statustostr(status), p);
  }
  if (pcap_setdirection(p, PCAP_D_OUT) != 0) fail("capture on " + name_ + ": direction", p);
  if (pcap_setnonblock(p, 1, errbuf) != 0)
    fail("capture on " + name_ + ": " + std::string(errbuf), p);
  handle_ = p;
}

PacketCapture::~PacketCapture() {
  if (handle_) pcap_close(handle_);
}

PacketCapture::PacketCapture(PacketCapture&& o) noexcept
    : handle_(o.handle_), name_(std::move(o.name_)) {
  o.handle_ = nullptr;
}

int PacketCapture::selectable_fd() const {
  return pcap_get_selectable_fd(handle_);
}

int PacketCapture::link_type() const {
  return pcap_datalink(handle_);
}

size_t PacketCapture::read(const std::function<void(const CapturedPacket&)>& on_packet) {
  size_t n = 0;
  for (;;) {
    pcap_pkthdr* header = nullptr;
    const u_char* data = nullptr;
    const int r = pcap_next_ex(handle_, &header, &data);
    if (r == 0) return n;  // nothing waiting
    if (r < 0) throw KernelError("capture on " + name_ + ": " + pcap_geterr(handle_));
    // With nanosecond precision, tv_usec holds nanoseconds.
    on_packet({static_cast<int64_t>(header->ts.tv_sec) * 1'000'000'000 + header->ts.tv_usec,
               header->len,
               {reinterpret_cast<const char*>(data), header->caplen}});
    ++n;
  }
}

uint64_t PacketCapture::dropped() const {
  pcap_stat s{};
  if (pcap_stats(handle_, &s) != 0) return 0;
  return s.ps_drop;
}

uint64_t transmitted_packets(const std::string& ns, const std::string& dev) {
  const FileDescriptor target = open_netns(ns);
  NetnsScope inside(target.get());
  // thread-self: this thread's namespace, where /proc/self/net would show the process's.
  std::ifstream in("/proc/thread-self/net/dev");
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(' '));
    if (name != dev) continue;
    // rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes packets ...
    std::istringstream fields(line.substr(colon + 1));
    uint64_t v[10] = {};
    for (auto& x : v) fields >> x;
    return v[9];
  }
  throw KernelError("no device " + dev + " in " + ns);
}

}  // namespace testbed
