#include "privacy/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/error.hpp"

namespace secpe {
namespace {

template <typename T>
[[noreturn]] void reject(const char* function, const std::string& quantity, const char* requirement, T value) {
  std::ostringstream msg;
  msg.precision(17);
  msg << function << ": " << quantity << " must be " << requirement << ", got " << value;
  throw InputError(msg.str());
}

void check_iteration_count(const char* function, int iterations) {
  if (iterations < 1) reject(function, "iterations", ">= 1", iterations);
}

}  // namespace

double uniform_share_weight(const std::vector<std::int32_t>& secrets_of_record, const std::vector<double>& eta,
                            const std::vector<std::int64_t>& holders) {
  constexpr const char* kFn = "uniform_share_weight";
  if (eta.size() != holders.size()) {
    std::ostringstream msg;
    msg << kFn << ": eta has " << eta.size() << " entries but holders has " << holders.size();
    throw InputError(msg.str());
  }
  double w = 1.0;  // a record without secrets has no constraint: w = 1
  for (const std::int32_t j : secrets_of_record) {
    if (j < 0 || static_cast<std::size_t>(j) >= eta.size()) {
      std::ostringstream msg;
      msg << kFn << ": secret index " << j << " out of range [0, " << eta.size() << ")";
      throw InputError(msg.str());
    }
    const std::string which = "[secret " + std::to_string(j) + "]";
    const double e = eta[static_cast<std::size_t>(j)];
    const std::int64_t n = holders[static_cast<std::size_t>(j)];
    if (!(e > 0.0)) reject(kFn, "eta" + which, "> 0", e);  // +infinity (no protection) is allowed
    if (n <= 0) reject(kFn, "holders" + which, "> 0 for a secret the record holds", n);
    w = std::min(w, e / static_cast<double>(n));
  }
  return w;
}

BatchScaling scale_to_batch(double weight_sum, double weight_max, double batch) {
  constexpr const char* kFn = "scale_to_batch";
  if (!(weight_sum > 0.0 && std::isfinite(weight_sum))) reject(kFn, "weight sum", "finite and > 0", weight_sum);
  if (!(weight_max > 0.0 && weight_max <= weight_sum))
    reject(kFn, "weight maximum", "in (0, weight sum]", weight_max);
  if (!(batch > 0.0 && std::isfinite(batch))) reject(kFn, "batch", "finite and > 0", batch);
  BatchScaling out;
  const double largest = weight_sum / weight_max;  // the batch at which max rho_i reaches 1
  if (batch > largest) {
    out.batch = largest;
    out.scale = 1.0 / weight_max;
    out.lowered = true;
  } else {
    out.batch = batch;
    out.scale = batch / weight_sum;
  }
  // Guard against rounding pushing the largest probability above 1.
  while (out.scale * weight_max > 1.0) out.scale = std::nextafter(out.scale, 0.0);
  return out;
}

double paper_sigma(double expected_count, double eta, int iterations) {
  constexpr const char* kFn = "paper_sigma";
  check_iteration_count(kFn, iterations);
  if (!(expected_count >= 0.0 && std::isfinite(expected_count)))
    reject(kFn, "expected count", "finite and >= 0", expected_count);
  if (!(eta > 0.0)) reject(kFn, "eta", "> 0", eta);
  return std::sqrt(static_cast<double>(iterations)) * expected_count / eta;
}

double gdp_sigma(double mu, int iterations) {
  constexpr const char* kFn = "gdp_sigma";
  check_iteration_count(kFn, iterations);
  if (!(mu > 0.0 && std::isfinite(mu))) reject(kFn, "mu", "finite and > 0", mu);
  return std::sqrt(static_cast<double>(iterations)) / mu;
}

}  // namespace secpe
