// workloads/speed_registry.h — speed model kinds registered by name ("eq5", "allreduce", ...) from the file of
// their factory, each built from the `speed` object of a catalog class. An unknown kind fails with the list of valid
// kinds.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/step_time_model.h"
#include "workloads/io/json_reader.h"

namespace ringsched {

struct JobClass;

// Builds a model from `spec` (the class's "speed" object, already known to be an object with a "kind"). The class
// is passed filled in except for its speed, so a factory may read model_size_mparams and batch settings; base_dir
// resolves relative file names (the folder of the catalog or config that holds the class).
using SpeedFactory =
    std::function<models::StepTimeModelPtr(const JsonReader& spec, const JobClass& cls, const std::string& base_dir)>;

// A kind registers itself in the file of its factory, with one object at namespace scope (unique name):
//   const SpeedKindRegistrar eq5_speed_registrar{"eq5", make_eq5};
// Two registrars of one kind make every look-up throw std::logic_error naming it.
struct SpeedKindRegistrar {
  SpeedKindRegistrar(const std::string& kind, SpeedFactory factory);
};
// Registers (or replaces) a kind at run time.
void register_speed_kind(const std::string& kind, SpeedFactory factory);
[[nodiscard]] std::vector<std::string> speed_kind_names();
[[nodiscard]] models::StepTimeModelPtr make_speed_model(const JsonReader& spec, const JobClass& cls,
                                                        const std::string& base_dir = "");

}  // namespace ringsched
