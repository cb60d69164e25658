// The memory estimate refuses candidate pools that cannot fit, and lets the documented runs through.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "evolve/run_estimate.hpp"

namespace secpe {
namespace {

TEST(RunEstimate, YelpScaleRunsFitAndAbsurdPoolsDoNot) {
  RunOptions c;
  const auto secpe = make_method("secpe");
  c.synthetic = 5000;
  c.variations = 6;
  c.clusters = 600;
  std::vector<std::size_t> shares(50, 100);
  shares[0] = 1000;  // the largest label's share sets the pool
  const RunEstimate yelp = estimate_run(c, *secpe, shares, 768, 1939290);
  EXPECT_EQ(yelp.candidates, 7000u);
  EXPECT_LT(yelp.total(), 8.3e9);  // docs/performance.md: peak RSS 8.3 GB at 1 rank
  EXPECT_NO_THROW(check_run_fits(yelp, 24e9));

  c.variations = 100000;
  shares[0] = 300;
  const RunEstimate wide = estimate_run(c, *secpe, shares, 256, 4000);
  EXPECT_EQ(wide.candidates, 300u * 100001u);
  try {
    check_run_fits(wide, 24e9);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("30000300 candidates in the largest label: about 43.7 GB per rank"), std::string::npos) << msg;
    EXPECT_NE(msg.find("more than the 24.0 GB of memory this rank has"), std::string::npos) << msg;
  }
  shares[0] = 100000;
  EXPECT_THROW(check_run_fits(estimate_run(c, *secpe, shares, 256, 4000), 1e18), InputError);  // past 32-bit candidate indices
}

}  // namespace
}  // namespace secpe
