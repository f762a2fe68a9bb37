// Which part of the model Streaming DiLoCo synchronizes, and when (pure: unit-tested).
//
// Fragments: the paper cuts a transformer's layers into P fragments, strided across its
// depth. Our jobs' models are flat vectors with no layers, so fragment p is the p-th of P
// contiguous slices (the last takes the remainder): the same share of the bytes per sync,
// which is what the network sees. docs/streaming-diloco.md says so.
//
// Times: fragment p is synchronized after inner step t (counting from 1) when
// (t - offset(p)) is a positive multiple of H, or t = offset(p) > 0, with offset(p) =
// p H / P (rounded down): every fragment every H steps, a sync every H/P steps from the
// run's start. Fragment 0's first sync ends step H, fragment p's first ends step p H / P.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

namespace testbed {

class FragmentSchedule {
 public:
  // H >= P >= 1; throws std::invalid_argument otherwise.
  FragmentSchedule(int inner_steps, int fragments);

  int fragments() const { return fragments_; }
  int offset(int p) const { return static_cast<int>(int64_t{p} * h_ / fragments_); }
  // The fewest inner steps between two syncs: an overlap must be shorter.
  int least_gap() const;
  // The fragment synchronized after inner step `step` (1, 2, ...), if one is.
  std::optional<int> due_after(uint64_t step) const;
  // Fragment p's [begin, end) of a model of `values`.
  std::pair<size_t, size_t> bounds(int p, size_t values) const;

 private:
  int h_, fragments_;
};

}  // namespace testbed
