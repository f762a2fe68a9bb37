#include "agent/protocols/streaming_diloco/fragment_schedule.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace testbed {

FragmentSchedule::FragmentSchedule(int inner_steps, int fragments)
    : h_(inner_steps), fragments_(fragments) {
  if (fragments < 1 || inner_steps < fragments)
    throw std::invalid_argument("fragment schedule: " + std::to_string(fragments) +
                                " fragments over H = " + std::to_string(inner_steps));
}

int FragmentSchedule::least_gap() const {
  int gap = h_ - offset(fragments_ - 1);  // from the last fragment round to fragment 0
  for (int p = 1; p < fragments_; ++p) gap = std::min(gap, offset(p) - offset(p - 1));
  return gap;
}

std::optional<int> FragmentSchedule::due_after(uint64_t step) const {
  if (step == 0) return std::nullopt;
  const auto phase = static_cast<int>(step % static_cast<uint64_t>(h_));
  for (int p = 0; p < fragments_; ++p)
    if (offset(p) == phase) return p;
  return std::nullopt;
}

std::pair<size_t, size_t> FragmentSchedule::bounds(int p, size_t values) const {
  const size_t per = values / static_cast<size_t>(fragments_);
  const size_t begin = per * static_cast<size_t>(p);
  return {begin, p == fragments_ - 1 ? values : begin + per};
}

}  // namespace testbed
