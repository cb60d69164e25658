// Stage "evolve" of a run (evolve/evolution.hpp): every pending label set up by the method and
// evolved, sharded by record or by label, with progress saved and stop requests heeded.
#include "evolve/evolution.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/stop_signal.hpp"
#include "evolve/label_evolution.hpp"
#include "evolve/label_windows.hpp"

namespace secpe {
namespace {

// Stops the run at an iteration or label boundary when a rank was asked to (core/stop_signal.hpp);
// every rank calls it at the same point and they agree, so all of them stop there. `where` says
// where rank 0 stopped; `finished` counts the labels in the checkpoint (as `secpe inspect` does).
void stop_if_asked(const Communicator& comm, const std::string& where, std::size_t finished, std::size_t labels,
                   const std::filesystem::path& state_dir) {
  const int signal = static_cast<int>(comm.allreduce_max(static_cast<double>(stop_signal())));
  if (signal != 0) {
    throw Interrupted("asked to stop by " + signal_name(signal) + "; stopped " + where + " with " + std::to_string(finished) +
                      " of " + std::to_string(labels) + " labels finished; progress kept in the private state folder " +
                      state_dir.string() + ": run the same command again with --resume to continue from there");
  }
}

// Stage "set up a label": the method sets it up (SecPE clusters its public rows and builds its
// secret clustering; Aug-PE gathers its voters), continuing from its saved progress if any.
LabelInFlight start_label(const EvolutionContext& run, std::size_t label, std::size_t n_syn, const LabelProgress* resumed) {
  const Shard& shard = run.shard;
  LabelInFlight flight{.label = label, .label_name = shard.info().labels.display(label), .synthetic = n_syn, .voting = nullptr,
                       .outcome = {}, .done = 0};
  if (resumed) {
    flight.outcome = resumed->outcome;
    flight.done = resumed->iterations_done;
  }
  LabelOutcome& outcome = flight.outcome;
  outcome.report = {{"id", label}, {"name", flight.label_name}, {"synthetic", n_syn}};
  if (!resumed) outcome.releases = nlohmann::ordered_json::array();
  flight.voting = run.method.set_up_label({.comm = shard.label_comm(), .options = run.options, .shard = shard, .kernel = *run.models.kernel,
                                           .run_key = run.run_key, .ledger = run.ledger, .label = label},
                                          outcome.report);
  return flight;
}

// Where a run stopped after a round, for the message of a stop request.
std::string where_of(const std::vector<LabelProgress>& round, int iterations) {
  if (round.size() == 1) {
    const LabelProgress& p = round.front();
    const std::string label = "label " + std::to_string(p.label);
    return p.iterations_done < iterations ? "after iteration " + std::to_string(p.iterations_done - 1) + " of " + label : "after " + label;
  }
  std::string labels;
  for (const LabelProgress& p : round) labels += (labels.empty() ? "" : ", ") + std::to_string(p.label);
  return "after a round of labels " + labels;
}

// The stage's state: the labels left, those in progress, the checkpoint (evolution.hpp).
class Evolution {
 public:
  Evolution(const Communicator& comm, const EvolutionContext& run, const std::vector<std::size_t>& synthetic_per_label,
            std::map<std::size_t, LabelProgress> in_progress, Checkpoint& checkpoint)
      : comm_(comm),
        run_(run),
        synthetic_(synthetic_per_label),
        in_progress_(std::move(in_progress)),
        checkpoint_(checkpoint),
        pending_(pending_labels(run.shard, synthetic_per_label, checkpoint)),
        progress_("evolve", pending_.size()) {}

  void run() {
    if (run_.shard.by == ShardBy::kRecord) {
      by_record();
    } else {
      by_label();
    }
    progress_.finish();
  }

 private:
  // The labels left to evolve; those without a synthetic share go into the checkpoint as skipped.
  static std::vector<std::size_t> pending_labels(const Shard& shard, const std::vector<std::size_t>& synthetic_per_label,
                                                 Checkpoint& checkpoint) {
    std::vector<std::size_t> pending;
    for (std::size_t label = 0; label < shard.num_labels(); ++label) {
      if (checkpoint.labels.count(label)) continue;
      if (synthetic_per_label[label] > 0) {
        pending.push_back(label);
        continue;
      }
      LabelOutcome skipped;
      skipped.report = {{"id", label}, {"name", shard.info().labels.display(label)}, {"synthetic", 0},
                        {"skipped", "no public records: nothing to learn from and no synthetic share"}};
      skipped.releases = nlohmann::ordered_json::array();
      checkpoint.labels[label] = std::move(skipped);
    }
    return pending;
  }

