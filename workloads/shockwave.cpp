// workloads/shockwave.cpp — Shockwave's dynamic-job rules (batch size per epoch under Accordion and GNS, epoch
// durations) and the `shockwave` catalog of its TACC throughputs. Each rule names its source in Shockwave's
// scheduler/utils.py (uw-mad-dash/shockwave 8a44f4a); docs/shockwave.md.
#include "workloads/shockwave.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "workloads/data_catalogs.h"
#include "workloads/gavel.h"

namespace ringsched {
namespace {

// utils.py model_dataset_mapping and dataset_len.
struct ShockwaveDataset {
  const char* model;
  int samples;
};
constexpr ShockwaveDataset kShockwaveDatasets[] = {
    {"ResNet-18", 50000}, {"ResNet-50", 100000}, {"Transformer", 10000}, {"LM", 59675}, {"Recommendation", 117907},
    {"A3C", 4},           {"CycleGAN", 6287}};

// get_gns_bs_pattern: the largest batch of each model (bs_limit).
int gns_batch_limit(const std::string& model) {
  if (model == "ResNet-18") return 256;
  if (model == "ResNet-50" || model == "Transformer") return 128;
  if (model == "LM") return 80;
  if (model == "Recommendation") return 8192;
  return 0;
}

// One stage of a GNS case: epochs [first, end) run at the initial batch x multiplier (end -1 = to the last epoch).
struct GnsStage {
  int first;
  int end;
  int multiplier;
};
struct GnsCase {
  const char* model;
  int batch;
  int scale_factor;
  int after;  // the case applies when the job has more epochs than this
  std::vector<GnsStage> stages;
};
constexpr int kGnsToEnd = -1;

// get_gns_bs_pattern's cases, in its order (one per model, initial batch and scale factor).
const std::vector<GnsCase>& gns_cases() {
  static const std::vector<GnsCase> cases = {
      {"ResNet-18", 16, 1, 31, {{31, 41, 2}, {41, 51, 4}, {51, 71, 8}, {71, kGnsToEnd, 16}}},
      {"ResNet-18", 32, 1, 21, {{21, 31, 2}, {31, 51, 4}, {51, kGnsToEnd, 8}}},
      {"ResNet-18", 64, 1, 11, {{11, 31, 2}, {31, kGnsToEnd, 4}}},
      {"ResNet-18", 128, 1, 11, {{11, kGnsToEnd, 2}}},
      {"ResNet-18", 16, 2, 21, {{21, 31, 2}, {31, 91, 4}, {91, 111, 8}, {111, kGnsToEnd, 16}}},
      {"ResNet-18", 32, 2, 11, {{11, 21, 2}, {21, 41, 4}, {41, kGnsToEnd, 8}}},
      {"ResNet-18", 64, 2, 21, {{21, 41, 2}, {41, kGnsToEnd, 4}}},
      {"ResNet-18", 128, 2, 41, {{41, kGnsToEnd, 2}}},
      {"ResNet-18", 16, 4, 11, {{11, 21, 2}, {21, 81, 4}, {81, 91, 8}, {91, kGnsToEnd, 16}}},
      {"ResNet-18", 32, 4, 21, {{21, 31, 2}, {31, 61, 4}, {61, kGnsToEnd, 8}}},
      {"ResNet-18", 64, 4, 11, {{11, 61, 2}, {61, kGnsToEnd, 4}}},
      {"ResNet-18", 128, 4, 11, {{11, kGnsToEnd, 2}}},
      {"ResNet-50", 64, 1, 101, {{101, kGnsToEnd, 2}}},
      {"ResNet-50", 32, 2, 101, {{101, 111, 2}, {111, kGnsToEnd, 4}}},
      {"ResNet-50", 64, 2, 81, {{81, kGnsToEnd, 2}}},
      {"ResNet-50", 32, 4, 131, {{131, 221, 2}, {221, kGnsToEnd, 4}}},
      {"ResNet-50", 64, 4, 191, {{191, kGnsToEnd, 2}}},
      {"LM", 5, 1, 31, {{31, 41, 2}, {41, 61, 4}, {61, 71, 8}, {71, kGnsToEnd, 16}}},
      {"LM", 10, 1, 11, {{11, 21, 2}, {21, 41, 4}, {41, kGnsToEnd, 8}}},
      {"LM", 20, 1, 11, {{11, 41, 2}, {41, kGnsToEnd, 4}}},
      {"LM", 40, 1, 11, {{11, kGnsToEnd, 2}}},
      {"LM", 5, 2, 31, {{31, 51, 2}, {51, 61, 4}, {61, 71, 8}, {71, kGnsToEnd, 16}}},
      {"LM", 10, 2, 11, {{11, 31, 2}, {31, 41, 4}, {41, kGnsToEnd, 8}}},
      {"LM", 20, 2, 31, {{31, 41, 2}, {41, kGnsToEnd, 4}}},
      {"LM", 40, 2, 11, {{11, kGnsToEnd, 2}}},
      {"LM", 5, 4, 11, {{11, 31, 2}, {31, 71, 4}, {71, 91, 8}, {91, kGnsToEnd, 16}}},
      {"LM", 10, 4, 11, {{11, 31, 2}, {31, 61, 4}, {61, kGnsToEnd, 8}}},
      {"LM", 20, 4, 11, {{11, 61, 2}, {61, kGnsToEnd, 4}}},
      {"LM", 40, 4, 61, {{61, kGnsToEnd, 2}}},
      {"Recommendation", 512, 1, 21, {{21, 41, 2}, {41, 71, 4}, {71, 91, 8}, {91, kGnsToEnd, 16}}},
      {"Recommendation", 1024, 1, 21, {{21, 51, 2}, {51, 91, 4}, {91, kGnsToEnd, 8}}},
      {"Recommendation", 2048, 1, 21, {{21, 41, 2}, {41, kGnsToEnd, 4}}},
      {"Recommendation", 4096, 1, 41, {{41, kGnsToEnd, 2}}},
  };
  return cases;
}

// get_gns_bs_pattern. Its loops differ at the last epoch: the first stage sets an epoch and then stops after the
// last, the later ones stop before setting the last, so the last epoch keeps the first stage's batch (or the
// initial one when the first stage ended earlier).
std::vector<int> gns_batches(const std::string& model, int batch, int epochs, int scale_factor) {
  std::vector<int> out(static_cast<std::size_t>(epochs), batch);
  if (model == "Transformer" || model == "CycleGAN" || model == "A3C") return out;
  const int limit = gns_batch_limit(model);
  if (limit == 0) throw std::invalid_argument("GNS has no batch limit for model '" + model + "'");
  for (const GnsCase& c : gns_cases()) {
    if (model != c.model || batch != c.batch || scale_factor != c.scale_factor || epochs <= c.after) continue;
    for (std::size_t k = 0; k < c.stages.size(); ++k) {
      const GnsStage& s = c.stages[k];
      const int end = s.end == kGnsToEnd ? epochs : std::min(s.end, epochs);
      const int stop = k == 0 ? end : std::min(end, epochs - 1);
      for (int e = s.first; e < stop; ++e)
        out[static_cast<std::size_t>(e)] = batch * s.multiplier;
    }
    break;
  }
  for (int& b : out)
    b = std::min(b, limit);
  return out;
}

// get_accordion_bs_pattern: whether epoch e is in the model's critical regime (initial batch `batch`).
bool accordion_critical(const std::string& model, int batch, int e) {
  if (model == "ResNet-18") {
    const int head = batch == 256 ? 20 : 10;
    return e < head || (e >= 150 && e < 160) || (e >= 250 && e < 260);
  }
  if (model == "ResNet-50") return e < 600 && e % 30 < 10;
  if (model == "LM") return e < 10;
  if (model == "Recommendation") {
    const int head = batch <= 1024 ? 30 : batch == 2048 ? 40 : 10;
    return e < head || (e >= 60 && e < 70) || (e >= 80 && e < 90);
  }
  return true;
}

std::vector<int> accordion_batches(const std::string& model, int batch, int epochs) {
  std::vector<int> out(static_cast<std::size_t>(epochs), batch);
  int largest = 0;
  bool listed = false;  // the initial batches its regimes list (another leaves `regime` unset: a NameError there)
  if (model == "ResNet-18") {
    largest = 256;
    listed = batch == 16 || batch == 32 || batch == 64 || batch == 128 || batch == 256;
  } else if (model == "ResNet-50") {
    largest = 128;
    listed = batch == 16 || batch == 32 || batch == 64 || batch == 128;
  } else if (model == "LM") {
    largest = 80;
    listed = true;
  } else if (model == "Recommendation") {
    largest = 8192;
    listed = batch == 512 || batch == 1024 || batch == 2048 || batch == 4096 || batch == 8192;
  } else {
    return out;  // Transformer, CycleGAN, A3C and others: no adaptation
  }
  if (!listed) {
    throw std::invalid_argument("Accordion has no critical regime for " + model + " at initial batch " +
                                std::to_string(batch));
  }
  for (int e = 0; e < epochs; ++e)
    if (!accordion_critical(model, batch, e) && e > static_cast<double>(epochs) * 0.3)
      out[static_cast<std::size_t>(e)] = largest;
  return out;
}

}  // namespace

bool parse_shockwave_mode(const std::string& text, ShockwaveMode& mode) {
  if (text == "static") {
    mode = ShockwaveMode::kStatic;
  } else if (text == "accordion") {
    mode = ShockwaveMode::kAccordion;
  } else if (text == "gns") {
    mode = ShockwaveMode::kGns;
  } else {
    return false;
  }
  return true;
}

std::string to_string(ShockwaveMode mode) {
  switch (mode) {
    case ShockwaveMode::kAccordion:
      return "accordion";
    case ShockwaveMode::kGns:
      return "gns";
    case ShockwaveMode::kStatic:
      break;
  }
  return "static";
}

bool split_shockwave_job_type(const std::string& job_type, std::string& model, int& batch) {
  const std::size_t space = job_type.find(' ');
  const std::string tag = " (batch size ";
  const std::size_t open = job_type.rfind(tag);
  if (space == std::string::npos || open == std::string::npos || open != space || job_type.back() != ')') return false;
  const std::string digits = job_type.substr(open + tag.size(), job_type.size() - 1 - open - tag.size());
  if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  model = job_type.substr(0, space);
  batch = std::stoi(digits);
  return batch >= 1;
}

int shockwave_dataset_size(const std::string& model) {
  for (const ShockwaveDataset& d : kShockwaveDatasets)
    if (model == d.model) return d.samples;
  return 0;
}

int shockwave_epochs(double steps, int dataset, int batch) {
  const double per_epoch = std::ceil(static_cast<double>(dataset) / batch);
  return static_cast<int>(std::ceil(steps / per_epoch));
}

std::vector<int> shockwave_batches(ShockwaveMode mode, const std::string& model, int batch, int epochs,
                                   int scale_factor) {
  switch (mode) {
    case ShockwaveMode::kAccordion:
      return accordion_batches(model, batch, epochs);
    case ShockwaveMode::kGns:
      return gns_batches(model, batch, epochs, scale_factor);
    case ShockwaveMode::kStatic:
      break;
  }
  return std::vector<int>(static_cast<std::size_t>(epochs), batch);
}

EpochSchedule shockwave_schedule(const std::vector<int>& batches, int epochs, double steps, int dataset,
                                 const BatchThroughput& tput) {
  if (epochs < 1 || batches.size() < static_cast<std::size_t>(epochs))
    throw std::invalid_argument("the batch schedule is shorter than the job's epochs");
  const auto at = [&](int b) {
    const double t = tput(b);
    if (!(t > 0.0 && std::isfinite(t))) throw std::invalid_argument("no throughput at batch " + std::to_string(b));
    return t;
  };
  const auto epoch_s = [&](int b) { return std::ceil(static_cast<double>(dataset) / b) / at(b); };
  const int b0 = batches[0];
  const double per_epoch = std::ceil(static_cast<double>(dataset) / b0);
  const double d0 = epoch_s(b0);
  EpochSchedule s;
  s.epochs = epochs;
  for (int e = 0; e < epochs; ++e) {
    const int b = batches[static_cast<std::size_t>(e)];
    s.isolated_s += static_cast<double>(dataset) / b / at(b);
    const double end = e + 1 == epochs ? steps : per_epoch * (e + 1);
    if (!s.batch.empty() && s.batch.back() == b) {
      s.phase_end.back() = end;
      continue;
    }
    s.phase_end.push_back(end);
    s.factor.push_back(d0 / epoch_s(b));
    s.batch.push_back(b);
  }
  return s;
}

std::string default_shockwave_dir() {
  if (const char* env = std::getenv("RINGSCHED_SHOCKWAVE_DIR"); env != nullptr && *env != '\0') return env;
  return std::string(RINGSCHED_SOURCE_DIR) + "/workloads/data/shockwave";
}

Catalog shockwave_catalog(const std::string& dir) {
  return catalog_of_throughputs(read_gavel_throughputs(dir + "/tacc_throughputs.json", true), "shockwave",
                                "Shockwave's (NSDI'23) TACC throughputs: its job types per GPU type and scale factor",
                                "Shockwave");
}

// The catalog built from Shockwave's data folder (workloads/data_catalogs.h).
const DataCatalogRegistrar shockwave_data_catalog{
    {"shockwave", "shockwave_dir", default_shockwave_dir, shockwave_catalog}, 35};

}  // namespace ringsched
