#pragma once
// The ranks of an MPI communicator as a Communicator. Only the CLI's MPI session, tests and
// benchmarks construct one; algorithms take `const Communicator&`.
#include <mpi.h>

#include "comms/communicator.hpp"

namespace secpe {

class MpiCommunicator final : public Communicator {
 public:
  explicit MpiCommunicator(MPI_Comm comm = MPI_COMM_WORLD);

  using Communicator::allreduce_sum;
  void allreduce_sum(std::span<std::int64_t> values) const override;
  double allreduce_max(double value) const override;
  void allreduce_min_loc(std::span<MinLoc> values) const override;
  std::int64_t exclusive_scan_sum(std::int64_t value) const override;

  void broadcast(std::span<float> values, int root = 0) const override;
  void broadcast(std::span<double> values, int root = 0) const override;
  void broadcast(std::span<std::int64_t> values, int root = 0) const override;
  void broadcast(std::span<unsigned char> bytes, int root = 0) const override;
  using Communicator::broadcast;

  std::vector<float> allgather(std::span<const float> local) const override;
  std::vector<double> allgather(std::span<const double> local) const override;
  std::vector<std::int64_t> allgather(std::span<const std::int64_t> local) const override;
  std::vector<unsigned char> allgather(std::span<const unsigned char> local) const override;

  std::vector<unsigned char> alltoallv(std::span<const unsigned char> send, std::span<const std::size_t> send_counts,
                                       std::vector<std::size_t>& recv_counts) const override;
  void barrier() const override;

 private:
  MPI_Comm comm_;
};

}  // namespace secpe
