#pragma once
// One-sided Clopper-Pearson bounds on a binomial proportion: from k successes in n independent
// trials, bounds that hold with probability at least 1 - gamma whatever the true proportion
// (exact, hence conservative, since they invert the binomial distribution itself rather than a
// normal approximation). The empirical privacy audit (audit/privacy_audit.hpp) uses them on the
// false- and true-positive rates of its attacks.
//   lower: the gamma quantile of Beta(k, n - k + 1)      (0 when k = 0)
//   upper: the 1 - gamma quantile of Beta(k + 1, n - k)  (1 when k = n)
// InputError unless n >= 1, 0 <= k <= n and gamma in (0, 1) (NaN rejected).
#include <cstdint>

namespace secpe {

double clopper_pearson_lower(std::int64_t k, std::int64_t n, double gamma);
double clopper_pearson_upper(std::int64_t k, std::int64_t n, double gamma);

}  // namespace secpe
