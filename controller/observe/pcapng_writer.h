// A pcapng file (draft-ietf-opsawg-pcapng): the one format that holds packets of several
// interfaces, each named, in one file, as Wireshark and tcpdump read it. libpcap reads
// pcapng but writes only the older pcap, which has one interface and no names, hence this
// writer: a section header, an interface description per captured link direction (its
// name, its link type, nanosecond timestamps), and an enhanced packet block per packet.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace testbed {

class PcapngWriter {
 public:
  // Writes the section header; `application` names the writer in it.
  PcapngWriter(std::ostream& out, const std::string& application);
  // An interface, numbered from 0 in the order added; every packet names its interface.
  uint32_t add_interface(const std::string& name, const std::string& description, int link_type,
                         uint32_t snaplen);
  // `data` is the captured part; `length` the packet's length on the wire.
  void add_packet(uint32_t interface, int64_t unix_ns, uint32_t length, std::string_view data);
  uint64_t packets() const { return packets_; }

 private:
  std::ostream& out_;
  uint32_t interfaces_ = 0;
  uint64_t packets_ = 0;
};

}  // namespace testbed
