// test/workloads/test_data_provenance.cpp — every third-party data folder shipped under workloads/data/ carries its
// licence and an ORIGIN.md (where it came from, which commit, what was changed), and the Lingjun files are the
// upstream bytes (their git blob ids, workloads/data/lingjun/ORIGIN.md).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

const fs::path kProvenanceData = fs::path(RINGSCHED_TEST_DIR).parent_path() / "workloads" / "data";

std::string provenance_read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("workloads::data: every shipped data folder has a LICENSE and an ORIGIN.md", "[data]") {
  int folders = 0;
  for (const auto& e : fs::directory_iterator(kProvenanceData)) {
    if (!e.is_directory()) continue;
    ++folders;
    INFO(e.path().string());
    CHECK(fs::is_regular_file(e.path() / "LICENSE"));
    CHECK(fs::is_regular_file(e.path() / "ORIGIN.md"));
  }
  CHECK(folders >= 4);  // gavel, goodput-types, lingjun, pollux
}

TEST_CASE("workloads::data: the Lingjun topology and licence are shipped unchanged", "[data]") {
  // Sizes and first line of alibaba/alibaba-lingjun-dataset-2023 at 2ad3fd1e (data/topo.csv: 64,002 bytes, 848 lines;
  // LICENSE: Apache-2.0, 11,357 bytes).
  const std::string topo = provenance_read(kProvenanceData / "lingjun" / "topo.csv");
  CHECK(topo.size() == 64002);
  CHECK(topo.rfind("ip,DSW,PSW,ASW\n", 0) == 0);
  const std::string license = provenance_read(kProvenanceData / "lingjun" / "LICENSE");
  CHECK(license.size() == 11357);
  CHECK(license.find("Apache License") != std::string::npos);
  const std::string origin = provenance_read(kProvenanceData / "lingjun" / "ORIGIN.md");
  CHECK(origin.find("2ad3fd1e2fd16222cc018827fb84f3a3ff220bb9") != std::string::npos);
}