  // All ranks evolve each window of labels together, one window after another.
  void by_record() {
    const auto all = windows(pending_);
    announce(all);
    for (const auto& window : all) {
      std::vector<LabelInFlight> flight = set_up(window);
      while (!flight.empty()) take(evolve_round_of(flight));
    }
  }

  // Each rank evolves its own labels while the others evolve theirs, and after every round the
  // ranks exchange their labels' state: one exchange per round of a rank's windows, so a rank
  // with fewer rounds left takes part in the others' remaining ones.
  void by_label() {
    std::vector<std::vector<std::size_t>> labels_of(static_cast<std::size_t>(comm_.size()));
    for (const std::size_t label : pending_) labels_of[static_cast<std::size_t>(run_.shard.label_rank[label])].push_back(label);
    // A generator that makes its texts itself: windows paced across the ranks, by each label's
    // public records (its k-means and its N_syn). Behind a server: windows that fill it.
    const bool paced = run_.models.generator->in_flight() <= 1;
    std::vector<std::vector<std::vector<std::size_t>>> windows_of;
    if (paced) {
      windows_of = paced_windows(labels_of, run_.shard.public_counts);
    } else {
      for (const auto& labels : labels_of) windows_of.push_back(windows(labels));
    }
    std::size_t all_rounds = 0;
    for (const auto& rank_windows : windows_of) {
      std::size_t rounds = 0;
      for (const auto& window : rank_windows) {
        int most = 0;
        for (const std::size_t label : window) most = std::max(most, run_.options.iterations - iterations_done(label));
        rounds += static_cast<std::size_t>(most);
      }
      all_rounds = std::max(all_rounds, rounds);
    }
    const auto& mine = windows_of[static_cast<std::size_t>(comm_.rank())];
    if (!paced) announce(mine);  // rank 0's
    std::size_t taken = 0;
    for (const auto& window : mine) {
      std::vector<LabelInFlight> flight = set_up(window);
      for (; !flight.empty(); ++taken) exchange(evolve_round_of(flight));
    }
    for (; taken < all_rounds; ++taken) exchange({});
  }

  // `labels` cut into windows that evolve together (evolve/label_windows.hpp), by their requests
  // per round on each rank of their communicator.
  std::vector<std::vector<std::size_t>> windows(const std::vector<std::size_t>& labels) const {
    const auto ranks = static_cast<std::size_t>(run_.shard.label_comm().size());
    std::vector<std::size_t> requests;
    for (const std::size_t label : labels) {
      requests.push_back((synthetic_[label] * static_cast<std::size_t>(run_.options.variations) + ranks - 1) / ranks);
    }
    return label_windows(labels, requests, run_.models.generator->in_flight());
  }

  // Says, when labels evolve side by side, how they are grouped.
  void announce(const std::vector<std::vector<std::size_t>>& windows) const {
    std::size_t labels = 0, widest = 0;
    for (const auto& window : windows) {
      labels += window.size();
      widest = std::max(widest, window.size());
    }
    if (widest < 2) return;
    log_info("evolve: " + std::to_string(labels) + " labels side by side in " + std::to_string(windows.size()) + " windows of up to " +
             std::to_string(widest) + " labels, each round's texts requested together (up to " +
             std::to_string(run_.models.generator->in_flight()) + " in flight per rank)");
  }

  std::vector<LabelInFlight> set_up(const std::vector<std::size_t>& window) const {
    std::vector<LabelInFlight> flight;
    for (const std::size_t label : window) {
      const auto from = in_progress_.find(label);
      flight.push_back(start_label(run_, label, synthetic_[label], from == in_progress_.end() ? nullptr : &from->second));
    }
    return flight;
  }

