// The screens' engines behind one interface: which run here, what they can screen, and the two
// formats' GEMMs (compute/cpu/bf16_gemm.hpp, compute/cpu/int8_gemm.hpp) as ScreenGemms.
#include "compute/cpu/screen_gemm.hpp"

#include <cmath>

#include "compute/cpu/bf16_gemm.hpp"
#include "compute/cpu/int8_gemm.hpp"

namespace secpe::screen {

bool available(Engine engine) {
  switch (engine) {
    case Engine::kBf16Amx: return bf16::amx_available();
    case Engine::kBf16Avx512: return bf16::avx512_bf16_available();
    case Engine::kInt8Avx512: return int8::avx512_vnni_available();
    case Engine::kInt8Avx: return int8::avx_vnni_available();
    case Engine::kBf16Emulated:
    case Engine::kInt8Emulated: return true;
  }
  return false;
}

std::string engine_name(Engine engine) {
  switch (engine) {
    case Engine::kBf16Amx: return "bf16 (AMX)";
    case Engine::kBf16Avx512: return "bf16 (AVX512-BF16)";
    case Engine::kBf16Emulated: return "bf16 (emulated)";
    case Engine::kInt8Avx512: return "int8 (AVX512-VNNI)";
    case Engine::kInt8Avx: return "int8 (AVX-VNNI)";
    case Engine::kInt8Emulated: return "int8 (emulated)";
  }
  return "?";
}

bool is_int8(Engine engine) {
  return engine == Engine::kInt8Avx512 || engine == Engine::kInt8Avx || engine == Engine::kInt8Emulated;
}

bool fits(Engine engine, Eigen::Index d, double min_norm, double max_norm) {
  if (d == 0) return false;
  if (!is_int8(engine)) return max_norm < 1e38;
  return d <= 65536 && min_norm >= 0x1p-40 && max_norm <= 0x1p40;
}

double relative_error_bound(double error, double norm, Eigen::Index d) {
  if (norm == 0.0) return 0.0;
  return std::sqrt(error / norm) * (1.0 + double(d + 4) * 0x1p-51);
}

namespace {

class Bf16Gemm final : public ScreenGemm {
 public:
  Bf16Gemm(Engine engine, const MatrixF& centres, int threads) : engine_(engine), centres_(centres, threads) {}
  Engine engine() const override { return engine_; }
  std::span<const double> centre_errors() const override { return centres_.relative_errors(); }
  long long roundings(Eigen::Index d) const override { return d; }
  void round_rows(const MatrixF& x, Eigen::Index r0, Eigen::Index rows, RoundedRows& out) const override {
    bf16::round_rows(x, r0, rows, out.bf16, out.errors);
  }
  void gemm(const RoundedRows& rows, Eigen::Index mbp, Eigen::Index c0, Eigen::Index nbp, float* g) const override {
    bf16::gemm(engine_, rows.bf16.data(), mbp, centres_, c0, nbp, g);
  }

 private:
  Engine engine_;
  bf16::PackedCentres centres_;
};

class Int8Gemm final : public ScreenGemm {
 public:
  Int8Gemm(Engine engine, const MatrixF& centres, int threads) : engine_(engine), centres_(centres, threads) {}
  Engine engine() const override { return engine_; }
  std::span<const double> centre_errors() const override { return centres_.relative_errors(); }
  long long roundings(Eigen::Index) const override { return 3; }
  void round_rows(const MatrixF& x, Eigen::Index r0, Eigen::Index rows, RoundedRows& out) const override {
    int8::round_rows(x, r0, rows, out);
  }
  void gemm(const RoundedRows& rows, Eigen::Index mbp, Eigen::Index c0, Eigen::Index nbp, float* g) const override {
    int8::gemm(engine_, rows, mbp, centres_, c0, nbp, g);
  }

 private:
  Engine engine_;
  int8::PackedCentres centres_;
};

}  // namespace

std::unique_ptr<ScreenGemm> make_screen_gemm(Engine engine, const MatrixF& centres, int threads) {
  if (is_int8(engine)) return std::make_unique<Int8Gemm>(engine, centres, threads);
  return std::make_unique<Bf16Gemm>(engine, centres, threads);
}

}  // namespace secpe::screen
