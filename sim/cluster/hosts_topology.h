// sim/cluster/hosts_topology.h — a host list with switch names (Alibaba Lingjun's topo.csv: one row per host, the
// ToR (ASW), aggregation (PSW) and core (DSW) switch it hangs under) read and validated into a TopologySpec: each host
// a node, each switch a switch vertex, links host-ASW, ASW-PSW and PSW-DSW of the link classes the config gives. Bad
// rows are InputError "file:line: ..." (exit 2). The config form (`"kind": "hosts_csv"`) is in topology_config.cpp; the
// format and its choices in docs/topology.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/cluster/topology.h"

namespace ringsched {

// One host row: its name (column `ip`; Lingjun's are hashed IPs) and its switches by level, as written in the file.
struct HostRow {
  int line = 0;  // 1-based line in the file
  std::string host;
  std::string asw, psw, dsw;  // dsw empty when the file has no DSW column
};

struct HostsTable {
  std::string file;
  bool has_dsw = false;  // the file has a DSW column (three switch levels; else two: ASW and PSW)
  std::vector<HostRow> hosts;
};

// Columns: `ip` (host name), `ASW`, `PSW`, and optionally `DSW`; others are ignored. Rules, each an InputError naming
// the file and line: a missing column; an empty host or switch name; a host listed twice; a name that is both a host
// and a switch; a switch name at two levels (a loop: e.g. an ASW whose name is also a PSW's); no host rows.
HostsTable parse_hosts_csv(const std::string& text, const std::string& origin);
HostsTable read_hosts_csv(const std::string& path);

// How switch names are read. kPerParent: a name is local to its parent switch (Lingjun: ASW `S14` under PSW `P10` and
// `S14` under `P12` are two ToRs), so a switch's vertex is named by its path, "G6/P10/S14". kGlobal: a name is one
// switch wherever it appears (an ASW listed under two PSWs is linked to both).
enum class SwitchNames { kPerParent, kGlobal };

struct HostsLinks {
  LinkClass intra;     // each GPU <-> its host's internal switch
  LinkClass host_asw;  // a host's network port(s) to its ASW (all its NICs as one link)
  LinkClass asw_psw;   // an ASW's uplinks to its PSW (as one link)
  LinkClass psw_dsw;   // a PSW's uplinks to its DSW (as one link; unused without a DSW column)
};

// The graph of the first `hosts` rows (1 <= hosts <= rows), in file order (node k = row k), each with
// `gpus_per_node` GPUs; only the switches those hosts reach are built. Link classes are not checked here (Topology's
// constructor checks them).
TopologySpec hosts_topology_spec(const HostsTable& table, std::size_t hosts, int gpus_per_node, SwitchNames names,
                                 const HostsLinks& links);

}  // namespace ringsched
