#include "agent/protocols/tree/sync_policy.h"

#include <cmath>

namespace testbed {

std::vector<std::vector<int>> children_of(const AggregationTree& tree) {
  std::vector<std::vector<int>> children(tree.parent.size());
  for (size_t n = 0; n < tree.parent.size(); ++n) {
    if (tree.parent[n] != kNoParent)
      children[static_cast<size_t>(tree.parent[n])].push_back(static_cast<int>(n));
  }
  return children;
}

std::vector<int> bottom_up_order(const AggregationTree& tree) {
  // Breadth-first from the root, reversed: every node comes after all its descendants.
  const auto children = children_of(tree);
  std::vector<int> order{tree.root};
  for (size_t i = 0; i < order.size(); ++i) {
    for (int c : children[static_cast<size_t>(order[i])]) order.push_back(c);
  }
  return {order.rbegin(), order.rend()};
}

std::vector<std::pair<uint32_t, uint32_t>> assign_chunks(const SyncPolicy& policy,
                                                         uint32_t chunks) {
  double total = 0;
  for (const auto& t : policy.trees) total += t.share;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  double cumulative = 0;
  uint32_t begin = 0;
  for (size_t i = 0; i < policy.trees.size(); ++i) {
    cumulative += policy.trees[i].share;
    const uint32_t end = i + 1 == policy.trees.size()
                             ? chunks
                             : static_cast<uint32_t>(std::llround(chunks * cumulative / total));
    ranges.emplace_back(begin, std::max(begin, end));
    begin = std::max(begin, end);
  }
  return ranges;
}

std::string check_tree(const AggregationTree& tree) {
  const size_t n = tree.parent.size();
  if (tree.root < 0 || static_cast<size_t>(tree.root) >= n) return "root out of range";
  if (tree.parent[static_cast<size_t>(tree.root)] != kNoParent) return "the root has a parent";
  for (size_t node = 0; node < n; ++node) {
    // Walk up: a spanning tree reaches the root within n steps from every node.
    int at = static_cast<int>(node);
    for (size_t steps = 0; at != tree.root; ++steps) {
      if (steps > n || at == kNoParent)
        return "node " + std::to_string(node) + " does not reach the root";
      at = tree.parent[static_cast<size_t>(at)];
    }
  }
  return "";
}

}  // namespace testbed
