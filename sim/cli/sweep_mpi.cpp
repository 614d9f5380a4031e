// sim/cli/sweep_mpi.cpp — SweepComm over MPI_COMM_WORLD: broadcast from rank 0 and gather of variable-length texts.
#include "sim/cli/sweep_mpi.h"

#include <mpi.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace ringsched {
namespace {

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

class MpiComm final : public SweepComm {
 public:
  MpiComm() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      check(MPI_Init(nullptr, nullptr), "MPI_Init");
      owns_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiComm() override {
    if (owns_) MPI_Finalize();
  }
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }

  std::string broadcast(const std::string& text) override {
    long long n = rank_ == 0 ? static_cast<long long>(text.size()) : 0;
    check(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
    std::string out = rank_ == 0 ? text : std::string(static_cast<std::size_t>(n), '\0');
    if (n > 0) check(MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
    return out;
  }

  void abort_all(int code) override { MPI_Abort(MPI_COMM_WORLD, code); }

  std::vector<std::string> gather(const std::string& text) override {
    int n = static_cast<int>(text.size());
    std::vector<int> sizes(static_cast<std::size_t>(size_), 0);
    check(MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
    std::vector<int> offsets(static_cast<std::size_t>(size_), 0);
    long long total = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      offsets[i] = static_cast<int>(total);
      total += sizes[i];
    }
    if (rank_ == 0 && total > 2'000'000'000LL) throw std::runtime_error("MPI: gathered results exceed 2 GB");
    std::string all(rank_ == 0 ? static_cast<std::size_t>(total) : 0, '\0');
    check(MPI_Gatherv(text.data(), n, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD),
          "MPI_Gatherv");
    std::vector<std::string> out;
    if (rank_ == 0) {
      for (std::size_t i = 0; i < sizes.size(); ++i)
        out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(sizes[i])));
    }
    return out;
  }

 private:
  int rank_ = 0;
  int size_ = 1;
  bool owns_ = false;
};

}  // namespace

std::unique_ptr<SweepComm> make_mpi_comm_if_launched() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr && std::getenv("PMI_SIZE") == nullptr &&
      std::getenv("PMIX_RANK") == nullptr) {
    return nullptr;
  }
  return std::make_unique<MpiComm>();
}

}  // namespace ringsched
