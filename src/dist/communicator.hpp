#pragma once
// The communicator handle passed to every distributed algorithm (cuVS kmeans_mg style): the
// algorithms see only these collectives, never MPI itself.
//
// Reproducibility rule: every reduction here is exact (integers, fixed point, min/max with an
// index tie-break), so results do not depend on the number of ranks or the reduction order.
#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace secpe {

// A value and the global index it belongs to; reductions keep the smallest value, ties going
// to the lowest index, which makes the reduction order-independent.
struct MinLoc {
  double value;
  std::int64_t index;
};

class Communicator {
 public:
  explicit Communicator(MPI_Comm comm = MPI_COMM_WORLD);

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  MPI_Comm handle() const { return comm_; }

  // The contiguous shard [begin, end) of n records that this rank owns (by record, not label).
  std::pair<std::uint64_t, std::uint64_t> shard(std::uint64_t n) const;

  void allreduce_sum(std::span<std::int64_t> values) const;
  std::int64_t allreduce_sum(std::int64_t value) const;
  double allreduce_max(double value) const;
  void allreduce_min_loc(std::span<MinLoc> values) const;
  // Sum of `value` over the ranks before this one (0 on rank 0).
  std::int64_t exclusive_scan_sum(std::int64_t value) const;

  void broadcast(std::span<float> values, int root = 0) const;
  void broadcast(std::span<double> values, int root = 0) const;
  void broadcast(std::span<std::int64_t> values, int root = 0) const;
  void broadcast(std::span<unsigned char> bytes, int root = 0) const;
  void broadcast(std::string& value, int root = 0) const;

  // Every rank's strings, concatenated in rank order, on every rank.
  std::vector<std::string> allgather_strings(const std::vector<std::string>& local) const;
  // Every rank's floats, concatenated in rank order, on every rank (e.g. row-major embedding shards).
  std::vector<float> allgather(std::span<const float> local) const;
  std::vector<double> allgather(std::span<const double> local) const;
  std::vector<std::int64_t> allgather(std::span<const std::int64_t> local) const;
  // Number of bytes this rank sent through collectives so far (for communication-volume metrics).
  std::uint64_t bytes_sent() const { return bytes_sent_; }

  void barrier() const;

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  mutable std::uint64_t bytes_sent_ = 0;
};

}  // namespace secpe
