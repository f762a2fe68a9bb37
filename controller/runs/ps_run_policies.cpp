#include "controller/runs/ps_run_policies.h"

#include "controller/runs/apsp/placement_run.h"
#include "controller/runs/diloco/diloco_run.h"
#include "controller/runs/drps/disk_store_run.h"
#include "controller/runs/gaia/gaia_run.h"
#include "controller/runs/mlfabric/mlfabric_run.h"
#include "controller/runs/ps_elastic/elastic_ps_run.h"

namespace testbed {

const std::vector<PsRunPolicyMaker>& ps_run_policies() {
  static const std::vector<PsRunPolicyMaker> kPolicies = {
      make_placement_run,   // APSP: the server and the workers' routes
      make_gaia_run,        // Gaia: a replica per data center, their mirrors, divergence
      make_disk_store_run,  // DRPS: the shards' stores, the index, the partition
      make_wsp_run,         // DRPS: WSP's master's figures
      make_mlfabric_run,    // MLfabric: the update scheduler, distribution, failover
      make_diloco_run,      // DiLoCo: the data centers' outer steps
      make_elastic_ps_run,  // an asynchronous run's workers that leave and join
  };
  return kPolicies;
}

const std::vector<PsRunCheck>& ps_run_checks() {
  static const std::vector<PsRunCheck> kChecks = {
      check_mlfabric_roles,  // MLfabric: one server; the replica's or standby's own node
  };
  return kChecks;
}

}  // namespace testbed
