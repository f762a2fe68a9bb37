// The pcapng writer (controller/observe/pcapng_writer.*), read back by libpcap's own
// pcapng reader: every packet, its length, its captured bytes and its nanosecond time.
#include <gtest/gtest.h>
#include <pcap/pcap.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "controller/observe/pcapng_writer.h"

namespace testbed {
namespace {

TEST(PcapngWriter, LibpcapReadsBackEveryPacketOfEveryInterface) {
  std::ostringstream out;
  PcapngWriter w(out, "testbed test");
  const uint32_t a = w.add_interface("a->b", "link 0 a2b", DLT_EN10MB, 65535);
  const uint32_t b = w.add_interface("b->a", "", DLT_EN10MB, 65535);
  // Captured parts of 14, 61 and 3 bytes: each padded to 32 bits in the file.
  const std::string frames[3] = {std::string(14, '\x11'), std::string(61, '\x22'),
                                 std::string(3, '\x33')};
  const int64_t t0 = 1'764'374'400'123'456'789;  // 2025-11-29, to the nanosecond
  w.add_packet(a, t0, 14, frames[0]);
  w.add_packet(b, t0 + 1500, 1514, frames[1]);  // cut at the snap length: on the wire 1514
  w.add_packet(a, t0 + 2'000'000'000, 3, frames[2]);
  EXPECT_EQ(w.packets(), 3u);
  EXPECT_THROW(w.add_packet(7, t0, 1, "x"), std::invalid_argument);

  const std::string path = testing::TempDir() + "/tb-pcapng-test.pcapng";
  std::ofstream(path, std::ios::binary) << out.str();
  char err[PCAP_ERRBUF_SIZE] = {};
  pcap_t* p =
      pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, err);
  ASSERT_NE(p, nullptr) << err;
  EXPECT_EQ(pcap_datalink(p), DLT_EN10MB);
  pcap_pkthdr* h = nullptr;
  const u_char* data = nullptr;
  const uint32_t lengths[3] = {14, 1514, 3};
  const int64_t times[3] = {t0, t0 + 1500, t0 + 2'000'000'000};
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(pcap_next_ex(p, &h, &data), 1) << i << ": " << pcap_geterr(p);
    EXPECT_EQ(h->len, lengths[i]);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(data), h->caplen), frames[i]);
    EXPECT_EQ(static_cast<int64_t>(h->ts.tv_sec) * 1'000'000'000 + h->ts.tv_usec, times[i]);
  }
  EXPECT_EQ(pcap_next_ex(p, &h, &data), PCAP_ERROR_BREAK);  // the end of the file
  pcap_close(p);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace testbed
