#include "comms/mpi_communicator.hpp"

#include <cstddef>
#include <limits>
#include <stdexcept>

namespace secpe {
namespace {

// `len` counts whole MinLoc elements: the operation is defined on the derived datatype below, so
// MPI never splits an element when it segments a large buffer (with MPI_BYTE it may cut one).
void min_loc_op(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const MinLoc*>(in);
  auto* b = static_cast<MinLoc*>(inout);
  for (int i = 0; i < *len; ++i) {
    if (a[i].value < b[i].value || (a[i].value == b[i].value && a[i].index < b[i].index)) b[i] = a[i];
  }
}

// {double value; int64 index} as one MPI datatype, with MinLoc's extent (padding included).
MPI_Datatype min_loc_type() {
  static const MPI_Datatype type = [] {
    const int lengths[2] = {1, 1};
    const MPI_Aint displacements[2] = {offsetof(MinLoc, value), offsetof(MinLoc, index)};
    const MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT64_T};
    MPI_Datatype packed, resized;
    MPI_Type_create_struct(2, lengths, displacements, types, &packed);
    MPI_Type_create_resized(packed, 0, sizeof(MinLoc), &resized);
    MPI_Type_commit(&resized);
    MPI_Type_free(&packed);
    return resized;
  }();
  return type;
}

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int size_of(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

// Every rank's values, concatenated in rank order, on every rank.
template <class T>
std::vector<T> allgather_values(std::span<const T> local, MPI_Datatype type, MPI_Comm comm, int ranks) {
  int my_count = static_cast<int>(local.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  MPI_Allgather(&my_count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += counts[static_cast<std::size_t>(r)];
  }
  std::vector<T> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(local.data(), my_count, type, all.data(), counts.data(), offsets.data(), type, comm);
  return all;
}

template <class T>
void broadcast_values(std::span<T> values, MPI_Datatype type, int root, MPI_Comm comm) {
  if (!values.empty()) MPI_Bcast(values.data(), static_cast<int>(values.size()), type, root, comm);
}

}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm comm) : Communicator(rank_of(comm), size_of(comm)), comm_(comm) {}

void MpiCommunicator::allreduce_sum(std::span<std::int64_t> values) const {
  if (values.empty()) return;
  count_allreduce(values.size_bytes());
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_SUM, comm_);
}

std::vector<unsigned char> MpiCommunicator::alltoallv(std::span<const unsigned char> send, std::span<const std::size_t> send_counts,
                                                      std::vector<std::size_t>& recv_counts) const {
  const auto ranks = static_cast<std::size_t>(size());
  if (send_counts.size() != ranks) throw std::invalid_argument("alltoallv: one block per rank");
  // MPI counts and displacements are ints: each side's total must stay below 2^31 bytes.
  const auto layout = [](std::span<const std::uint64_t> counts, std::vector<int>& c, std::vector<int>& at) {
    std::uint64_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      at[r] = static_cast<int>(total);
      total += counts[r];
      if (total > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw std::length_error("alltoallv: more than 2^31 - 1 bytes to or from one rank");
      c[r] = static_cast<int>(counts[r]);
    }
    return static_cast<std::size_t>(total);
  };
  // This rank's blocks are checked before anything is sent, so that a bad call fails alone.
  std::vector<std::uint64_t> out(send_counts.begin(), send_counts.end()), in(ranks);
  std::vector<int> sc(ranks), sd(ranks), rc(ranks), rd(ranks);
  if (layout(out, sc, sd) != send.size()) throw std::invalid_argument("alltoallv: the blocks must add up to the bytes");
  MPI_Alltoall(out.data(), 1, MPI_UINT64_T, in.data(), 1, MPI_UINT64_T, comm_);
  std::vector<unsigned char> received(layout(in, rc, rd));
  count_sent(send.size() - send_counts[static_cast<std::size_t>(rank())]);
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_BYTE, received.data(), rc.data(), rd.data(), MPI_BYTE, comm_);
  recv_counts.assign(in.begin(), in.end());
  return received;
}

double MpiCommunicator::allreduce_max(double value) const {
  count_allreduce(sizeof value);
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return value;
}

void MpiCommunicator::allreduce_min_loc(std::span<MinLoc> values) const {
  if (values.empty()) return;
  static MPI_Op op = [] {
    MPI_Op o;
    MPI_Op_create(&min_loc_op, /*commute=*/1, &o);
    return o;
  }();
  count_allreduce(values.size_bytes());
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), min_loc_type(), op, comm_);
}

std::int64_t MpiCommunicator::exclusive_scan_sum(std::int64_t value) const {
  std::int64_t result = 0;
  MPI_Exscan(&value, &result, 1, MPI_INT64_T, MPI_SUM, comm_);
  return rank() == 0 ? 0 : result;
}

void MpiCommunicator::broadcast(std::span<float> values, int root) const {
  count_broadcast(values.size_bytes(), root);
  broadcast_values(values, MPI_FLOAT, root, comm_);
}

void MpiCommunicator::broadcast(std::span<double> values, int root) const {
  count_broadcast(values.size_bytes(), root);
  broadcast_values(values, MPI_DOUBLE, root, comm_);
}

void MpiCommunicator::broadcast(std::span<std::int64_t> values, int root) const {
  count_broadcast(values.size_bytes(), root);
  broadcast_values(values, MPI_INT64_T, root, comm_);
}

void MpiCommunicator::broadcast(std::span<unsigned char> bytes, int root) const {
  count_broadcast(bytes.size(), root);
  broadcast_values(bytes, MPI_UNSIGNED_CHAR, root, comm_);
}

std::vector<float> MpiCommunicator::allgather(std::span<const float> local) const {
  count_allgather(local.size_bytes());
  return allgather_values(local, MPI_FLOAT, comm_, size());
}

std::vector<double> MpiCommunicator::allgather(std::span<const double> local) const {
  count_allgather(local.size_bytes());
  return allgather_values(local, MPI_DOUBLE, comm_, size());
}

std::vector<std::int64_t> MpiCommunicator::allgather(std::span<const std::int64_t> local) const {
  count_allgather(local.size_bytes());
  return allgather_values(local, MPI_INT64_T, comm_, size());
}

std::vector<unsigned char> MpiCommunicator::allgather(std::span<const unsigned char> local) const {
  count_allgather(local.size_bytes());
  return allgather_values(local, MPI_UNSIGNED_CHAR, comm_, size());
}

void MpiCommunicator::barrier() const { MPI_Barrier(comm_); }

}  // namespace secpe
