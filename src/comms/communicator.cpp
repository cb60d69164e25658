#include "comms/communicator.hpp"
#include "comms/nccl_communicator.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace secpe {

std::pair<std::uint64_t, std::uint64_t> Communicator::shard_of(std::uint64_t n, int rank) const {
  const std::uint64_t r = static_cast<std::uint64_t>(rank), p = static_cast<std::uint64_t>(size_);
  const std::uint64_t base = n / p, extra = n % p;
  const std::uint64_t begin = r * base + std::min(r, extra);
  return {begin, begin + base + (r < extra ? 1 : 0)};
}

std::int64_t Communicator::allreduce_sum(std::int64_t value) const {
  allreduce_sum(std::span<std::int64_t>(&value, 1));
  return value;
}

std::vector<std::string> Communicator::hosts() const {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  std::vector<std::string> distinct;
  for (const auto& h : allgather_strings({host}))
    if (std::find(distinct.begin(), distinct.end(), h) == distinct.end()) distinct.push_back(h);
  return distinct;
}

void Communicator::broadcast(std::string& value, int root) const {
  std::int64_t n = static_cast<std::int64_t>(value.size());
  broadcast(std::span<std::int64_t>(&n, 1), root);
  value.resize(static_cast<std::size_t>(n));
  broadcast(std::span<unsigned char>(reinterpret_cast<unsigned char*>(value.data()), value.size()), root);
}

std::vector<std::string> Communicator::allgather_strings(const std::vector<std::string>& local) const {
  // Each rank packs [count][lengths...][bytes...]; the packs are gathered in rank order.
  std::vector<std::int64_t> header{static_cast<std::int64_t>(local.size())};
  std::size_t payload = 0;
  for (const auto& s : local) {
    header.push_back(static_cast<std::int64_t>(s.size()));
    payload += s.size();
  }
  // Sized once and filled by copies (growing it by insert made GCC 12 warn falsely of a bad free).
  const std::size_t header_bytes = header.size() * sizeof(std::int64_t);
  std::vector<unsigned char> packed(header_bytes + payload);
  std::memcpy(packed.data(), header.data(), header_bytes);
  std::size_t at = header_bytes;
  for (const auto& s : local) {
    std::memcpy(packed.data() + at, s.data(), s.size());
    at += s.size();
  }
  const std::vector<unsigned char> all = allgather(std::span<const unsigned char>(packed));
  std::vector<std::string> out;
  for (std::size_t at = 0; at < all.size();) {
    std::int64_t count;
    std::memcpy(&count, all.data() + at, sizeof count);
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(count));
    if (count > 0) std::memcpy(lengths.data(), all.data() + at + sizeof count, lengths.size() * sizeof(std::int64_t));
    at += sizeof count + lengths.size() * sizeof(std::int64_t);
    for (const auto length : lengths) {
      out.emplace_back(reinterpret_cast<const char*>(all.data() + at), static_cast<std::size_t>(length));
      at += static_cast<std::size_t>(length);
    }
  }
  return out;
}

#ifndef SECPE_HAVE_NCCL
std::unique_ptr<Communicator> make_nccl_communicator(const Communicator&, int) { return nullptr; }  // MPI reduces instead
#endif

std::vector<unsigned char> LocalCommunicator::alltoallv(std::span<const unsigned char> send, std::span<const std::size_t> send_counts,
                                                        std::vector<std::size_t>& recv_counts) const {
  if (send_counts.size() != 1 || send_counts[0] != send.size()) throw std::invalid_argument("alltoallv: one block per rank, adding up to the bytes");
  recv_counts.assign(send_counts.begin(), send_counts.end());
  return {send.begin(), send.end()};
}

}  // namespace secpe
