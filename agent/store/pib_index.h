// DRPS's parameter index (Sec. 4, Alg. 1): from which keys each batch accesses, merge
// keys that are accessed together into parameter index blocks (PIBs), each stored and
// read as one unit, until no merge saves disk time.
//
// Cost model (Sec. 4.1, Eq. 1-3): a block B accessed by AccNum(B) batches costs
//   cost(B) = AccNum(B) * (t_s + |B| * t_a),
// t_s one seek, t_a the read and write time of one parameter; merging B_i and B_j saves
//   Delta_ij = cost(B_i) + cost(B_j) - cost(B_ij),
// where AccNum(B_ij) counts the batches accessing either (A_i + A_j - C_ij, C_ij those
// accessing both). Only pairs some batch accesses together can save anything.
//
// Each round counts accesses over the current blocks, then merges the top-k pairs by
// Delta, skipping a pair whose block was already merged this round (Sec. 4.2: Delta of a
// merged block with a third is unknown until recounted); it stops when the best Delta is
// no more than the minimal gain gamma. k = 1 is the one-pair-per-round algorithm the
// paper improves on. Keys accessed by fewer batches than the pruning frequency are left
// out of indexing (Sec. 4.2's dimension pruning) and stay alone.
#pragma once

#include <cstdint>
#include <vector>

namespace testbed {

struct IndexOptions {
  // A random 4 KiB read of an SSD-class disk takes about 100 us; one float read and
  // written back at about 500 MB/s takes 2 x 8 ns. The paper gives none (only t_s >> t_a).
  double seek_s = 100e-6;
  double per_parameter_s = 16e-9;
  int top_k = 50;            // the paper's k
  double min_gain_s = 0;     // gamma
  uint32_t prune_below = 0;  // accessing frequency, in batches
};

struct IndexResult {
  std::vector<std::vector<uint32_t>> pibs;  // blocks of two or more keys, keys sorted
  int rounds = 0;
  uint64_t merges = 0;
  uint64_t indexed_keys = 0;                   // keys left after pruning
  double cost_before_s = 0, cost_after_s = 0;  // Eq. 1 summed over blocks, all batches
};

// `batches`: the keys each batch accesses (sorted, unique).
IndexResult build_index(const std::vector<std::vector<uint32_t>>& batches,
                        const IndexOptions& options);

// Eq. 1 summed over the blocks `batches` touch: every key alone except those in `pibs`.
double index_cost(const std::vector<std::vector<uint32_t>>& batches,
                  const std::vector<std::vector<uint32_t>>& pibs, const IndexOptions& options);

}  // namespace testbed
