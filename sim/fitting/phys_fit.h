// sim/fitting/phys_fit.h — the `phys` model inside `ringsched fit`: the choice between the net and phys families for
// the net protocols, the phys entry's speed JSON, the hardware report and the posterior intervals on unprofiled points.
// Doc: docs/heldout.md ("The `phys` model").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/fit.h"
#include "models/network_model.h"
#include "models/phys_model.h"

namespace ringsched {

// Which model family the net protocols (two-node, net-all) fit: "net" (today's default), "phys" (the physical model
// of models/phys_model.h, bounded by `hardware`) or "auto" (the smaller leave-one-probe-out MAPE of the two
// families' chosen variants; a tie keeps net). Other protocols ignore it.
struct SpeedModelChoice {
  std::string model = "net";
  models::PhysHardware hardware;
};

// For net-protocol points already fitted by the net family (`net`): fits the phys family into `phys` when the choice
// asks for it, and says whether it is the one kept (phys: always; auto: when its best leave-one-probe-out MAPE is
// smaller). InputError naming `origin` for an unknown model name.
bool choose_phys_family(const models::NetFit& net, const std::vector<models::SpeedPoint>& points,
                        const SpeedModelChoice& choice, const std::string& origin, models::PhysFit& phys);

// The catalog speed kind `phys` for a fitted phys model.
nlohmann::json phys_speed_json(const models::PhysFit& fit);

// quality.hardware: what was declared, the coefficient bounds and what the defaults assume.
nlohmann::json phys_hardware_json(const models::PhysHardware& hw, int gpus_per_node);

// Checks the hardware numbers a user gave: InputError naming `where` and the flag (--nic-gbps, ...) for zero,
// negative, non-finite or absurd rates, bytes per parameter, bucket, latency, overlap or model size.
void check_phys_hardware(const models::PhysHardware& hw, const std::string& where);

// Probes that contradict the declared NIC: a multi-node step shorter than the NIC's time for its traffic alone
// (the variant-free minimum 2(N-1)/N gradient bytes per NIC). More than 10x shorter: InputError naming `origin` and
// the flag; shorter (compute may hide it): a warning string per case, appended to `warnings`.
void check_probes_against_hardware(const std::vector<models::SpeedPoint>& points, const models::PhysHardware& hw,
                                   const std::string& origin, std::vector<std::string>& warnings);

}  // namespace ringsched
