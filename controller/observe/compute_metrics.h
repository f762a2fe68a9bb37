// The nodes' compute in the testbed's Prometheus metrics (docs/compute.md): per node, the
// CPU time its processes used, the time its quota held them back, its share now, its
// memory and the processes the OOM killer ended, read from its control group at each
// scrape (a few small files per node: cheaper than a sampling thread).
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <string>
#include <utility>
#include <vector>

#include "netns/node_cgroup.h"

namespace testbed {

class ComputeCollectable : public prometheus::Collectable {
 public:
  // `nodes`: (name, namespace) of each node with a group.
  ComputeCollectable(std::string lab, CgroupLayout layout,
                     std::vector<std::pair<std::string, std::string>> nodes)
      : lab_(std::move(lab)), layout_(std::move(layout)), nodes_(std::move(nodes)) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::string lab_;
  CgroupLayout layout_;
  std::vector<std::pair<std::string, std::string>> nodes_;
};

}  // namespace testbed
