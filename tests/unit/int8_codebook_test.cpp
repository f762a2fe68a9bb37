// INTELLECT-1's int8 pseudo-gradients (agent/transport/int8_codebook.h): a byte a value
// and a 256-entry table a message, each entry its bin's mean; exact for a message of at
// most 256 distinct values, so rounding twice is rounding once; a payload no encoder makes
// is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "agent/transport/int8_codebook.h"
#include "agent/transport/value_codec.h"

namespace testbed {
namespace {

std::vector<float> through(const std::vector<float>& v) {
  const std::vector<uint8_t> bytes = int8_encode(v);
  return int8_decode(bytes.data(), bytes.size());
}

std::vector<float> normal_values(size_t n, float sigma, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0, sigma);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(Int8Codebook, AByteAValueAndATableAMessage) {
  const auto v = normal_values(10000, 0.01f, 1);
  // The count and the table's length, 256 fp32 entries, then a byte a value: 4.1x fewer
  // bytes than fp32 here, and 4x in the limit.
  EXPECT_EQ(int8_encode(v).size(), 6u + 256u * 4u + 10000u);
  EXPECT_EQ(find_value_codec("int8")->encode, &int8_encode);
  EXPECT_EQ(value_codec_by_id(3), find_value_codec("int8"));
}

TEST(Int8Codebook, EachValueBecomesItsBinsMeanOverSixSigmas) {
  const float sigma = 0.02f;
  const auto v = normal_values(20000, sigma, 2);
  const auto d = through(v);
  ASSERT_EQ(d.size(), v.size());
  // Bins 6 sigma / 256 wide: inside +-3 sigma a value moves by at most one bin's width.
  const double width = 6.0 * sigma / 256;
  double squared_error = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::fabs(v[i]) < 2.9 * sigma) EXPECT_LE(std::fabs(d[i] - v[i]), width * 1.05) << i;
    squared_error += (d[i] - v[i]) * (d[i] - v[i]);
  }
  // Every value of a bin decodes to one value, the mean of the bin's values, so the sum
  // of each bin is kept: the whole message's sum too.
  double sum_v = 0, sum_d = 0;
  for (size_t i = 0; i < v.size(); ++i) sum_v += v[i], sum_d += d[i];
  EXPECT_NEAR(sum_d, sum_v, 1e-3 * std::fabs(sum_v) + 1e-4);
  EXPECT_LE(std::set<float>(d.begin(), d.end()).size(), 256u);
  // The error's root mean square is under a bin's width (a width over sqrt(12) inside the
  // range; most of it is the 0.3% beyond 3 sigma, in the end bins); fp4's is far above.
  const double rms = std::sqrt(squared_error / static_cast<double>(v.size()));
  EXPECT_LT(rms, width);
  std::vector<float> fp4 = v;
  round_to(*find_value_codec("fp4"), fp4);
  double fp4_error = 0;
  for (size_t i = 0; i < v.size(); ++i) fp4_error += (fp4[i] - v[i]) * (fp4[i] - v[i]);
  EXPECT_GT(std::sqrt(fp4_error / static_cast<double>(v.size())), 4 * rms);
}

TEST(Int8Codebook, OutliersGoToTheEndBinsAndZerosToZero) {
  std::vector<float> v = normal_values(10000, 1.0f, 3);
  // Past 3 sigma (sigma is still about 1): the top bin, with the normal's own tail there,
  // whose mean it pulls up.
  v.push_back(20.0f);
  v.push_back(std::nanf(""));
  const auto d = through(v);
  EXPECT_GT(d[10000], 3.0f);
  EXPECT_LT(d[10000], 20.0f);
  EXPECT_TRUE(std::isfinite(d[10001]));
  std::vector<float> zeros(1000, 0.0f);
  EXPECT_EQ(through(zeros), zeros);
}

TEST(Int8Codebook, AMessageOfAtMost256DistinctValuesIsExactSoRoundingTwiceIsOnce) {
  const std::vector<float> small = {1.0f, -0.3f, 2.5e-3f, 0.0f, -0.0f, 123.456f, 1.0f};
  const auto d = through(small);
  ASSERT_EQ(d.size(), small.size());
  for (size_t i = 0; i < small.size(); ++i)
    EXPECT_EQ(std::signbit(d[i]), std::signbit(small[i])) << i;
  EXPECT_EQ(d, small);
  EXPECT_EQ(int8_encode(small).size(), 6u + 6u * 4u + 7u);  // six distinct values
  // A binned message decodes to at most 256 values, which then go exactly: a segment a
  // ring passes on in its all-gather is not worn down hop by hop.
  const auto once = through(normal_values(5000, 0.5f, 4));
  EXPECT_EQ(through(once), once);
  EXPECT_TRUE(through({}).empty());
}

TEST(Int8Codebook, APayloadNoEncoderMakesIsRefused) {
  std::vector<uint8_t> p = int8_encode({1.0f, 2.0f, 3.0f});
  EXPECT_THROW(int8_decode(p.data(), p.size() - 1), std::runtime_error);  // a value short
  EXPECT_THROW(int8_decode(p.data(), 5), std::runtime_error);             // no head
  std::vector<uint8_t> past = p;
  past.back() = 3;  // the table has three entries: 0, 1, 2
  EXPECT_THROW(int8_decode(past.data(), past.size()), std::runtime_error);
  std::vector<uint8_t> nan_entry = p;
  const float nan = std::nanf("");
  std::memcpy(nan_entry.data() + 6, &nan, sizeof nan);
  EXPECT_THROW(int8_decode(nan_entry.data(), nan_entry.size()), std::runtime_error);
  std::vector<uint8_t> long_table = p;
  const uint16_t k = 257;
  std::memcpy(long_table.data() + 4, &k, sizeof k);
  EXPECT_THROW(int8_decode(long_table.data(), long_table.size()), std::runtime_error);
}

}  // namespace
}  // namespace testbed
