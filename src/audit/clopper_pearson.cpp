#include "audit/clopper_pearson.hpp"

#include <boost/math/special_functions/beta.hpp>

#include <string>

#include "core/error.hpp"

namespace secpe {
namespace {

void check(std::int64_t k, std::int64_t n, double gamma) {
  if (n < 1 || k < 0 || k > n)
    throw InputError("Clopper-Pearson: need 0 <= successes <= trials and trials >= 1 (got " + std::to_string(k) + " of " + std::to_string(n) + ")");
  if (!(gamma > 0.0 && gamma < 1.0)) throw InputError("Clopper-Pearson: the error level must be in (0, 1)");
}

}  // namespace

double clopper_pearson_lower(std::int64_t k, std::int64_t n, double gamma) {
  check(k, n, gamma);
  if (k == 0) return 0.0;
  return boost::math::ibeta_inv(static_cast<double>(k), static_cast<double>(n - k + 1), gamma);
}

double clopper_pearson_upper(std::int64_t k, std::int64_t n, double gamma) {
  check(k, n, gamma);
  if (k == n) return 1.0;
  // ibetac_inv takes the upper-tail probability gamma directly: no cancellation in 1 - gamma.
  return boost::math::ibetac_inv(static_cast<double>(k + 1), static_cast<double>(n - k), gamma);
}

}  // namespace secpe
