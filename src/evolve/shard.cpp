#include "evolve/shard.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/error.hpp"

namespace secpe {

ShardBy resolve_shard_by(ShardBy by, int ranks, const std::vector<std::int64_t>& records_per_label) {
  if (by != ShardBy::kAuto) return by;
  if (ranks < 2 || records_per_label.size() < static_cast<std::size_t>(ranks)) return ShardBy::kRecord;
  const std::int64_t total = std::accumulate(records_per_label.begin(), records_per_label.end(), std::int64_t{0});
  const std::int64_t largest = *std::max_element(records_per_label.begin(), records_per_label.end());
  return largest * ranks <= 2 * total ? ShardBy::kLabel : ShardBy::kRecord;
}

ShardBy shard_by_for(ShardBy by, bool augpe) { return augpe && by == ShardBy::kAuto ? ShardBy::kRecord : by; }

std::vector<int> assign_labels(const std::vector<std::int64_t>& records_per_label, int ranks) {
  const std::size_t n = records_per_label.size(), r = static_cast<std::size_t>(std::max(ranks, 1));
  // The first n % r ranks may take ceil(n / r) labels, the others floor(n / r).
  std::vector<std::size_t> room(r, n / r);
  for (std::size_t k = 0; k < n % r; ++k) ++room[k];
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return records_per_label[a] > records_per_label[b]; });
  std::vector<std::int64_t> load(r, 0);
  std::vector<int> owner(n, 0);
  for (const std::size_t l : order) {
    std::size_t best = r;
    for (std::size_t k = 0; k < r; ++k)
      if (room[k] > 0 && (best == r || load[k] < load[best])) best = k;
    owner[l] = static_cast<int>(best);
    --room[best];
    load[best] += records_per_label[l];
  }
  return owner;
}

namespace {

// This rank's records when sharding by label: every record of the labels it evolves. Label ids
// and secret sets are small, and every rank reads them whole. The embeddings are read once in
// all: each rank reads its contiguous record range, a window at a time, and sends each row to the
// rank that evolves its label (one alltoallv per window, so a rank holds one window besides its
// own rows). The rows a rank gets from rank r are consecutive in its (ascending) record order, as
// r's range is contiguous and r sends them in order: each block lands with one copy.
void load_labels(Shard& s, const Communicator& comm, const std::vector<std::int32_t>& all, const std::vector<std::int64_t>& per_label) {
  const DatasetInfo& info = s.reader.info();
  const std::uint64_t n = info.num_records;
  const auto ranks = static_cast<std::size_t>(comm.size());
  const std::size_t row_bytes = static_cast<std::size_t>(info.embedding_dim) * sizeof(float);
  s.label_rank = assign_labels(per_label, comm.size());
  const auto rank_of = [&](std::uint64_t i) { return static_cast<std::size_t>(s.label_rank[static_cast<std::size_t>(all[i])]); };
  for (std::uint64_t i = 0; i < n; ++i) {
    if (rank_of(i) != static_cast<std::size_t>(comm.rank())) continue;
    s.ids.push_back(i);
    s.labels.push_back(all[i]);
  }
  const SecretMatrix every = s.reader.secrets(0, n);
  s.secrets = SecretMatrix{{0}, {}, info.num_secrets};
  for (const std::uint64_t id : s.ids) {
    const auto set = every.secrets_of(static_cast<std::size_t>(id));
    s.secrets.indices.insert(s.secrets.indices.end(), set.begin(), set.end());
    s.secrets.indptr.push_back(static_cast<std::int64_t>(s.secrets.indices.size()));
  }

  s.embeddings.resize(static_cast<Eigen::Index>(s.ids.size()), info.embedding_dim);
  std::vector<std::size_t> next_row(ranks);  // where the next row from rank r goes
  std::uint64_t longest = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto [b, e] = comm.shard_of(n, static_cast<int>(r));
    next_row[r] = static_cast<std::size_t>(std::lower_bound(s.ids.begin(), s.ids.end(), b) - s.ids.begin());
    longest = std::max(longest, e - b);
  }
  const auto [begin, end] = comm.shard(n);
  // 8192 rows of 768 floats: 25 MB, below glibc's largest mmap threshold, so the window's buffers
  // are reused from the heap rather than mapped (and faulted in) afresh for every window.
  constexpr std::uint64_t kWindow = 1 << 13;
  for (std::uint64_t w = 0; w < longest; w += kWindow) {
    const std::uint64_t b = std::min(end, begin + w), e = std::min(end, begin + w + kWindow);
    const MatrixF rows = b < e ? s.reader.embeddings(b, e) : MatrixF(0, info.embedding_dim);
    std::vector<std::size_t> counts(ranks, 0), at(ranks, 0);
    for (std::uint64_t i = b; i < e; ++i) counts[rank_of(i)] += row_bytes;
    for (std::size_t r = 1; r < ranks; ++r) at[r] = at[r - 1] + counts[r - 1];
    std::vector<unsigned char> send(static_cast<std::size_t>(e - b) * row_bytes);
    for (std::uint64_t i = b; i < e; ++i) {
      std::memcpy(send.data() + at[rank_of(i)], rows.row(static_cast<Eigen::Index>(i - b)).data(), row_bytes);
      at[rank_of(i)] += row_bytes;
    }
    std::vector<std::size_t> got_counts;
    const std::vector<unsigned char> got = comm.alltoallv(send, counts, got_counts);
    std::size_t from = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      if (got_counts[r] == 0) continue;
      std::memcpy(s.embeddings.row(static_cast<Eigen::Index>(next_row[r])).data(), got.data() + from, got_counts[r]);
      next_row[r] += got_counts[r] / row_bytes;
      from += got_counts[r];
    }
  }
}

}  // namespace

