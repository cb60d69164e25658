#include "privacy/log_mgf.hpp"

#include <vector>

namespace secpe {
namespace {
// Below this, Horner's sum may have lost terms to underflow (each under 1e-308, a relative 1e-108).
constexpr double kHornerFloor = 1e-200;
}  // namespace

double atoms_log_mgf_reference(std::span<const double> log_w, double centre, double lambda) {
  return log_mgf(log_w.size(), [centre](std::size_t i) { return static_cast<double>(i) - centre; }, log_w.data(), lambda);
}

double atoms_log_mgf(std::span<const double> w, double centre, double lambda) {
  const std::size_t n = w.size();
  const double s = std::exp(-std::abs(lambda));
  double acc = 0.0;
  if (lambda > 0.0) {
    for (std::size_t i = 0; i < n; ++i) acc = acc * s + w[i];
  } else {
    for (std::size_t i = n; i-- > 0;) acc = acc * s + w[i];
  }
  if (!(acc >= kHornerFloor)) {
    std::vector<double> log_w(n);
    for (std::size_t i = 0; i < n; ++i) log_w[i] = w[i] > 0.0 ? std::log(w[i]) : -std::numeric_limits<double>::infinity();
    return atoms_log_mgf_reference(log_w, centre, lambda);
  }
  const double end = lambda > 0.0 ? static_cast<double>(n - 1) : 0.0;  // the atom whose term is acc's unit
  return lambda * (end - centre) + std::log(acc);
}

}  // namespace secpe
