#pragma once
// The "load shard" stage shared by `secpe run` and `secpe bench histogram`: this rank's records of
// a dataset (label ids, secret sets, embeddings, global record ids), each label's public and
// private rows among them, and the global public/private counts per label (exact reductions).
//
// Two ways to split the records over the ranks (--shard-by):
// - record: each rank holds a contiguous record range; every label is evolved by all ranks at
//   once, each label's collectives on the run's communicator.
// - label: each rank holds every record of its labels (assign_labels) and evolves them alone
//   (a one-rank communicator per label), so ranks work on different labels at the same time and
//   nothing per label is computed twice or exchanged. Pays when there are at least as many labels
//   as ranks and each label's iteration is short (Yelp: 50 labels, ~8 ms of release and votes,
//   of which a split by centre repeats the candidates' share on every rank). Each rank reads its
//   record range and sends every row to the rank that evolves its label.
// Either way every record is on exactly one rank, in ascending global id, so global reductions
// (the noise calibration, the counts) and every output are the same.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "core/matrix.hpp"
#include "comms/communicator.hpp"
#include "io/dataset.hpp"

namespace secpe {

enum class ShardBy { kAuto, kRecord, kLabel };
inline constexpr EnumNames<ShardBy, 3> kShardByNames{{{ShardBy::kAuto, "auto"}, {ShardBy::kRecord, "record"}, {ShardBy::kLabel, "label"}}};
inline ShardBy parse_shard_by(const std::string& name) { return parse_name(kShardByNames, name, "--shard-by"); }
inline std::string shard_by_name(ShardBy by) { return std::string(name_of(kShardByNames, by)); }
// kAuto resolved: by label when there are several ranks, at least as many labels as ranks, and no
// label holds more than twice a rank's even share of the records (else that label's rank would
// hold the most memory and do the most k-means and Aug-PE work alone while the others wait).
ShardBy resolve_shard_by(ShardBy by, int ranks, const std::vector<std::int64_t>& records_per_label);

// What a method asks for: `auto` means by record for Aug-PE, whose votes cost M_l x N per label and
// split well by record (by label, the largest labels would keep their ranks busy while the others
// wait: 12.2 s against 10.2 s at Yelp scale, 2 ranks); otherwise `by` as given.
ShardBy shard_by_for(ShardBy by, bool augpe);

// The rank that evolves each label, given each label's record count: every rank gets
// floor(L / R) or ceil(L / R) labels (the iteration's cost is nearly the same per label: K centres
// and N candidates each), and among those choices the records (memory, setup, Aug-PE votes) are
// balanced greedily, largest label first. Deterministic: ties go to the lower label and rank.
std::vector<int> assign_labels(const std::vector<std::int64_t>& records_per_label, int ranks);

struct Shard {
  // InputError when the dataset has no embeddings. kAuto is resolved with the dataset's label counts.
  Shard(const Communicator& comm, const std::filesystem::path& data, ShardBy by);

  DatasetReader reader;
  ShardBy by;                                          // resolved: record or label
  std::vector<int> label_rank;                         // [label]: the rank evolving it (by label); empty by record
  std::vector<std::uint64_t> ids;                      // per local row: its global record id (ascending)
  std::vector<std::int32_t> labels;                    // per local row
  SecretMatrix secrets;                                // per local row
  MatrixF embeddings;                                  // per local row
  std::vector<std::vector<std::size_t>> public_rows;   // [label]: local rows holding no secret
  std::vector<std::vector<std::size_t>> private_rows;  // [label]: local rows holding a secret
  std::vector<std::int64_t> public_counts;             // [label]: over all ranks
  std::vector<std::int64_t> private_counts;            // [label]: over all ranks

  const DatasetInfo& info() const { return reader.info(); }
  std::size_t num_labels() const { return reader.info().labels.size(); }
  // Whether this rank evolves `label`, and the communicator its per-label collectives run on.
  bool evolves(std::size_t label) const { return label_rank.empty() || label_rank[label] == comm_.rank(); }
  const Communicator& label_comm() const { return label_rank.empty() ? comm_ : static_cast<const Communicator&>(alone_); }

 private:
  const Communicator& comm_;
  LocalCommunicator alone_;
};

}  // namespace secpe
