// Stage "evolve" of a run (evolve/evolution.hpp): every pending label set up by the method and
// evolved, sharded by record or by label, with progress saved and stop requests heeded.
#include "evolve/evolution.hpp"

#include <algorithm>
#include <functional>
#include <optional>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/stop_signal.hpp"
#include "evolve/label_evolution.hpp"

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

// Stage "evolve a label": the method sets the label up (SecPE clusters its public rows and builds
// its secret clustering; Aug-PE gathers its voters), then T iterations of protected evolution.
// `after_iteration(outcome so far, iterations done)` runs after every iteration but the last.
LabelOutcome evolve_one_label(const EvolutionContext& run, std::size_t label, std::size_t n_syn, const LabelProgress* resumed,
                              const std::function<void(const LabelOutcome&, int)>& after_iteration) {
  const RunOptions& options = run.options;
  const Shard& shard = run.shard;
  const Communicator& comm = shard.label_comm();  // all ranks (by record), or this one alone (by label)
  LabelOutcome outcome;
  if (resumed) outcome = resumed->outcome;
  outcome.report = {{"id", label}, {"name", shard.info().labels.display(label)}, {"synthetic", n_syn}};
  outcome.releases = resumed ? resumed->outcome.releases : nlohmann::ordered_json::array();
  const std::unique_ptr<LabelVoting> voting = run.method.set_up_label(
      {.comm = comm, .options = options, .shard = shard, .kernel = *run.models.kernel, .run_key = run.run_key, .ledger = run.ledger,
       .label = label},
      outcome.report);
  evolve_label({.comm = comm,
                .generator = *run.models.generator,
                .embedder = *run.models.embedder,
                .seed = options.seed,
                .label = label,
                .label_name = shard.info().labels.display(label),
                .synthetic = n_syn,
                .iterations = options.iterations,
                .variations = options.variations,
                .voting = *voting,
                .ledger = run.ledger,
                .distinct = {.n = 5, .share = options.near_duplicate_share},
                .keep_history = !options.eval_real.empty(),
                .first_iteration = resumed ? resumed->iterations_done : 0,
                .after_iteration = [&](const LabelOutcome& so_far, int done) {
                  if (done < options.iterations) after_iteration(so_far, done);  // the label's end: the caller takes it
                }},
               outcome);
  if (!outcome.metrics.empty()) outcome.metrics.front().update(voting->setup_timings());
  return outcome;
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

  // All ranks evolve each label together, one label after another.
  void by_record() {
    for (const std::size_t label : pending_) {
      LabelOutcome outcome = evolve(label, [&](const LabelOutcome& so_far, int done) {
        in_progress_[label] = {label, done, so_far};
        save(false);
        stop_here("after iteration " + std::to_string(done - 1) + " of label " + std::to_string(label));
      });
      in_progress_.erase(label);
      checkpoint_.labels[label] = std::move(outcome);
      save(true);
      progress_.step(++finished_, name(label));
      stop_here("after label " + std::to_string(label));
    }
  }

  // Each rank evolves its own labels while the others evolve theirs, and after every iteration the
  // ranks exchange their labels' state: one exchange per iteration of a rank's labels, so a rank
  // with fewer iterations left takes part in the others' remaining ones.
  void by_label() {
    const int iterations = run_.options.iterations;
    std::vector<std::size_t> steps(static_cast<std::size_t>(comm_.size()), 0);
    for (const std::size_t label : pending_) {
      const auto from = in_progress_.find(label);
      const int done = from == in_progress_.end() ? 0 : from->second.iterations_done;
      steps[static_cast<std::size_t>(run_.shard.label_rank[label])] += static_cast<std::size_t>(iterations - done);
    }
    const std::size_t all_steps = *std::max_element(steps.begin(), steps.end());
    std::size_t taken = 0;
    for (const std::size_t label : pending_) {
      if (!run_.shard.evolves(label)) continue;
      LabelOutcome outcome = evolve(label, [&](const LabelOutcome& so_far, int done) {
        const LabelProgress now{label, done, so_far};
        exchange(&now, "after iteration " + std::to_string(done - 1) + " of label " + std::to_string(label));
        ++taken;
      });
      const LabelProgress finished{label, iterations, std::move(outcome)};
      exchange(&finished, "after label " + std::to_string(label));
      ++taken;
    }
    for (; taken < all_steps; ++taken) exchange(nullptr, "while the other ranks evolve their labels");
  }

  // Every rank's label state (or none) to every rank: in progress, it is kept for progress.json;
  // finished, its outcome goes into the checkpoint and its releases into the ledger.
  void exchange(const LabelProgress* mine, const std::string& where) {
    const auto states = comm_.allgather_strings({mine ? progress_json(*mine).dump() : std::string()});
    std::string finished;
    for (std::size_t r = 0; r < states.size(); ++r) {
      if (states[r].empty()) continue;
      LabelProgress p = progress_from_json(nlohmann::ordered_json::parse(states[r]), "rank " + std::to_string(r) + "'s label state",
                                           run_.shard.num_labels(), run_.options.iterations);
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

  LabelOutcome evolve(std::size_t label, const std::function<void(const LabelOutcome&, int)>& after_iteration) {
    const std::optional<LabelProgress> from = resumed(label);  // a copy: after_iteration replaces the entry
    return evolve_one_label(run_, label, synthetic_[label], from ? &*from : nullptr, after_iteration);
  }

  std::optional<LabelProgress> resumed(std::size_t label) const {
    const auto it = in_progress_.find(label);
    return it == in_progress_.end() ? std::nullopt : std::optional<LabelProgress>(it->second);
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
