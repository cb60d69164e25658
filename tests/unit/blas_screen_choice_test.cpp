// Which screen the BLAS kernel runs: names, the fallbacks where an engine does not run, auto's
// choice (SECPE_BLAS_SCREEN, SECPE_BLAS_SCREEN_AUTO, the CPU's default), and k-means giving the
// same result, bit for bit, whichever screen assigns its rows.
#include <gtest/gtest.h>

#include <random>

#include "blas_test_util.hpp"
#include "cluster/kmeans.hpp"
#include "compute/cpu/bf16_gemm.hpp"
#include "compute/cpu/blas_kernel.hpp"
#include "compute/cpu/screen_choice.hpp"
#include "core/error.hpp"
#include "comms/communicator.hpp"

namespace secpe {
namespace {

constexpr BlasScreen kAll[] = {BlasScreen::kAuto, BlasScreen::kFp32, BlasScreen::kBf16, BlasScreen::kBf16Emulated,
                               BlasScreen::kInt8, BlasScreen::kInt8Emulated};

// What a screen becomes here: itself where an engine runs it, else fp32.
BlasScreen here(BlasScreen s) { return screen_engine(s) ? s : BlasScreen::kFp32; }

TEST(BlasScreenChoice, NamesAndFallbacks) {
  for (BlasScreen s : kAll) EXPECT_EQ(parse_blas_screen(blas_screen_name(s)), s);
  EXPECT_THROW(parse_blas_screen("fp16"), InputError);
  EXPECT_EQ(screen_engine(BlasScreen::kBf16Emulated), screen::Engine::kBf16Emulated);
  EXPECT_EQ(screen_engine(BlasScreen::kInt8Emulated), screen::Engine::kInt8Emulated);
  EXPECT_FALSE(screen_engine(BlasScreen::kFp32));
  if (bf16::amx_available()) EXPECT_EQ(screen_engine(BlasScreen::kBf16), screen::Engine::kBf16Amx);
  EXPECT_EQ(screen_label(BlasScreen::kFp32), "fp32 (sgemm)");
  for (BlasScreen s : {BlasScreen::kFp32, BlasScreen::kBf16, BlasScreen::kBf16Emulated, BlasScreen::kInt8, BlasScreen::kInt8Emulated}) {
    EXPECT_EQ(BlasKernel(BlasKernelOptions{.screen = s}).screen_for(10), here(s)) << blas_screen_name(s);
  }
}

TEST(BlasScreenChoice, AutoFollowsTheMeasuredChoice) {
  EXPECT_EQ(auto_screen_text(parse_auto_screen("int8:64")), "int8:64");
  EXPECT_EQ(auto_screen_text(parse_auto_screen("bf16:32,int8:1024")), "bf16:32,int8:1024");
  EXPECT_EQ(auto_screen_text(parse_auto_screen("int8:128;int8=2.15,bf16=0.56")), "int8:128;int8=2.15,bf16=0.56");
  EXPECT_EQ(parse_auto_screen("bf16-emulated:0").tiers.front().screen, BlasScreen::kBf16Emulated);
  for (const char* bad : {"int8", "int8:", "int8:-1", "int8:12x", "auto:5", "fp16:3", ":3", "int8:5,", "int8:5,bf16:5", "int8:9,bf16:5",
                          "int8:128;fp32=2", "int8:128;int8=-1", "int8:128;int8=x", "int8:128;", "int8:128;int8"}) {
    EXPECT_THROW(parse_auto_screen(bad), InputError) << bad;
  }
  const test::ScopedEnv screen_env("SECPE_BLAS_SCREEN"), auto_env("SECPE_BLAS_SCREEN_AUTO");
  screen_env.unset();
  auto_env.set("bf16:40,int8:100");
  EXPECT_EQ(auto_screen().tiers.size(), 2u);
  const BlasKernel measured;
  EXPECT_EQ(measured.screen_for(39), BlasScreen::kFp32);
  EXPECT_EQ(measured.screen_for(40), here(BlasScreen::kBf16));
  EXPECT_EQ(measured.screen_for(99), here(BlasScreen::kBf16));
  EXPECT_EQ(measured.screen_for(100), here(BlasScreen::kInt8));
  const BlasKernel given(BlasKernelOptions{.auto_choice = AutoScreen{.tiers = {{BlasScreen::kBf16Emulated, 5}}, .source = "test"}});
  EXPECT_EQ(given.screen_for(4), BlasScreen::kFp32);
  EXPECT_EQ(given.screen_for(5), BlasScreen::kBf16Emulated);
  auto_env.set("int9:100");
  EXPECT_THROW(BlasKernel(), InputError);
  auto_env.unset();
  const AutoScreen cpu = auto_screen();  // the CPU's default: screens that run here
  for (const AutoScreen::Tier& t : cpu.tiers) EXPECT_EQ(here(t.screen), t.screen);
  if (bf16::amx_available()) EXPECT_EQ(cpu.tiers.back().screen, BlasScreen::kBf16);
  screen_env.set("fp32");
  EXPECT_EQ(BlasKernel().screen_for(100000), BlasScreen::kFp32);
  EXPECT_EQ(BlasKernel(BlasKernelOptions{.screen = BlasScreen::kInt8Emulated}).screen_for(10), BlasScreen::kInt8Emulated);
  screen_env.set("int8");
  EXPECT_EQ(BlasKernel().screen_for(10), here(BlasScreen::kInt8));
  screen_env.set("half");
  EXPECT_THROW(BlasKernel(), InputError);
}

// blas-check's rule: the fastest screen at each count of centres, a new tier only where another is
// more than 3% faster than the one chosen below.
TEST(BlasScreenChoice, ChoiceFromTimings) {
  const std::vector<int> n{32, 64, 256, 1024};
  const std::vector<ScreenTimings> t{{BlasScreen::kFp32, "fp32", {1.0, 2.0, 4.0, 16.0}},
                                     {BlasScreen::kBf16, "bf16", {1.1, 1.45, 2.5, 9.0}},
                                     {BlasScreen::kInt8, "int8", {1.5, 1.48, 2.0, 6.0}}};
  EXPECT_EQ(auto_screen_text(choose_from(n, t)), "bf16:64,int8:256;bf16=1.78,int8=2.67");
  EXPECT_EQ(auto_screen_text(choose_from(n, {t[0]})), "fp32:0");
  EXPECT_EQ(auto_screen_text(choose_from(n, {t[0], {BlasScreen::kInt8, "int8", {0.5, 1.0, 5.0, 17.0}}})), "int8:32,fp32:256;int8=0.94");
}

// Points around k well-separated centres in d dimensions, with the seed alone deciding them.
MatrixF clustered(Eigen::Index n, Eigen::Index d, int k, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  const MatrixF centres = test::random_matrix(k, d, seed + 100, -3.0f, 3.0f);
  MatrixF x(n, d);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < d; ++j) x(i, j) = centres(i % k, j) + noise(gen);
  return x;
}

// The Lloyd step assigns with the kernel's screen; the answers are the reference's, so every
// screen gives the same centres, sizes and assignment, for cosine and L2.
TEST(BlasScreenChoice, KMeansIsIdenticalWithEveryScreen) {
  const LocalCommunicator self;
  const MatrixF x = clustered(2000, 40, 25, 3);
  for (const Metric metric : {Metric::kCosine, Metric::kL2}) {
    KMeansOptions options;
    options.k = 30;
    options.max_iterations = 4;
    options.metric = metric;
    options.seed = 7;
    options.threads = 2;
    const KMeansResult want = distributed_kmeans(self, x, ReferenceKernel(), options);
    for (BlasScreen s : {BlasScreen::kFp32, BlasScreen::kBf16, BlasScreen::kBf16Emulated, BlasScreen::kInt8, BlasScreen::kInt8Emulated}) {
      SCOPED_TRACE(blas_screen_name(s) + " " + metric_name(metric));
      const BlasKernel kernel(BlasKernelOptions{.threads = 2, .screen = s});
      const KMeansResult got = distributed_kmeans(self, x, kernel, options);
      EXPECT_TRUE((got.centres.array() == want.centres.array()).all());
      EXPECT_EQ(got.sizes, want.sizes);
      EXPECT_EQ(got.assignment, want.assignment);
      EXPECT_EQ(got.iterations, want.iterations);
    }
  }
}

}  // namespace
}  // namespace secpe
