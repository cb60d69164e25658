#include "evolve/label_evolution.hpp"

#include "core/log.hpp"
#include "core/timer.hpp"
#include "evolve/candidates.hpp"
#include "evolve/release_estimate.hpp"
#include "evolve/release_keys.hpp"
#include "evolve/selection.hpp"
#include "evolve/votes.hpp"

namespace secpe {
void evolve_label(const LabelEvolution& job, LabelOutcome& outcome) {
  const std::size_t initial = job.synthetic * static_cast<std::size_t>(job.variations);
  // Aug-PE's voters stay where the kernel computes (a GPU's memory) for every iteration.
  const std::unique_ptr<KeptRows> voters = job.voters ? job.kernel.keep(*job.voters) : nullptr;
  for (int t = job.first_iteration; t < job.iterations; ++t) {
    const Timer iter_start;
    const CandidatePool pool = make_candidate_pool(job.comm, job.generator, job.embedder, job.seed, job.label, t,
                                                   outcome.synthetic, job.variations, initial);
    if (t == 0) outcome.initial.assign(pool.texts.begin(), pool.texts.begin() + static_cast<std::ptrdiff_t>(std::min(job.synthetic, pool.texts.size())));
    // Two clocks (evolve/run_timings.hpp): the release is private work (it samples and sums private
    // records, or Aug-PE's private voters vote); voting against released values is public work.
    Timer t0;
    double release_seconds = 0.0;
    VoteResult votes;
    ReleaseShrinkage shrinkage;
    if (job.clustering) {
      const auto k = std::to_string(job.clustering->clusters());
      job.ledger.charge(job.label, t, {{"released", {"noisy cluster sizes (" + k + ")",
                                                      "noisy cluster centres (" + k + " x " + std::to_string(pool.embeddings.cols()) + ")"}},
                                       {"sigma", job.sigma}});
      const NoisyClusters noisy = job.clustering->release(job.noise_key, job.label, t, job.sigma);
      release_seconds = t0.seconds();
      t0.restart();
      const NoisyClusters estimate = shrink_release(job.comm, noisy, job.clustering->public_centres(), job.clustering->public_sizes(),
                                                    job.sigma, job.clip_radius, &shrinkage);
      votes = secpe_votes(job.comm, estimate, pool.embeddings, job.kernel, job.metric, job.votes_per_centre);
    } else if (!job.voters) {  // the no-private-data control: nothing private is used or released
      votes = random_votes(pool.texts.size(), job.seed, job.label, t);
    } else {
      job.ledger.charge(job.label, t, {{"released", {"noisy vote histogram (" + std::to_string(pool.texts.size()) + " candidates)"}},
                                       {"sigma", job.sigma}});
      // The histogram's noise is indexed by candidate: its key binds this pool (release_keys.hpp).
      votes = augpe_votes(job.comm, *voters, pool.embeddings, job.kernel, job.metric, job.sigma,
                          job.augpe_threshold, candidates_key(job.noise_key, t, pool.texts, pool.embeddings), job.label, t);
      release_seconds = t0.seconds();  // every private voter's vote: all of Aug-PE's voting is private work
    }
    const bool public_vote = job.clustering || !job.voters;
    const double vote_seconds = public_vote ? t0.seconds() : 0.0;

    t0.restart();
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
                               {"size_shrinkage_weight", shrinkage.size_weight},
                               {"centre_signal", shrinkage.centre_signal},
                               {"generate_seconds", pool.generate_seconds},
                               {"embed_seconds", pool.embed_seconds}});
    nlohmann::ordered_json& line = outcome.metrics.back();
    if (public_vote) line["vote_seconds"] = vote_seconds;
    if (job.voters || job.clustering) line["release_seconds"] = release_seconds;
    line["select_seconds"] = t0.seconds();
    line["iteration_seconds"] = iter_start.seconds();
    outcome.synthetic = std::move(parents);
    outcome.releases = job.ledger.entries(job.label);
    if (job.after_iteration) job.after_iteration(outcome, t + 1);
  }
}

}  // namespace secpe
