#pragma once
// The communicator handle passed to every distributed algorithm (cuVS kmeans_mg style): the
// algorithms see only these collectives, never MPI itself. Implementations: MpiCommunicator
// (comms/mpi_communicator.hpp, the ranks of an MPI communicator) and LocalCommunicator (one
// process, no MPI: the privacy audit and single-process benchmarks); an NCCL one can join them.
//
// Reproducibility rule: every reduction here is exact (integers, fixed point, min/max with an
// index tie-break), so results do not depend on the number of ranks or the reduction order.
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
  virtual ~Communicator() = default;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }

  // The contiguous shard [begin, end) of n records that this rank owns (by record, not label).
  std::pair<std::uint64_t, std::uint64_t> shard(std::uint64_t n) const { return shard_of(n, rank_); }
  // The shard of n items that rank r owns (ranks own consecutive, near-equal ranges in rank order).
  std::pair<std::uint64_t, std::uint64_t> shard_of(std::uint64_t n, int r) const;

  virtual void allreduce_sum(std::span<std::int64_t> values) const = 0;
  std::int64_t allreduce_sum(std::int64_t value) const;
  virtual double allreduce_max(double value) const = 0;
  virtual void allreduce_min_loc(std::span<MinLoc> values) const = 0;
  // Sum of `value` over the ranks before this one (0 on rank 0).
  virtual std::int64_t exclusive_scan_sum(std::int64_t value) const = 0;

  virtual void broadcast(std::span<float> values, int root = 0) const = 0;
  virtual void broadcast(std::span<double> values, int root = 0) const = 0;
  virtual void broadcast(std::span<std::int64_t> values, int root = 0) const = 0;
  virtual void broadcast(std::span<unsigned char> bytes, int root = 0) const = 0;
  void broadcast(std::string& value, int root = 0) const;

  // Every rank's values, concatenated in rank order, on every rank (e.g. row-major embedding shards).
  virtual std::vector<float> allgather(std::span<const float> local) const = 0;
  virtual std::vector<double> allgather(std::span<const double> local) const = 0;
  virtual std::vector<std::int64_t> allgather(std::span<const std::int64_t> local) const = 0;
  virtual std::vector<unsigned char> allgather(std::span<const unsigned char> local) const = 0;
  // A personalised exchange: `send` is cut into consecutive blocks of send_counts[r] bytes, block r
  // going to rank r (this rank's own block stays here). Returns the blocks every rank sent this
  // one, concatenated in rank order, with their sizes in `recv_counts`.
  virtual std::vector<unsigned char> alltoallv(std::span<const unsigned char> send, std::span<const std::size_t> send_counts,
                                               std::vector<std::size_t>& recv_counts) const = 0;
  // Every rank's strings, concatenated in rank order, on every rank.
  std::vector<std::string> allgather_strings(const std::vector<std::string>& local) const;
  // The distinct host names of the ranks, in rank order of first appearance (a collective): where
  // a run or benchmark ran, for its provenance.
  std::vector<std::string> hosts() const;

  virtual void barrier() const = 0;

  // Bytes this rank has put on the wire through collectives so far (communication-volume
  // metrics), as the textbook algorithms send them: a ring allreduce of n bytes sends
  // 2 n (R-1)/R, an allgather times this rank's part, a broadcast n from the root, an
  // all-to-all the bytes that leave this rank. Nothing on one rank.
  std::uint64_t bytes_sent() const { return bytes_sent_; }

 protected:
  Communicator(int rank, int size) : rank_(rank), size_(size) {}
  void count_allreduce(std::uint64_t bytes) const { bytes_sent_ += 2 * ring_share(bytes); }
  void count_allgather(std::uint64_t local_bytes) const { bytes_sent_ += local_bytes * static_cast<std::uint64_t>(size_ - 1); }
  void count_broadcast(std::uint64_t bytes, int root) const { bytes_sent_ += size_ > 1 && rank_ == root ? bytes : 0; }
  void count_sent(std::uint64_t bytes) const { bytes_sent_ += bytes; }  // sent as is (an exchange's, or a delegate's)

 private:
  int rank_;
  int size_;
  mutable std::uint64_t bytes_sent_ = 0;
  std::uint64_t ring_share(std::uint64_t bytes) const {
    return bytes * static_cast<std::uint64_t>(size_ - 1) / static_cast<std::uint64_t>(size_);
  }
};

// One process: rank 0 of 1. Every collective leaves the values as they are (a reduction over one
// rank), and nothing is sent.
class LocalCommunicator final : public Communicator {
 public:
  LocalCommunicator() : Communicator(0, 1) {}
  using Communicator::allreduce_sum;
  using Communicator::broadcast;
  void allreduce_sum(std::span<std::int64_t>) const override {}
  double allreduce_max(double value) const override { return value; }
  void allreduce_min_loc(std::span<MinLoc>) const override {}
  std::int64_t exclusive_scan_sum(std::int64_t) const override { return 0; }
  void broadcast(std::span<float>, int) const override {}
  void broadcast(std::span<double>, int) const override {}
  void broadcast(std::span<std::int64_t>, int) const override {}
  void broadcast(std::span<unsigned char>, int) const override {}
  std::vector<float> allgather(std::span<const float> local) const override { return {local.begin(), local.end()}; }
  std::vector<double> allgather(std::span<const double> local) const override { return {local.begin(), local.end()}; }
  std::vector<std::int64_t> allgather(std::span<const std::int64_t> local) const override { return {local.begin(), local.end()}; }
  std::vector<unsigned char> allgather(std::span<const unsigned char> local) const override { return {local.begin(), local.end()}; }
  std::vector<unsigned char> alltoallv(std::span<const unsigned char> send, std::span<const std::size_t> send_counts,
                                       std::vector<std::size_t>& recv_counts) const override;
  void barrier() const override {}
};

}  // namespace secpe