  // One round of `flight`, and the state of its labels after it: those finished leave `flight`,
  // their set-up timings added to their first metrics line.
  std::vector<LabelProgress> evolve_round_of(std::vector<LabelInFlight>& flight) const {
    const RunOptions& options = run_.options;
    evolve_round({.comm = run_.shard.label_comm(),
                  .generator = *run_.models.generator,
                  .embedder = *run_.models.embedder,
                  .seed = options.seed,
                  .iterations = options.iterations,
                  .variations = options.variations,
                  .ledger = run_.ledger,
                  .distinct = {.n = 5, .share = options.near_duplicate_share},
                  .keep_history = !options.eval_real.empty()},
                 flight);
    std::vector<LabelProgress> round;
    std::vector<LabelInFlight> left;
    for (LabelInFlight& label : flight) {
      if (label.done < options.iterations) {
        round.push_back({label.label, label.done, label.outcome});
        left.push_back(std::move(label));
        continue;
      }
      if (!label.outcome.metrics.empty()) label.outcome.metrics.front().update(label.voting->setup_timings());
      round.push_back({label.label, label.done, std::move(label.outcome)});
    }
    flight = std::move(left);
    return round;
  }

  // Every rank's round (or none) to every rank, each then taken as its own.
  void exchange(const std::vector<LabelProgress>& mine) {
    nlohmann::ordered_json states = nlohmann::ordered_json::array();
    for (const LabelProgress& p : mine) states.push_back(progress_json(p));
    const auto gathered = comm_.allgather_strings({mine.empty() ? std::string() : states.dump()});
    std::vector<LabelProgress> all;
    for (std::size_t r = 0; r < gathered.size(); ++r) {
      if (gathered[r].empty()) continue;
      for (const auto& state : nlohmann::ordered_json::parse(gathered[r])) {
        all.push_back(progress_from_json(state, "rank " + std::to_string(r) + "'s label state", run_.shard.num_labels(), run_.options.iterations));
      }
    }
    take(std::move(all), mine.empty() ? "while the other ranks evolve their labels" : where_of(mine, run_.options.iterations));
  }

  void take(std::vector<LabelProgress> round) {
    const std::string where = where_of(round, run_.options.iterations);
    take(std::move(round), where);
  }

  // The labels' state after a round: in progress, it is kept for progress.json; finished, its
  // outcome goes into the checkpoint and its releases into the ledger.
  void take(std::vector<LabelProgress> round, const std::string& where) {
    std::string finished;
    for (LabelProgress& p : round) {
      if (p.iterations_done < run_.options.iterations) {
        in_progress_[p.label] = std::move(p);
        continue;
      }
      in_progress_.erase(p.label);
      run_.ledger.restore(p.label, p.outcome.releases);
      checkpoint_.labels[p.label] = std::move(p.outcome);
      finished += (finished.empty() ? "" : ", ") + name(p.label);
      ++finished_;
    }
    save(!finished.empty());
    if (!finished.empty()) progress_.step(finished_, finished);
    stop_here(where);
  }

  void stop_here(const std::string& where) const {
    stop_if_asked(comm_, where, checkpoint_.labels.size(), run_.shard.num_labels(), run_.options.state_dir);
  }

  int iterations_done(std::size_t label) const {
    const auto it = in_progress_.find(label);
    return it == in_progress_.end() ? 0 : it->second.iterations_done;
  }

  void save(bool finished_some) const {
    if (!comm_.is_root()) return;
    const auto& state_dir = run_.options.state_dir;
    if (finished_some) save_checkpoint(checkpoint_path(state_dir), checkpoint_, run_.secrets.noise_key);
    if (in_progress_.empty()) {
      std::filesystem::remove(progress_path(state_dir));
    } else {
      save_progress(progress_path(state_dir), checkpoint_.fingerprint, in_progress_, run_.secrets.noise_key);
    }
  }

  std::string name(std::size_t label) const {
    const LabelSet& labels = run_.shard.info().labels;
    if (labels.columns.empty()) return "the corpus (unlabelled)";
    return "label " + std::to_string(label) + " (" + labels.display(label) + ")";
  }

  const Communicator& comm_;
  const EvolutionContext& run_;
  const std::vector<std::size_t>& synthetic_;
  std::map<std::size_t, LabelProgress> in_progress_;
  Checkpoint& checkpoint_;
  std::vector<std::size_t> pending_;
  Progress progress_;
  std::size_t finished_ = 0;
};

}  // namespace

void evolve_labels(const Communicator& comm, const EvolutionContext& run, const std::vector<std::size_t>& synthetic_per_label,
                   std::map<std::size_t, LabelProgress> in_progress, Checkpoint& checkpoint) {
  Evolution(comm, run, synthetic_per_label, std::move(in_progress), checkpoint).run();
}

}  // namespace secpe
