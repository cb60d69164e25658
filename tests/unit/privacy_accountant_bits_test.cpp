// The accountant's figures, bit for bit (privacy/blow_up.hpp). Its arithmetic is deterministic
// (libm's exp, log and erfc; the FFT without fused multiply-add), and every figure of a run's
// privacy.json and every calibrated sigma follows from it, so a change meant to make it faster
// must leave every bit as it was: these values were recorded with the accountant before its
// composition was vectorised (3fe1771), and any later optimisation is held to them. A change that
// means to move the bounds records them again, saying why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "core/rng.hpp"
#include "privacy/blow_up.hpp"
#include "privacy/poisson_binomial.hpp"

namespace secpe {
namespace {

// A fixed spread of accountant inputs: one to eight releases of 1 to 40 holders (rho up to 0.3),
// steps that put the single-Gaussian mu of the whole composition at 0.3 to 2.3, repetitions alike
// (as a calibration's: one group) or mixed (several groups), alpha 1e-1 to 1e-6; every fourth at
// full precision, the others on the coarse grid (the bulk's, privacy/run_composition.hpp).
struct BitsCase {
  std::vector<MixtureRelease> releases;
  double alpha;
  double slack;
};
std::vector<BitsCase> bits_cases() {
  CounterRng rng(2026, Stream::kSimulation, 1203);
  std::vector<BitsCase> out;
  for (int i = 0; i < 24; ++i) {
    BitsCase c;
    const int count = 1 + static_cast<int>(rng.below(8));
    const int alike = 5 * (1 + static_cast<int>(rng.below(11)));
    const double mu = 0.3 + 2.0 * rng.uniform();
    for (int l = 0; l < count; ++l) {
      std::vector<double> rho(1 + rng.below(40));
      const double top = 0.3 * rng.uniform();
      double mean = 0.0;
      for (double& x : rho) mean += (x = 0.001 + top * rng.uniform());
      const int reps = i % 2 == 0 ? alike : 1 + static_cast<int>(rng.below(60));
      c.releases.push_back({poisson_binomial_pmf(rho), mu / std::sqrt(double(count) * reps) / mean, reps});
    }
    c.alpha = std::pow(10.0, -1.0 - 5.0 * rng.uniform());
    c.slack = i % 4 == 3 ? 1e-5 : 1e-2;
    out.push_back(std::move(c));
  }
  return out;
}

struct Recorded {
  double value;
  std::int64_t atoms;
};
// blow_up_bound_composed(case.releases, case.alpha, {.slack_target = case.slack}), per case.
constexpr Recorded kRecorded[] = {
    {0x1.21fab4b2b9a41p-13, 1155},  // fft 2048, 6 releases
    {0x1.dc8bf041753bcp-2, 263},  // fft 1024, 2 releases
    {0x1.0448e42d4f1d5p-8, 549},  // fft 2048, 8 releases
    {0x1.e3c85f67375fep-2, 15406},  // fft 32768, 2 releases
    {0x1.417ee2f868504p-10, 2674},  // fft 4096, 7 releases
    {0x1.d26b27d274972p-9, 505},  // fft 2048, 4 releases
    {0x1.b0f0e4223c784p-2, 295},  // fft 2048, 4 releases
    {0x1.51aa227ed28p-3, 15115},  // fft 65536, 6 releases
    {0x1.a8901edc8a73ep-6, 474},  // fft 2048, 6 releases
    {0x1.d5cdebf93ad68p-4, 490},  // fft 1024, 4 releases
    {0x1.bfd695209a836p-5, 394},  // fft 1024, 3 releases
    {0x1.e9af5998bc97cp-6, 65686},  // fft 65536, 5 releases
    {0x1.e5dabc9465794p-16, 425},  // fft 2048, 4 releases
    {0x1.a90ae934cf5e6p-12, 808},  // fft 2048, 6 releases
    {0x1.243509d4f1043p-1, 930},  // fft 2048, 5 releases
    {0x1.4e5510943ddcdp-2, 7396},  // fft 32768, 2 releases
    {0x1.3faacdde2ac3ap-4, 320},  // fft 1024, 3 releases
    {0x1.6163b668fdf2bp-1, 985},  // fft 2048, 1 releases
    {0x1.9642f17c48436p-6, 447},  // fft 2048, 4 releases
    {0x1.cab63f856867dp-4, 51186},  // fft 65536, 8 releases
    {0x1.b44f9b14cfa7ap-10, 379},  // fft 2048, 2 releases
    {0x1.7c53a6f03193ap-7, 640},  // fft 2048, 4 releases
    {0x1.429c86cdc1a45p-5, 587},  // fft 4096, 4 releases
    {0x1.adbda75514fafp-4, 23407},  // fft 65536, 6 releases
};
// calibrate_scale_composed(releases, p = alpha, r = min(0.5, 10 alpha)) of cases 0, 5 and 10.
constexpr double kRecordedLambda[] = {0x1.37ad760085c96p+0, 0x1.fbbfa495bdc1bp+1, 0x1.b14f9b4df0603p-1};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(AccountantBits, BoundsAreTheRecordedBits) {
  const std::vector<BitsCase> cases = bits_cases();
  ASSERT_EQ(cases.size(), std::size(kRecorded));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const BlowUpBound b = blow_up_bound_composed(cases[i].releases, cases[i].alpha, {.slack_target = cases[i].slack});
    EXPECT_TRUE(same_bits(b.value, kRecorded[i].value)) << "case " << i << ": " << std::hexfloat << b.value << " recorded " << kRecorded[i].value;
    EXPECT_EQ(b.atoms, kRecorded[i].atoms) << "case " << i;
  }
}

TEST(AccountantBits, CalibrationIsTheRecordedBits) {
  const std::vector<BitsCase> cases = bits_cases();
  const std::size_t which[] = {0, 5, 10};
  for (std::size_t k = 0; k < std::size(which); ++k) {
    const BitsCase& c = cases[which[k]];
    const double lambda = calibrate_scale_composed(c.releases, c.alpha, std::min(0.5, 10.0 * c.alpha));
    EXPECT_TRUE(same_bits(lambda, kRecordedLambda[k])) << "case " << which[k] << ": " << std::hexfloat << lambda << " recorded " << kRecordedLambda[k];
  }
}

// A ReleaseMemo (privacy/blow_up.hpp) prepares each release once for many bounds: the bounds keep
// their bits, and the memo holds one entry per distinct release and cut.
TEST(AccountantBits, MemoKeepsTheBitsAndPreparesEachReleaseOnce) {
  const std::vector<BitsCase> cases = bits_cases();
  ReleaseMemo memo;
  for (int round = 0; round < 2; ++round)  // the second round finds every release in the memo
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const BlowUpBound b = blow_up_bound_composed(cases[i].releases, cases[i].alpha, {.slack_target = cases[i].slack}, &memo);
      EXPECT_TRUE(same_bits(b.value, kRecorded[i].value)) << "round " << round << ", case " << i;
    }
  // Every pair of case 0's releases (their repetitions alike, so one cut for all pairs), as the
  // profiles of secrets that share releases: each release is prepared once.
  const std::vector<MixtureRelease>& pool = cases[0].releases;
  ASSERT_GE(pool.size(), 3u);
  ReleaseMemo shared;
  for (std::size_t a = 0; a < pool.size(); ++a)
    for (std::size_t b = a + 1; b < pool.size(); ++b) {
      const std::vector<MixtureRelease> pair{pool[a], pool[b]};
      const double alone = blow_up_upper_composed(pair, cases[0].alpha, {.slack_target = 1e-2});
      EXPECT_TRUE(same_bits(blow_up_upper_composed(pair, cases[0].alpha, {.slack_target = 1e-2}, &shared), alone)) << a << ", " << b;
    }
  EXPECT_EQ(shared.size(), pool.size());
}

