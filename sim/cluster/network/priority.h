// sim/cluster/network/priority.h — Crux-style priority by GPU intensity (Cao et al., "Crux: GPU-Efficient
// Communication Scheduling for Deep Learning Training", SIGCOMM'24): a job that keeps more GPUs busy per byte it
// sends goes first, so the GPUs it would leave idle while waiting are fewer. Here priority becomes the flows'
// weights in weighted max-min: level k gets weight kPriorityBase^k, so a higher level takes 8/9 or more of a link
// it shares with a lower one (approximately strict priority, as Crux's switch queues).
#pragma once

#include <span>
#include <vector>

namespace ringsched::net {

// The number of priority levels (Crux compresses its priorities to the switches' few queues; 8 is a common count).
inline constexpr int kPriorityLevels = 8;
inline constexpr double kPriorityBase = 8.0;

// GPU intensity: gpus x compute seconds per iteration / inter-node bytes per iteration, with compute = iteration_s -
// comm_alone_s floored at 0. Infinite when the job sends no inter-node bytes.
double gpu_intensity(int gpus, double iteration_s, double comm_alone_s, double inter_node_bytes);

// Weights of jobs that share links, from their intensities: the D distinct intensities ranked ascending (rank 0 =
// least intense) fall into L = min(D, kPriorityLevels) levels, level = floor(rank x L / D); weight =
// kPriorityBase^level. Equal intensities get equal weights; one job (or all equal) gets weight 1.
std::vector<double> gpu_intensity_weights(std::span<const double> intensity);

}  // namespace ringsched::net
