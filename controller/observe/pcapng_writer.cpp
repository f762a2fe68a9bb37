#include "controller/observe/pcapng_writer.h"

#include <stdexcept>
#include <vector>

namespace testbed {
namespace {

// Block types and option codes (draft-ietf-opsawg-pcapng, sections 4 and 3.5).
constexpr uint32_t kSectionHeader = 0x0A0D0D0A;
constexpr uint32_t kInterfaceDescription = 0x00000001;
constexpr uint32_t kEnhancedPacket = 0x00000006;
constexpr uint32_t kByteOrderMagic = 0x1A2B3C4D;
constexpr uint16_t kOptEnd = 0, kShbUserAppl = 4, kIfName = 2, kIfDescription = 3, kIfTsresol = 9;
// if_tsresol 9: timestamps count 10^-9 s, the nanoseconds libpcap gives.
constexpr uint8_t kNanoseconds = 9;

// A block's body in the host's byte order, which the section header's magic declares.
class Body {
 public:
  template <typename T>
  void put(T v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    bytes_.insert(bytes_.end(), p, p + sizeof v);
  }
  void bytes(std::string_view s) {
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    while (bytes_.size() % 4) bytes_.push_back(0);  // blocks and options end on 32 bits
  }
  void option(uint16_t code, std::string_view value) {
    put(code);
    put(static_cast<uint16_t>(value.size()));
    bytes(value);
  }
  void end_options() {
    put(kOptEnd);
    put(uint16_t{0});
  }
  // The block: its type, its total length before and after the body.
  void write(std::ostream& out, uint32_t type) const {
    const uint32_t total = static_cast<uint32_t>(bytes_.size() + 12);
    out.write(reinterpret_cast<const char*>(&type), 4);
    out.write(reinterpret_cast<const char*>(&total), 4);
    out.write(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
    out.write(reinterpret_cast<const char*>(&total), 4);
    if (!out) throw std::runtime_error("pcapng: writing a block failed");
  }

 private:
  std::vector<char> bytes_;
};

}  // namespace

PcapngWriter::PcapngWriter(std::ostream& out, const std::string& application) : out_(out) {
  Body shb;
  shb.put(kByteOrderMagic);
  shb.put(uint16_t{1});  // version 1.0
  shb.put(uint16_t{0});
  shb.put(int64_t{-1});  // section length: not given (the file is written as it goes)
  shb.option(kShbUserAppl, application);
  shb.end_options();
  shb.write(out_, kSectionHeader);
}

uint32_t PcapngWriter::add_interface(const std::string& name, const std::string& description,
                                     int link_type, uint32_t snaplen) {
  Body idb;
  idb.put(static_cast<uint16_t>(link_type));
  idb.put(uint16_t{0});
  idb.put(snaplen);
  idb.option(kIfName, name);
  if (!description.empty()) idb.option(kIfDescription, description);
  idb.option(kIfTsresol, std::string_view(reinterpret_cast<const char*>(&kNanoseconds), 1));
  idb.end_options();
  idb.write(out_, kInterfaceDescription);
  return interfaces_++;
}

void PcapngWriter::add_packet(uint32_t interface, int64_t unix_ns, uint32_t length,
                              std::string_view data) {
  if (interface >= interfaces_) throw std::invalid_argument("pcapng: no such interface");
  const auto ts = static_cast<uint64_t>(unix_ns);
  Body epb;
  epb.put(interface);
  epb.put(static_cast<uint32_t>(ts >> 32));
  epb.put(static_cast<uint32_t>(ts & 0xffffffffu));
  epb.put(static_cast<uint32_t>(data.size()));
  epb.put(length);
  epb.bytes(data);
  epb.write(out_, kEnhancedPacket);
  ++packets_;
}

}  // namespace testbed
