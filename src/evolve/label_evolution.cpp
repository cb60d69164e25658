#include "evolve/label_evolution.hpp"

#include "core/timer.hpp"
#include "evolve/candidates.hpp"
#include "evolve/methods/method.hpp"
#include "evolve/selection.hpp"

namespace secpe {
namespace {

// Iteration `label.done` of one label from its candidate pool: the method's votes, the selection,
// the metrics line; `made_seconds`: the pool's share of the round's generation and its embedding.
void evolve_iteration(const LabelEvolution& job, const CandidatePool& pool, double made_seconds, LabelInFlight& label) {
  const Timer iteration_timer;
  const int t = label.done;
  LabelOutcome& outcome = label.outcome;
  if (t == 0) outcome.initial.assign(pool.texts.begin(), pool.texts.begin() + static_cast<std::ptrdiff_t>(std::min(label.synthetic, pool.texts.size())));
  // The method's votes, with its two clocks (evolve/run_timings.hpp): the release is private
  // work (it samples and sums private records, or Aug-PE's private voters vote); voting against
  // released values is public work.
  const VoteRound round = label.voting->vote(pool, t);
  const VoteResult& votes = round.votes;
  const Timer select_timer;
  const auto selected = select_distinct(rank_order(votes.votes, votes.tie_key), pool.texts, label.synthetic, job.distinct);
  std::vector<std::string> parents;
  std::size_t voted = 0, selected_voted = 0;
  double vote_total = 0.0;
  for (double v : votes.votes) {
    voted += v > 0 ? 1 : 0;
    vote_total += v;
  }
  for (auto i : selected) {
    parents.push_back(pool.texts[i]);
    selected_voted += votes.votes[i] > 0 ? 1 : 0;
  }
  if (job.keep_history) outcome.history.push_back(parents);
  outcome.metrics.push_back({{"label", label.label},
                             {"label_name", label.label_name},
                             {"iteration", t},
                             {"candidates", pool.texts.size()},
                             {"selected", selected.size()},
                             {"released_vote_total", vote_total},
                             {"candidates_with_votes", voted},
                             {"selected_with_votes", selected_voted},
                             {"size_shrinkage_weight", round.shrinkage.size_weight},
                             {"centre_signal", round.shrinkage.centre_signal},
                             {"generate_seconds", pool.generate_seconds},
                             {"embed_seconds", pool.embed_seconds}});
  nlohmann::ordered_json& line = outcome.metrics.back();
  if (round.vote_seconds) line["vote_seconds"] = *round.vote_seconds;
  if (round.release_seconds) line["release_seconds"] = *round.release_seconds;
  line["select_seconds"] = select_timer.seconds();
  line["iteration_seconds"] = made_seconds + iteration_timer.seconds();
  outcome.synthetic = std::move(parents);
  outcome.releases = job.ledger.entries(label.label);
  ++label.done;
}

}  // namespace

void evolve_round(const LabelEvolution& job, std::vector<LabelInFlight>& flight) {
  std::vector<PoolRequest> requests;
  std::vector<LabelInFlight*> evolving;
  for (LabelInFlight& label : flight) {
    if (label.done >= job.iterations) continue;
    requests.push_back({.label = label.label, .iteration = label.done, .synthetic = label.synthetic, .parents = &label.outcome.synthetic});
    evolving.push_back(&label);
  }
  const std::vector<CandidatePool> pools = make_candidate_pools(job.comm, job.generator, job.embedder, job.seed, job.variations, requests);
  for (std::size_t i = 0; i < pools.size(); ++i) {
    evolve_iteration(job, pools[i], pools[i].generate_seconds + pools[i].embed_seconds, *evolving[i]);
  }
}

}  // namespace secpe