// On the grid ladder a memo also keeps each release's discretisation per grid, and the transform
// of each group of releases with one count PMF (a label's holders in runs at other noise), which
// bounds over many combinations of shared releases meet (privacy/run_composition.cpp): the same
// bits as a bound with a fresh memo, whatever the memo met before, and after it forgot its grids.
TEST(AccountantBits, TheLadderMemoKeepsTheBits) {
  const std::vector<BitsCase> cases = bits_cases();
  const std::vector<MixtureRelease>& pool = cases[0].releases;
  const AccountantOptions ladder{.slack_target = 1e-2, .grid_ladder = true};
  const auto at_other_noise = [](MixtureRelease r, double more) {
    r.mean_step /= more;
    return r;
  };
  // The pool in three runs, each at 2 % more noise than the one before: release a of run k has the
  // id k * pool.size() + a in `by_id`, the memo that finds them by id.
  std::vector<MixtureRelease> runs;
  for (int run = 0; run <= 2; ++run)
    for (const MixtureRelease& r : pool) runs.push_back(at_other_noise(r, 1.0 + 0.02 * run));
  ReleaseMemo shared, by_id;
  for (int round = 0; round < 4; ++round) {
    if (round % 2 == 1) {  // a caller done with the grids so far: the prepared releases stay
      const std::size_t prepared = by_id.size(), bytes = by_id.bytes();
      by_id.forget_grids();
      EXPECT_EQ(by_id.size(), prepared);
      EXPECT_LT(by_id.bytes(), bytes);
    }
    for (std::size_t a = 0; a < pool.size(); ++a)
      for (std::size_t b = a; b < pool.size(); ++b) {
        std::vector<SharedRelease> ids{{.id = a, .release = &runs[a], .repetitions = runs[a].repetitions}};
        if (b > a) ids.push_back({.id = b, .release = &runs[b], .repetitions = runs[b].repetitions});
        const std::size_t one_run = ids.size();
        for (std::size_t run = 1; round >= 2 && run <= 2; ++run) {  // rounds 2 and 3: each release in three runs, a group
          for (std::size_t l = 0; l < one_run; ++l) {
            const std::size_t id = run * pool.size() + ids[l].id;
            ids.push_back({.id = id, .release = &runs[id], .repetitions = runs[id].repetitions});
          }
        }
        std::vector<MixtureRelease> list;
        for (const SharedRelease& r : ids) list.push_back(*r.release);
        const double alone = blow_up_upper_composed(list, cases[0].alpha, ladder);
        const std::string what = std::to_string(round) + ": " + std::to_string(a) + ", " + std::to_string(b);
        EXPECT_TRUE(same_bits(blow_up_upper_composed(list, cases[0].alpha, ladder, &shared), alone)) << what;
        EXPECT_TRUE(same_bits(blow_up_bound_shared(ids, cases[0].alpha, ladder, by_id).value, alone)) << what << ", by id";
      }
  }
  // One group on one grid at two FFT sizes (alpha moves the window, not the cut's tail mass nor
  // the grid): each size has its own transform.
  std::vector<MixtureRelease> group{cases[10].releases.at(0)};
  for (const double more : {1.02, 1.04}) group.push_back(at_other_noise(group[0], more));
  const double alpha[] = {std::exp2(-14.0 + 99.0 / 64.0), std::exp2(-14.0 + 48.0 / 64.0)};
  const BlowUpBound narrow = blow_up_bound_composed(group, alpha[0], ladder), wide = blow_up_bound_composed(group, alpha[1], ladder);
  ASSERT_EQ(narrow.grid, wide.grid);
  ASSERT_LT(narrow.fft_size, wide.fft_size);
  ReleaseMemo sizes;
  EXPECT_TRUE(same_bits(blow_up_upper_composed(group, alpha[0], ladder, &sizes), narrow.value));
  EXPECT_TRUE(same_bits(blow_up_upper_composed(group, alpha[1], ladder, &sizes), wide.value));
}

}  // namespace
}  // namespace secpe
