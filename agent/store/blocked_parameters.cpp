#include "agent/store/blocked_parameters.h"

#include <map>
#include <stdexcept>
#include <string>

namespace testbed {

BlockedParameters::BlockedParameters(ParameterStore& store, BlockLayout layout)
    : store_(store), layout_(std::move(layout)) {}

void BlockedParameters::load(const std::function<float(uint32_t)>& initial) {
  std::vector<std::pair<uint32_t, std::vector<float>>> all;
  all.reserve(layout_.blocks());
  for (uint32_t b = 0; b < layout_.blocks(); ++b) {
    std::vector<float> values;
    for (uint32_t key : layout_.keys_of(b)) values.push_back(initial(key));
    all.emplace_back(b, std::move(values));
  }
  store_.write_all(all);
}

std::vector<float> BlockedParameters::block(uint32_t id) {
  auto values = store_.read(id);
  if (!values || values->size() != layout_.keys_of(id).size())
    throw std::runtime_error("parameter store: block " + std::to_string(id) +
                             (values ? " has the wrong size" : " is missing"));
  return std::move(*values);
}

std::vector<float> BlockedParameters::read(const std::vector<uint32_t>& keys) {
  std::map<uint32_t, std::vector<float>> blocks;
  for (uint32_t b : layout_.blocks_for(keys)) blocks.emplace(b, block(b));
  std::vector<float> out;
  out.reserve(keys.size());
  for (uint32_t key : keys) out.push_back(blocks.at(layout_.block_of(key))[layout_.offset_of(key)]);
  return out;
}

void BlockedParameters::add(const std::vector<uint32_t>& keys, const std::vector<float>& deltas) {
  std::map<uint32_t, std::vector<float>> blocks;
  for (uint32_t b : layout_.blocks_for(keys)) blocks.emplace(b, block(b));
  for (size_t i = 0; i < keys.size(); ++i)
    blocks.at(layout_.block_of(keys[i]))[layout_.offset_of(keys[i])] += deltas[i];
  for (const auto& [b, values] : blocks) store_.write(b, values);
}

}  // namespace testbed
