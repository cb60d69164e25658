// The ledger's composition shared by the ranks (privacy/run_composition.hpp, evolve/run_budget.cpp):
// each rank bounds its share of the distinct combinations and every rank gets every bound, the
// same bits as one process alone; a failure on one rank fails every rank, with the same error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "comms/mpi_communicator.hpp"
#include "core/error.hpp"
#include "privacy/poisson_binomial.hpp"
#include "privacy/run_composition.hpp"

namespace secpe {
namespace {

// `lists` release lists of one to four releases (one to six holders, rho 0.01 to 0.2), secret j
// on list j % lists; reps_of(list) gives each list's repetitions.
template <typename Reps>
RunSpend spend_of(int secrets, int lists, double step, Reps reps_of) {
  SpendBuilder builder;
  for (int l = 0; l < lists; ++l) {
    std::vector<MixtureRelease> list;
    for (int k = 0; k <= l % 4; ++k) {
      std::vector<double> rho(static_cast<std::size_t>(1 + (l + k) % 6));
      for (std::size_t h = 0; h < rho.size(); ++h) rho[h] = 0.01 + 0.19 * double((l * 7 + k * 3 + int(h)) % 10) / 9.0;
      list.push_back({poisson_binomial_pmf(rho), step * (1.0 + 0.1 * k), reps_of(l)});
    }
    builder.add_list(list);
  }
  for (int j = 0; j < secrets; ++j) builder.spend().profile_of.push_back(j % lists);
  return std::move(builder.spend());
}

CompositionOptions shared_by(const Communicator& comm) {
  return {.threads = 2,
          .exact_share = kExactShareOfWorst,
          .exact_above = {},
          .part = comm.rank(),
          .parts = comm.size(),
          .gather = [&comm](std::span<const double> local) { return comm.allgather(local); }};
}

TEST(LedgerComposition, SharedByTheRanksIsOneProcessBitForBit) {
  const MpiCommunicator world;
  constexpr int kSecrets = 60;
  const std::vector<RunSpend> runs{spend_of(kSecrets, 23, 0.4, [](int) { return 5; }),
                                   spend_of(kSecrets, 17, 0.3, [](int l) { return 3 + l % 3; })};
  const std::vector<double> p(kSecrets, 1e-4);
  const ComposedBounds alone = compose_runs(runs, p, {.threads = 1, .exact_share = kExactShareOfWorst, .exact_above = {}, .part = 0, .parts = 1, .gather = {}});
  const ComposedBounds shared = compose_runs(runs, p, shared_by(world));
  ASSERT_EQ(shared.r.size(), alone.r.size());
  for (std::size_t j = 0; j < alone.r.size(); ++j) {
    EXPECT_EQ(std::memcmp(&shared.r[j], &alone.r[j], sizeof(double)), 0) << "secret " << j << " on rank " << world.rank();
    EXPECT_EQ(shared.coarse[j], alone.coarse[j]) << j;
  }
  EXPECT_TRUE(std::find(alone.coarse.begin(), alone.coarse.end(), false) != alone.coarse.end());  // some refined
}

TEST(LedgerComposition, AFailureOnOneRankFailsEveryRank) {
  const MpiCommunicator world;
  // The last list repeats beyond what the accountant takes (max_fft_size / 4): whichever rank
  // bounds it fails, and the others must neither wait for it nor report anything else.
  const std::vector<RunSpend> runs{spend_of(12, 6, 0.4, [](int l) { return l == 5 ? 2'000'000 : 5; })};
  const std::vector<double> p(12, 1e-4);
  try {
    compose_runs(runs, p, shared_by(world));
    ADD_FAILURE() << "rank " << world.rank() << " did not fail";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("repetitions"), std::string::npos) << e.what();
  }
  world.barrier();  // every rank got here
}

}  // namespace
}  // namespace secpe
