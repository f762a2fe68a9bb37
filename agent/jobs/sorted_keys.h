// Key lists as the Job interface wants them: sorted and unique.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace testbed {

inline void sort_unique(std::vector<uint32_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace testbed
