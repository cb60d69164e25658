#include "evolve/shard.hpp"

#include "core/error.hpp"

namespace secpe {

Shard::Shard(const Communicator& comm, const std::filesystem::path& data) : reader(data) {
  Shard& s = *this;
  const DatasetInfo& info = reader.info();
  if (info.embedding_dim == 0) throw InputError(data.string() + ": the dataset has no embeddings");
  std::tie(s.begin, s.end) = comm.shard(info.num_records);
  s.labels = s.reader.label_ids(s.begin, s.end);
  s.secrets = s.reader.secrets(s.begin, s.end);
  s.embeddings = s.reader.embeddings(s.begin, s.end);
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
