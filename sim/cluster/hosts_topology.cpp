// sim/cluster/hosts_topology.cpp — reading a host list with switch names (Lingjun topo.csv) and building its graph.
#include "sim/cluster/hosts_topology.h"

#include <array>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "workloads/io/csv.h"
#include "workloads/io/input_file.h"

namespace ringsched {
namespace {

// Switch levels, bottom up, as the file's columns name them, and with their article for messages.
constexpr std::array<const char*, 3> kLevelNames = {"ASW", "PSW", "DSW"};
constexpr std::array<const char*, 3> kLevelWithArticle = {"an ASW", "a PSW", "a DSW"};

struct NameSeen {
  int level = 0;  // 0..2 = ASW, PSW, DSW
  int line = 0;
};

// Every name must mean one thing: a host once, or a switch at one level. Messages name the row's line and the line
// where the name was first seen.
class HostsNameCheck {
 public:
  explicit HostsNameCheck(const CsvTable& t) : table_(t) {}

  void host(const CsvRow& row, const std::string& name) {
    if (name.empty()) table_.fail(row, "column 'ip': empty host name");
    if (auto h = hosts_.find(name); h != hosts_.end()) {
      table_.fail(row, "host '" + name + "' is listed twice (first on line " + std::to_string(h->second) + ")");
    }
    if (auto s = switches_.find(name); s != switches_.end()) {
      table_.fail(row, "'" + name + "' is a host here but a switch (" +
                           kLevelNames[static_cast<std::size_t>(s->second.level)] + ") on line " +
                           std::to_string(s->second.line));
    }
    hosts_.emplace(name, row.line);
  }

  void switch_name(const CsvRow& row, const std::string& name, int level) {
    const char* lv = kLevelNames[static_cast<std::size_t>(level)];
    if (name.empty()) table_.fail(row, std::string("column '") + lv + "': empty switch name");
    if (auto h = hosts_.find(name); h != hosts_.end()) {
      table_.fail(row, "'" + name + "' is a switch (" + lv + ") here but a host on line " + std::to_string(h->second));
    }
    const auto [s, added] = switches_.emplace(name, NameSeen{level, row.line});
    if (!added && s->second.level != level) {
      table_.fail(row, "switch '" + name + "' is " + kLevelWithArticle[static_cast<std::size_t>(level)] + " here but " +
                           kLevelWithArticle[static_cast<std::size_t>(s->second.level)] + " on line " +
                           std::to_string(s->second.line) + " (a name at two levels would make a loop)");
    }
  }

 private:
  const CsvTable& table_;
  std::unordered_map<std::string, int> hosts_;
  std::unordered_map<std::string, NameSeen> switches_;
};

}  // namespace

HostsTable parse_hosts_csv(const std::string& text, const std::string& origin) {
  const CsvTable t = parse_csv(text, origin);
  const int ip = t.require_column("ip");
  const std::array<int, 3> col = {t.require_column("ASW"), t.require_column("PSW"), t.column("DSW")};
  HostsTable out;
  out.file = origin;
  out.has_dsw = col[2] >= 0;
  if (t.rows.empty()) throw InputError(origin + ":1: no host rows (one row per host: ip, ASW, PSW, DSW)");
  HostsNameCheck check(t);
  out.hosts.reserve(t.rows.size());
  for (const CsvRow& row : t.rows) {
    HostRow h;
    h.line = row.line;
    h.host = t.text(row, ip);
    check.host(row, h.host);
    std::array<std::string*, 3> names = {&h.asw, &h.psw, &h.dsw};
    for (std::size_t level = 0; level < 3; ++level) {
      if (col[level] < 0) continue;
      *names[level] = t.text(row, col[level]);
      check.switch_name(row, *names[level], static_cast<int>(level));
    }
    out.hosts.push_back(std::move(h));
  }
  return out;
}

HostsTable read_hosts_csv(const std::string& path) {
  return parse_hosts_csv(read_input_file(path, "host list"), path);
}

namespace {

// Builds the switch vertices and the links between levels, each switch and each link once.
class HostsSpecBuilder {
 public:
  explicit HostsSpecBuilder(TopologySpec& spec) : spec_(spec) {}

  void add_switch(const std::string& name) {
    if (switches_.insert(name).second) spec_.switches.push_back(name);
  }
  void add_link(const std::string& a, const std::string& b, const LinkClass& link) {
    if (links_.insert({a, b}).second) spec_.links.push_back({a, b, link});
  }

 private:
  TopologySpec& spec_;
  std::unordered_set<std::string> switches_;
  std::set<std::pair<std::string, std::string>> links_;
};

}  // namespace

TopologySpec hosts_topology_spec(const HostsTable& table, std::size_t hosts, int gpus_per_node, SwitchNames names,
                                 const HostsLinks& links) {
  if (hosts < 1 || hosts > table.hosts.size()) {
    throw std::invalid_argument("asks for " + std::to_string(hosts) + " hosts of " +
                                std::to_string(table.hosts.size()));
  }
  TopologySpec spec;
  HostsSpecBuilder b(spec);
  const bool scoped = names == SwitchNames::kPerParent;
  for (std::size_t i = 0; i < hosts; ++i) {
    const HostRow& h = table.hosts[i];
    spec.nodes.push_back({h.host, gpus_per_node, links.intra});
    const std::string dsw = h.dsw;
    const std::string psw = scoped && table.has_dsw ? dsw + "/" + h.psw : h.psw;
    const std::string asw = scoped ? psw + "/" + h.asw : h.asw;
    b.add_switch(asw);
    b.add_switch(psw);
    b.add_link(h.host, asw, links.host_asw);
    b.add_link(asw, psw, links.asw_psw);
    if (table.has_dsw) {
      b.add_switch(dsw);
      b.add_link(psw, dsw, links.psw_dsw);
    }
  }
  return spec;
}

}  // namespace ringsched