Shard::Shard(const Communicator& comm, const std::filesystem::path& data, ShardBy shard_by) : reader(data), by(shard_by), comm_(comm) {
  Shard& s = *this;
  const DatasetInfo& info = reader.info();
  if (info.embedding_dim == 0) throw InputError(data.string() + ": the dataset has no embeddings");
  if (by != ShardBy::kRecord) {
    const std::vector<std::int32_t> all = s.reader.label_ids(0, info.num_records);
    std::vector<std::int64_t> per_label(info.labels.size(), 0);
    for (const auto l : all) ++per_label[static_cast<std::size_t>(l)];
    by = resolve_shard_by(by, comm.size(), per_label);
    if (by == ShardBy::kLabel) load_labels(s, comm, all, per_label);
  }
  if (by == ShardBy::kRecord) {
    const auto [begin, end] = comm.shard(info.num_records);
    s.ids.resize(end - begin);
    std::iota(s.ids.begin(), s.ids.end(), begin);
    s.labels = s.reader.label_ids(begin, end);
    s.secrets = s.reader.secrets(begin, end);
    s.embeddings = s.reader.embeddings(begin, end);
  }
  const std::size_t n_labels = info.labels.size();
  s.public_rows.resize(n_labels);
  s.private_rows.resize(n_labels);
  for (std::size_t i = 0; i < s.labels.size(); ++i) {
    const auto l = static_cast<std::size_t>(s.labels[i]);
    (s.secrets.is_private(i) ? s.private_rows[l] : s.public_rows[l]).push_back(i);
  }
  s.public_counts.resize(n_labels);
  s.private_counts.resize(n_labels);
  for (std::size_t l = 0; l < n_labels; ++l) {
    s.public_counts[l] = static_cast<std::int64_t>(s.public_rows[l].size());
    s.private_counts[l] = static_cast<std::int64_t>(s.private_rows[l].size());
  }
  comm.allreduce_sum(s.public_counts);
  comm.allreduce_sum(s.private_counts);
}

}  // namespace secpe
