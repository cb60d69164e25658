// The correctly rounded exp and log (core/cr_math.hpp) against mpmath at 400 bits
// (tests/data/cr_math_vectors.txt, from tests/data/make_cr_math_vectors.py): the results bit for
// bit, both phases, and the fast phase's error against the bound its rounding test assumes; then
// against long double on random arguments wherever long double decides the rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/cr_math.hpp"

namespace secpe {
namespace {

struct Vector {
  char f;
  double x, rounded, hi, lo;
};

std::vector<Vector> load_vectors() {
  const std::string path = std::string(SECPE_TEST_DATA) + "/cr_math_vectors.txt";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<Vector> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Vector v{};
    std::string x, r, hi, lo;
    fields >> v.f >> x >> r >> hi >> lo;
    EXPECT_FALSE(fields.fail()) << "bad line: " << line;
    v.x = std::strtod(x.c_str(), nullptr), v.rounded = std::strtod(r.c_str(), nullptr);
    v.hi = std::strtod(hi.c_str(), nullptr), v.lo = std::strtod(lo.c_str(), nullptr);
    out.push_back(v);
  }
  EXPECT_EQ(out.size(), 1400u);
  return out;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// |(hi + lo) - (ref_hi + ref_lo)| / |ref| in long double (the two lows are far below its precision).
double relative_error(ieee::Pair v, double ref_hi, double ref_lo) {
  const long double ref = static_cast<long double>(ref_hi) + ref_lo;
  const long double diff = (static_cast<long double>(v.hi) - ref_hi) + (static_cast<long double>(v.lo) - ref_lo);
  return static_cast<double>(std::fabs(diff / ref));
}

TEST(CrMath, MatchMpmathBitForBitInBothPhases) {
  int fast_checked = 0;
  double worst_exp = 0.0, worst_log = 0.0;
  for (const Vector& v : load_vectors()) {
    const char* name = v.f == 'e' ? "exp" : "log";
    SCOPED_TRACE(std::string(name) + "(" + std::to_string(v.x) + ")");
    if (v.f == 'e') {
      EXPECT_TRUE(same_bits(cr::exp(v.x), v.rounded));
      if (std::fabs(v.x) >= 0x1p-60 && std::fabs(v.x) <= 746.0) EXPECT_TRUE(same_bits(cr::detail::exp_accurate(v.x), v.rounded));
      if (std::fabs(v.x) >= 0x1p-54 && v.x > -708.0 && v.x < 709.7) {
        int k = 0;
        const ieee::Pair pair = cr::detail::exp_fast_pair(v.x, &k);
        // The vectors are scaled by 2^-round(x / ln2), the fast phase by 2^-k.
        const int ref_k = static_cast<int>(std::nearbyint(v.x / std::log(2.0)));
        const double e = relative_error(pair, std::ldexp(v.hi, ref_k - k), std::ldexp(v.lo, ref_k - k));
        worst_exp = std::max(worst_exp, e);
        double fast = 0.0;
        if (cr::detail::exp_fast(v.x, &fast)) {
          EXPECT_TRUE(same_bits(fast, v.rounded));
          ++fast_checked;
        }
      }
    } else {
      EXPECT_TRUE(same_bits(cr::log(v.x), v.rounded));
      EXPECT_TRUE(same_bits(cr::detail::log_accurate(v.x), v.rounded));
      worst_log = std::max(worst_log, relative_error(cr::detail::log_fast_pair(v.x), v.hi, v.lo));
      double fast = 0.0;
      if (cr::detail::log_fast(v.x, &fast)) {
        EXPECT_TRUE(same_bits(fast, v.rounded));
        ++fast_checked;
      }
    }
  }
  // exp_double, the ziggurat's estimate, within its bound (checked on the fast phase's domain).
  for (const Vector& v : load_vectors()) {
    if (v.f != 'e' || !(v.x > -708.0 && v.x < 709.7)) continue;
    const int ref_k = static_cast<int>(std::nearbyint(v.x / std::log(2.0)));
    const long double ref = std::ldexp(static_cast<long double>(v.hi) + v.lo, ref_k);
    EXPECT_LE(std::fabs((cr::detail::exp_double(v.x) - ref) / ref), cr::detail::kDoubleBound / 2) << std::hexfloat << v.x;
  }
  // The rounding test assumes 2^-68 (kFastBound); the phases stay 2^4 below it.
  EXPECT_LT(worst_exp, cr::detail::kFastBound / 16);
  EXPECT_LT(worst_log, cr::detail::kFastBound / 16);
  EXPECT_GT(fast_checked, 1200);
}

// Random arguments against long double (64 bits): wherever the long double value is clear of the
// midpoints between doubles by more than its own error, it decides the correct rounding.
template <typename Cr, typename Ld>
void against_long_double(const std::vector<double>& args, Cr cr_f, Ld ld_f) {
  int decided = 0;
  for (const double x : args) {
    const long double y = ld_f(static_cast<long double>(x));
    const double d = static_cast<double>(y);
    if (!std::isfinite(d) || d == 0.0 || std::fabs(d) < std::numeric_limits<double>::min()) continue;
    const long double up = (static_cast<long double>(d) + std::nextafter(d, HUGE_VAL)) / 2;
    const long double down = (static_cast<long double>(d) + std::nextafter(d, -HUGE_VAL)) / 2;
    const long double margin = std::fabs(y) * 0x1p-58L;
    if (std::fabs(y - up) < margin || std::fabs(y - down) < margin) continue;
    ++decided;
    ASSERT_TRUE(same_bits(cr_f(x), d)) << "at " << std::hexfloat << x;
  }
  EXPECT_GT(decided, static_cast<int>(args.size()) * 9 / 10);
}

TEST(CrMath, MatchLongDoubleOnRandomArguments) {
  std::mt19937_64 gen(29);
  std::uniform_real_distribution<double> wide(-708.0, 709.0), zig(-6.0, 0.5), unit(0.0, 1.0), expo(-1020.0, 1020.0);
  std::vector<double> exp_args, log_args;
  for (int i = 0; i < 100000; ++i) {
    exp_args.push_back(i % 2 ? wide(gen) : zig(gen));
    log_args.push_back(i % 2 ? std::exp2(expo(gen)) : (static_cast<double>(gen() >> 12) + 0.5) * 0x1p-52);
  }
  against_long_double(exp_args, [](double x) { return cr::exp(x); }, [](long double x) { return std::exp(x); });
  against_long_double(log_args, [](double x) { return cr::log(x); }, [](long double x) { return std::log(x); });
}

TEST(CrMath, SpecialValues) {
  const double inf = HUGE_VAL, nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(cr::exp(nan)));
  EXPECT_EQ(cr::exp(inf), inf);
  EXPECT_TRUE(same_bits(cr::exp(-inf), 0.0));
  EXPECT_EQ(cr::exp(0.0), 1.0);
  EXPECT_EQ(cr::exp(-0.0), 1.0);
  EXPECT_EQ(cr::exp(710.0), inf);
  EXPECT_TRUE(same_bits(cr::exp(-746.0), 0.0));
  EXPECT_EQ(cr::exp(-745.0), 0x1p-1074);  // 0.57 2^-1074: rounds up to the least subnormal
  EXPECT_TRUE(std::isnan(cr::log(nan)));
  EXPECT_TRUE(std::isnan(cr::log(-1.0)));
  EXPECT_EQ(cr::log(0.0), -inf);
  EXPECT_EQ(cr::log(-0.0), -inf);
  EXPECT_EQ(cr::log(inf), inf);
  EXPECT_TRUE(same_bits(cr::log(1.0), 0.0));
}

// The ziggurat calls exp and log millions of times: the fast phase must decide nearly all.
TEST(CrMath, FastPhaseDecidesNearlyAlways) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> zig(-6.0, 0.5);
  int undecided = 0;
  double out = 0.0;
  for (int i = 0; i < 100000; ++i) {
    undecided += cr::detail::exp_fast(zig(gen), &out) ? 0 : 1;
    undecided += cr::detail::log_fast((static_cast<double>(gen() >> 12) + 0.5) * 0x1p-52, &out) ? 0 : 1;
  }
  EXPECT_LT(undecided, 20);
}

}  // namespace
}  // namespace secpe
