#include "dist/communicator.hpp"

#include <cstddef>
#include <cstring>

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

}  // namespace

Communicator::Communicator(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

std::pair<std::uint64_t, std::uint64_t> Communicator::shard(std::uint64_t n) const {
  const std::uint64_t r = static_cast<std::uint64_t>(rank_), p = static_cast<std::uint64_t>(size_);
  const std::uint64_t base = n / p, extra = n % p;
  const std::uint64_t begin = r * base + std::min(r, extra);
  return {begin, begin + base + (r < extra ? 1 : 0)};
}

void Communicator::allreduce_sum(std::span<std::int64_t> values) const {
  if (values.empty()) return;
  bytes_sent_ += values.size_bytes();
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_SUM, comm_);
}

std::int64_t Communicator::allreduce_sum(std::int64_t value) const {
  allreduce_sum(std::span<std::int64_t>(&value, 1));
  return value;
}

double Communicator::allreduce_max(double value) const {
  bytes_sent_ += sizeof value;
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return value;
}

void Communicator::allreduce_min_loc(std::span<MinLoc> values) const {
  if (values.empty()) return;
  static MPI_Op op = [] {
    MPI_Op o;
    MPI_Op_create(&min_loc_op, /*commute=*/1, &o);
    return o;
  }();
  bytes_sent_ += values.size_bytes();
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), min_loc_type(), op, comm_);
}

std::int64_t Communicator::exclusive_scan_sum(std::int64_t value) const {
  std::int64_t result = 0;
  MPI_Exscan(&value, &result, 1, MPI_INT64_T, MPI_SUM, comm_);
  return rank_ == 0 ? 0 : result;
}

void Communicator::broadcast(std::span<float> values, int root) const {
  if (rank_ == root) bytes_sent_ += values.size_bytes();
  if (!values.empty()) MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_FLOAT, root, comm_);
}

void Communicator::broadcast(std::span<double> values, int root) const {
  if (rank_ == root) bytes_sent_ += values.size_bytes();
  if (!values.empty()) MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, root, comm_);
}

void Communicator::broadcast(std::span<std::int64_t> values, int root) const {
  if (rank_ == root) bytes_sent_ += values.size_bytes();
  if (!values.empty()) MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_INT64_T, root, comm_);
}

void Communicator::broadcast(std::span<unsigned char> bytes, int root) const {
  if (rank_ == root) bytes_sent_ += bytes.size();
  if (!bytes.empty()) MPI_Bcast(bytes.data(), static_cast<int>(bytes.size()), MPI_UNSIGNED_CHAR, root, comm_);
}

void Communicator::broadcast(std::string& value, int root) const {
  std::int64_t n = static_cast<std::int64_t>(value.size());
  broadcast(std::span<std::int64_t>(&n, 1), root);
  value.resize(static_cast<std::size_t>(n));
  if (rank_ == root) bytes_sent_ += value.size();
  if (n > 0) MPI_Bcast(value.data(), static_cast<int>(n), MPI_CHAR, root, comm_);
}

std::vector<std::string> Communicator::allgather_strings(const std::vector<std::string>& local) const {
  // Pack as [count][len...][bytes...] per rank, gather sizes, then the payloads.
  std::vector<std::int64_t> header{static_cast<std::int64_t>(local.size())};
  std::string bytes;
  for (const auto& s : local) {
    header.push_back(static_cast<std::int64_t>(s.size()));
    bytes += s;
  }
  std::string packed(reinterpret_cast<const char*>(header.data()), header.size() * sizeof(std::int64_t));
  packed += bytes;
  int my_size = static_cast<int>(packed.size());
  std::vector<int> sizes(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
  MPI_Allgather(&my_size, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm_);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += sizes[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  bytes_sent_ += packed.size();
  MPI_Allgatherv(packed.data(), my_size, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, comm_);
  std::vector<std::string> out;
  for (int r = 0; r < size_; ++r) {
    const char* p = all.data() + offsets[static_cast<std::size_t>(r)];
    std::int64_t count;
    std::memcpy(&count, p, sizeof count);
    std::vector<std::int64_t> lens(static_cast<std::size_t>(count));
    if (count > 0) std::memcpy(lens.data(), p + sizeof count, lens.size() * sizeof(std::int64_t));
    const char* q = p + sizeof count + lens.size() * sizeof(std::int64_t);
    for (auto len : lens) {
      out.emplace_back(q, static_cast<std::size_t>(len));
      q += len;
    }
  }
  return out;
}

namespace {

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

}  // namespace

std::vector<float> Communicator::allgather(std::span<const float> local) const {
  bytes_sent_ += local.size_bytes();
  return allgather_values(local, MPI_FLOAT, comm_, size_);
}

std::vector<double> Communicator::allgather(std::span<const double> local) const {
  bytes_sent_ += local.size_bytes();
  return allgather_values(local, MPI_DOUBLE, comm_, size_);
}

std::vector<std::int64_t> Communicator::allgather(std::span<const std::int64_t> local) const {
  bytes_sent_ += local.size_bytes();
  return allgather_values(local, MPI_INT64_T, comm_, size_);
}

void Communicator::barrier() const { MPI_Barrier(comm_); }

}  // namespace secpe
