// sim/engine/public_facts.h — what a job's owner submitted and a strategy may know of it (JobPublic), derived from
// its truth record and class: the class's public facts with max_gpus capped by the cluster, no convergence facts
// for a class that reports no loss, and for a goodput-model job its batch and the GPUs that batch allows.
#pragma once

#include "sim/cluster/cluster_config.h"
#include "strategies/strategy.h"
#include "workloads/goodput_app.h"
#include "workloads/workload.h"

namespace ringsched {

// A job's public facts (what its owner submitted), from its truth record and class; max_gpus capped at total_gpus.
JobPublic public_facts(const JobTruth& t, const JobClass& c, int total_gpus);

// On a cluster with virtual clusters (cluster.virtual_clusters): `p` with its VC's index (JobPublic::vc) and max_gpus
// capped at the VC's GPUs. InputError naming the job, its VC and the known VCs when it names none of them, or when its
// class needs more GPUs than its VC has. Without VCs, `p` unchanged.
JobPublic with_vc(JobPublic p, const JobTruth& t, const ClusterConfig& cluster);

// A goodput job's public facts: the batch it was submitted with (0 when it adapts its batch), and at most as many
// GPUs as that batch (the application's largest, when adapting) has smallest per-GPU batches.
JobPublic goodput_public_facts(JobPublic p, const GoodputApp& app, double batch);

}  // namespace ringsched
