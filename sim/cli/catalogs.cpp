// sim/cli/catalogs.cpp — `ringsched catalogs`: the built-in catalogs, or one of them (JSON for the embedded ones, a
// class table for the two built from the shipped Pollux data).
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "sim/cli/commands.h"
#include "workloads/catalog.h"
#include "workloads/data_catalogs.h"
#include "workloads/goodput_app.h"
#include "workloads/io/json_reader.h"
#include "workloads/pollux.h"

namespace ringsched::cli {
namespace {

std::vector<std::string> all_names() {
  auto names = builtin_catalog_names();
  for (const auto& n : data_folder_catalog_names())
    names.push_back(n);
  return names;
}

// One line per class: what a config may refer to and what the truth is made of.
void print_class_table(const Catalog& cat) {
  std::cout << "# " << cat.name << ": " << cat.description << "\n# from " << cat.origin << "\n";
  std::size_t width = 14;  // the widest class name + 2 (Gavel's job types are long)
  for (const auto& c : cat.classes)
    width = std::max(width, c.name.size() + 2);
  std::cout << std::left << std::setw(static_cast<int>(width)) << "class"
            << "gpus    truth            batch                              work\n";
  for (const auto& c : cat.classes) {
    std::ostringstream batch;
    std::ostringstream work;
    std::string truth;
    if (c.goodput) {
      truth = "goodput";
      batch << "global " << c.goodput->init_batch_size() << ".." << c.goodput->max_batch_size()
            << (c.adaptive_batch ? " (adaptive)" : " (fixed)");
      work << c.goodput->max_epochs() << " epochs (by batch size)";
    } else if (!c.speed_by_type.empty()) {
      truth = "per GPU type";
      batch << to_string(c.batch_mode) << " " << c.batch_size;
      work << std::setprecision(4) << c.work_samples << " samples";
    } else {
      truth = "measured tables";
      batch << to_string(c.batch_mode) << " " << c.batch_size;
      work << std::setprecision(4) << c.work_samples << " samples";
    }
    std::cout << std::left << std::setw(static_cast<int>(width)) << c.name << std::setw(8)
              << (std::to_string(c.min_gpus) + ".." + std::to_string(c.max_gpus)) << std::setw(17) << truth
              << std::setw(35) << batch.str() << work.str() << "\n";
  }
}

}  // namespace

Command add_catalogs_command(CLI::App& app) {
  struct Options {
    std::string show;
    std::string pollux_dir;
    std::string gavel_dir;
  };
  auto o = std::make_shared<Options>();
  auto* c = app.add_subcommand("catalogs",
                               "List the built-in catalogs, or print one with --show NAME: the embedded ones as JSON "
                               "(a starting point for your own catalog file), `pollux`, `pollux-goodput` (built "
                               "from the shipped Pollux data) and `gavel` (Gavel's throughputs) as a class table");
  c->add_option("--show", o->show, "Print this built-in catalog");
  c->add_option("--pollux-dir", o->pollux_dir, "Pollux data folder for pollux / pollux-goodput (default: the shipped)");
  c->add_option("--gavel-dir", o->gavel_dir, "Gavel data folder for gavel (default: the shipped)");
  c->footer(
      "Examples:\n  ringsched catalogs\n  ringsched catalogs --show paper > my-catalog.json   # edit, then name "
      "it in a config's workload.catalog\n  ringsched catalogs --show pollux-goodput\n"
      "Format: docs/config.md (catalogs).");
  return {c, [o] {
            const auto dir = [&o](const DataCatalogInfo& d) {
              const std::string given = d.dir_key == "gavel_dir"    ? o->gavel_dir
                                        : d.dir_key == "pollux_dir" ? o->pollux_dir
                                                                    : std::string();  // shockwave: the shipped
              return given.empty() ? d.default_dir() : given;
            };
            if (!o->show.empty()) {
              if (const DataCatalogInfo* d = find_data_catalog(o->show)) {
                print_class_table(d->build(dir(*d)));
                return 0;
              }
              const std::string text = builtin_catalog_text(o->show);
              if (text.empty()) {
                throw InputError("--show: unknown built-in catalog '" + o->show +
                                 "' (valid: " + join_names(all_names()) + ")");
              }
              std::cout << text;
              return 0;
            }
            for (const auto& n : builtin_catalog_names())
              std::cout << n << ": " << load_catalog(n).description << "\n";
            for (const auto& d : data_catalogs())
              std::cout << d.name << ": " << d.build(dir(d)).description << "\n";
            return 0;
          }};
}

}  // namespace ringsched::cli
