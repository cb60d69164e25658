#pragma once
// Which of a run's timings may be published. A wall-clock time is a statistic of the work it
// measures: the time of work that touches private records, or whose size follows their number,
// tells roughly how many private records there are (per label, per iteration), which no
// published file may say unnoised. So a timing is published (metrics.jsonl, run.json) only when
// the work it measures is public: its inputs are public records, released (noisy) values and
// public settings. Every other timing goes to the private state folder's timings.json (0600),
// where `secpe inspect OUT.state` shows it. The list is an allowlist: a new timing is private
// until it is added here with its reason (docs/privacy.md, "Timings", says each one).
#include <array>
#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

namespace secpe {

// Public work, and why it is public:
//   generate_seconds  the generator on the synthetic texts (N_syn, the variations: public settings)
//   embed_seconds     the embedder on those candidates
//   vote_seconds      SecPE and the control: votes of released (noisy) centres, or random votes,
//                     for the candidates. Aug-PE's voters are private records: none published
//   select_seconds    selection on the released votes
//   kmeans_seconds    the public records' k-means, when one rank holds all of the label's public
//                     records (sharded by record over several ranks, each rank's share of them
//                     follows where the private records sit: kmeans_sharded_seconds, private)
//   eval_seconds      --eval-real: the synthetic populations scored against the user's real set
inline constexpr std::array<std::string_view, 6> kPublicTimings = {"generate_seconds", "embed_seconds", "vote_seconds",
                                                                   "select_seconds",   "kmeans_seconds", "eval_seconds"};

bool is_timing(std::string_view key);         // a key ending in "_seconds"
bool is_public_timing(std::string_view key);  // in kPublicTimings

// Moves every timing of `line` (a metrics.jsonl line or run.json's summary) that is not public into
// the returned object, in `line`'s order; null when there is none.
nlohmann::ordered_json take_private_timings(nlohmann::ordered_json& line);

// Adds every timing of `line` (a metrics.jsonl line, before take_private_timings) into `sums`, key
// by key: the evolution's time per step (generate, embed, release, vote, select, k-means), summed
// over labels and iterations, for timings.json.
void add_timings(nlohmann::ordered_json& sums, const nlohmann::ordered_json& line);

// timings.json in a run's private state folder.
std::filesystem::path timings_path(const std::filesystem::path& state_dir);

// Rank 0: writes `timings` ({"run": {stage: seconds}, "iterations": [{label, iteration, private
// timings}]}) as timings.json, 0600, with a note that it is private.
void write_run_timings(const std::filesystem::path& state_dir, nlohmann::ordered_json timings);

}  // namespace secpe
