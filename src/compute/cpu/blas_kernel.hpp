#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compute/cpu/screen_gemm.hpp"
#include "compute/nearest.hpp"
#include "core/enum_names.hpp"

namespace secpe {

// The optimised CPU kernel: blocks of X times blocks of C (transposed) with OpenBLAS cblas_sgemm,
// fused with the norm terms and a running per-row minimum, so only one block of approximate
// scores exists at a time (per thread). The float scores only select candidates: every centre
// whose approximate score is within a rigorous rounding-error bound of the best is rescored with
// the reference's exact double formula, so the results equal ReferenceKernel's bit for bit.
// Threads work on separate blocks of X (OpenBLAS itself is set to one thread).
//
// The screen is the GEMM that selects the candidates (compute/cpu/screen_gemm.hpp). fp32:
// cblas_sgemm. bf16: X and C rounded to bf16 and multiplied with float accumulation, on AMX tiles
// or with AVX512-BF16. int8: X and C quantised with a scale per vector and multiplied with exact
// int32 sums, with AVX512-VNNI or AVX-VNNI. The narrow screens run two to eight times faster than
// sgemm where the CPU has the instructions; their bound is wider (each vector's measured rounding
// error: about 2^-9.3 relative in bf16, 2^-7 in int8), so more centres per row are rescored, and the
// results are the same bit for bit. With few centres that rescoring costs more than the GEMM saves,
// hence AutoScreen's tiers. A search a narrow screen cannot take (screen::fits: bf16 norms
// of 1e38, int8 norms outside [2^-40, 2^40] or d > 65536) screens in fp32.
enum class BlasScreen {
  kAuto,          // SECPE_BLAS_SCREEN if set (any of these names); else the AutoScreen choice
  kFp32,          // cblas_sgemm
  kBf16,          // AMX where it runs, else AVX512-BF16, else fp32
  kBf16Emulated,  // bf16 arithmetic emulated one product at a time: any CPU, very slow (tests)
  kInt8,          // AVX512-VNNI where it runs, else AVX-VNNI, else fp32
  kInt8Emulated,  // the int8 engines' integers computed one product at a time: any CPU, slow (tests)
};
inline constexpr EnumNames<BlasScreen, 6> kBlasScreenNames{{{BlasScreen::kAuto, "auto"},
                                                            {BlasScreen::kFp32, "fp32"},
                                                            {BlasScreen::kBf16, "bf16"},
                                                            {BlasScreen::kInt8, "int8"},
                                                            {BlasScreen::kBf16Emulated, "bf16-emulated"},
                                                            {BlasScreen::kInt8Emulated, "int8-emulated"}}};
inline BlasScreen parse_blas_screen(const std::string& name) { return parse_name(kBlasScreenNames, name, "the blas screen"); }
inline std::string blas_screen_name(BlasScreen screen) { return std::string(name_of(kBlasScreenNames, screen)); }

// What auto screens with, by the number of centres of a search: the tier with the largest
// min_centres not above it, fp32 below the first (e.g. bf16 from 32 centres, int8 from 1024).
struct AutoScreen {
  struct Tier {
    BlasScreen screen;
    int min_centres;
  };
  // A narrow screen's GEMM speed over sgemm's on this CPU, measured (blas-check: 4096 centres). The
  // cascade's limits read it where the built-in estimate (measured elsewhere) is off, and a screen
  // measured no faster than sgemm is not a step of the cascade (compute/cpu/screen_cascade.hpp).
  struct Speedup {
    BlasScreen screen;  // bf16 or int8
    double times;
  };
  std::vector<Tier> tiers;  // ascending min_centres; each screen other than auto
  std::string source;       // who chose it (for reports)
  std::vector<Speedup> speedups = {};  // measured; none: the built-in estimates
  BlasScreen screen_for(Eigen::Index centres) const;
};
// "SCREEN:MIN_CENTRES[,SCREEN:MIN_CENTRES...][;SCREEN=SPEEDUP,...]" (e.g. "bf16:32,int8:1024" or
// "int8:128;int8=2.15,bf16=0.56"), as SECPE_BLAS_SCREEN_AUTO holds it; InputError otherwise (auto as
// a tier, a negative count, counts not ascending, a speedup of another screen or not positive).
AutoScreen parse_auto_screen(const std::string& text);
std::string auto_screen_text(const AutoScreen& choice);  // that form ("fp32:0" for no tier)
// SECPE_BLAS_SCREEN_AUTO when set (`secpe blas-check --choose-screen` measures the screens that
// run here and prints it; jobs/blas-core.sh exports it), else this CPU's default: bf16 from 300
// centres where AMX runs; else, where VNNI runs, bf16 from 32 and int8 from 512 if AVX512-BF16
// runs too (measured on an AMD EPYC, Zen 5: searches and k-means with 600 centres), int8 from 256
// if not; else fp32.
AutoScreen auto_screen();
// The engine a resolved screen runs on here (kBf16 / kInt8: the fastest available); nullopt for fp32.
std::optional<screen::Engine> screen_engine(BlasScreen screen);
// A resolved screen with its engine here, for reports: "fp32 (sgemm)", "int8 (AVX512-VNNI)", ...
std::string screen_label(BlasScreen screen);

// What the searches of a blas kernel screened with and kept, summed over its searches while
// BlasKernelOptions::stats points here (the benchmarks report candidates per row per screen).
// `kept`: candidates a screen's bound left per row, before the float re-screen; `rescored`: pairs
// scored exactly (after it). Rows of a search that scores every pair exactly count in exact_rows.
struct ScreenStats {
  static constexpr int kLevels = 3;  // int8, bf16, fp32: the cascade's screens (level_name)
  std::atomic<std::uint64_t> rows[kLevels] = {};
  std::atomic<std::uint64_t> kept[kLevels] = {};
  std::atomic<std::uint64_t> rescored{0};
  std::atomic<std::uint64_t> exact_rows{0};
  static const char* level_name(int level);  // "int8", "bf16", "fp32"
};

struct BlasKernelOptions {
  // Worker threads. 0: the environment variable SECPE_THREADS if set (a positive integer),
  // else std::thread::hardware_concurrency(). An explicit value > 0 wins over the environment.
  int threads = 0;
  int row_block = 512;      // rows of X per block (a thread's unit of work); fewer for small X
  int centre_block = 1024;  // centres per GEMM call; a thread holds row_block x centre_block floats
  BlasScreen screen = BlasScreen::kAuto;  // the candidate screen (above); narrow screens round centre_block up to 32s
  std::optional<AutoScreen> auto_choice = std::nullopt;  // auto: this instead of auto_screen()
  ScreenStats* stats = nullptr;  // where every search adds its counters (null: none kept)
  // Narrow screens round residuals from the centres' mean where the centres share a common part
  // (screen::choose_shift; compute/impl/search_bound.hpp, "Shifted screens"); false: never (comparisons).
  bool screen_shift = true;
  // > 0: candidates per row above which a block hands the rest of a search to the next screen of
  // the cascade (int8, bf16, fp32), for every screen; 0: each screen's measured limit (tests set it
  // to run the whole cascade).
  double cascade_limit = 0.0;
};

class BlasKernel final : public NearestCentreKernel {
 public:
  explicit BlasKernel(BlasKernelOptions options = {});
  std::string name() const override { return "blas"; }
  int threads() const override { return threads_; }
  // The screen of a search with `centres` centres, auto resolved: kFp32 or a narrow screen that
  // runs here (a search whose data the screen cannot take still screens in fp32).
  BlasScreen screen_for(Eigen::Index centres) const;
  void search(const MatrixF& x, const MatrixF& centres, Metric metric,
              std::span<std::int32_t> nearest, std::span<double> score) const override;
  void search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                std::span<std::int32_t> nearest, std::span<double> score) const override;
  // One screen for both directions: each block of X C^T also folds into every centre's state
  // (its smallest upper bound over the rows, and the rows that may beat it), and each centre then
  // rescores its candidate rows exactly. The norms, the bf16 rounding and the GEMM are shared.
  void search_mutual(const MatrixF& x, const MatrixF& centres, Metric metric, std::span<std::int32_t> nearest,
                     std::span<double> score, std::span<std::int32_t> centre_nearest,
                     std::span<double> centre_score) const override;

 private:
  // search_k, and with `centre_nearest` non-empty the centres' side of search_mutual.
  void run(const MatrixF& x, const MatrixF& centres, Metric metric, int k, std::span<std::int32_t> nearest,
           std::span<double> score, std::span<std::int32_t> centre_nearest, std::span<double> centre_score) const;

  int threads_;
  int row_block_;
  int centre_block_;
  BlasScreen screen_;  // kAuto here: auto_ decides by the number of centres
  AutoScreen auto_;
  ScreenStats* stats_;
  bool screen_shift_;
  double cascade_limit_;
};

}  // namespace secpe
