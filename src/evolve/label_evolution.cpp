#include "evolve/label_evolution.hpp"

#include "core/timer.hpp"
#include "evolve/candidates.hpp"
#include "evolve/methods/method.hpp"
#include "evolve/selection.hpp"

namespace secpe {
void evolve_label(const LabelEvolution& job, LabelOutcome& outcome) {
  const std::size_t initial = job.synthetic * static_cast<std::size_t>(job.variations);
  for (int t = job.first_iteration; t < job.iterations; ++t) {
    const Timer iter_start;
    const CandidatePool pool = make_candidate_pool(job.comm, job.generator, job.embedder, job.seed, job.label, t,
                                                   outcome.synthetic, job.variations, initial);
    if (t == 0) outcome.initial.assign(pool.texts.begin(), pool.texts.begin() + static_cast<std::ptrdiff_t>(std::min(job.synthetic, pool.texts.size())));
    // The method's votes, with its two clocks (evolve/run_timings.hpp): the release is private
    // work (it samples and sums private records, or Aug-PE's private voters vote); voting against
    // released values is public work.
    const VoteRound round = job.voting.vote(pool, t);
    const VoteResult& votes = round.votes;
    const Timer select_timer;
    const auto selected = select_distinct(rank_order(votes.votes, votes.tie_key), pool.texts, job.synthetic, job.distinct);
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
    outcome.metrics.push_back({{"label", job.label},
                               {"label_name", job.label_name},
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
    line["iteration_seconds"] = iter_start.seconds();
    outcome.synthetic = std::move(parents);
    outcome.releases = job.ledger.entries(job.label);
    if (job.after_iteration) job.after_iteration(outcome, t + 1);
  }
}

}  // namespace secpe
