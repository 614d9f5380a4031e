// sim/cli/catalogs.cpp — `ringsched catalogs`: the built-in catalogs, or one of them as JSON.
#include <iostream>
#include <memory>

#include "sim/cli/commands.h"
#include "workloads/catalog.h"
#include "workloads/json_reader.h"

namespace ringsched::cli {

Command add_catalogs_command(CLI::App& app) {
  auto show = std::make_shared<std::string>();
  auto* c = app.add_subcommand("catalogs", "List the built-in catalogs, or print one with --show NAME");
  c->add_option("--show", *show, "Print this built-in catalog's JSON");
  return {c, [show] {
            if (!show->empty()) {
              const std::string text = builtin_catalog_text(*show);
              if (text.empty()) {
                throw InputError("--show: unknown built-in catalog '" + *show +
                                 "' (valid: " + join_names(builtin_catalog_names()) + ")");
              }
              std::cout << text;
              return 0;
            }
            for (const auto& n : builtin_catalog_names())
              std::cout << n << ": " << load_catalog(n).description << "\n";
            return 0;
          }};
}

}  // namespace ringsched::cli
