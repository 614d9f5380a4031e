// test/workloads/test_helios_data.cpp — the Helios artifact's VC tables shipped in workloads/data/helios/ are the
// upstream bytes (sizes, first lines and sums given in workloads/data/helios/ORIGIN.md) under the artifact's MIT
// licence.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

const std::filesystem::path kHeliosData =
    std::filesystem::path(RINGSCHED_TEST_DIR).parent_path() / "workloads" / "data" / "helios";

std::string helios_data_read(const std::string& name) {
  std::ifstream in(kHeliosData / name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("workloads::data: the Helios artifact's VC tables and licence are shipped unchanged", "[data]") {
  const std::string vcs = helios_data_read("philly_vc.csv");
  CHECK(vcs.size() == 120);
  CHECK(vcs.rfind("vc,node num\n6214e9,64\n", 0) == 0);
  // 11 VCs of 64 + 32 + 16 + 64 + 64 + 16 + 32 + 16 + 8 + 8 + 32 = 352 nodes.
  int nodes = 0;
  int rows = 0;
  std::istringstream lines(vcs.substr(vcs.find('\n') + 1));
  for (std::string line; std::getline(lines, line);) {
    nodes += std::stoi(line.substr(line.find(',') + 1));
    ++rows;
  }
  CHECK(rows == 11);
  CHECK(nodes == 352);
  const std::string earth = helios_data_read("Earth_gpu_number.csv");
  CHECK(earth.size() == 15230);
  CHECK(earth.rfind("date,vchbv,vc4om,", 0) == 0);
  CHECK(earth.find("\n2020-09-28,") != std::string::npos);
  const std::string license = helios_data_read("LICENSE");
  CHECK(license.size() == 1073);
  CHECK(license.rfind("MIT License", 0) == 0);
  CHECK(helios_data_read("ORIGIN.md").find("bdaae109c21f8038a2331e6a23a582d5ae78ab5b") != std::string::npos);
}
