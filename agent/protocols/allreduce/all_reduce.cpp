#include "agent/protocols/allreduce/all_reduce.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "agent/protocols/allreduce/ring_allreduce.h"
#include "agent/protocols/allreduce/tree_allreduce.h"

namespace testbed {
namespace {

using Factory = std::unique_ptr<AllReduce> (*)(size_t, int, int);

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> kAlgorithms = {
      {"ring",
       [](size_t v, int w, int r) -> std::unique_ptr<AllReduce> {
         return std::make_unique<RingAllReduce>(v, w, r);
       }},
      {"tree",
       [](size_t v, int w, int r) -> std::unique_ptr<AllReduce> {
         return std::make_unique<TreeAllReduce>(v, w, r);
       }},
  };
  return kAlgorithms;
}

}  // namespace

void AllReduce::round(std::vector<float>& v, size_t b, size_t e) const {
  if (codec_ == nullptr || codec_->id == 0) return;
  std::vector<float> part(v.begin() + static_cast<std::ptrdiff_t>(b),
                          v.begin() + static_cast<std::ptrdiff_t>(e));
  round_to(*codec_, part);
  std::copy(part.begin(), part.end(), v.begin() + static_cast<std::ptrdiff_t>(b));
}

std::unique_ptr<AllReduce> make_all_reduce(const std::string& algorithm, size_t values, int workers,
                                           int rank) {
  const auto it = factories().find(algorithm);
  if (it == factories().end())
    throw std::invalid_argument("unknown all-reduce algorithm '" + algorithm + "'");
  return it->second(values, workers, rank);
}

const std::vector<std::string>& all_reduce_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> v;
    for (const auto& [name, f] : factories()) v.push_back(name);
    return v;
  }();
  return kNames;
}

}  // namespace testbed
