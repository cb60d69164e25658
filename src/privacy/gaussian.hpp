#pragma once
// Standard normal distribution functions, accurate in the tails (double precision).
namespace secpe {

double normal_cdf(double x);        // Phi(x)
double normal_sf(double x);         // 1 - Phi(x), without cancellation for large x
double normal_quantile(double p);   // Phi^{-1}(p), p in (0, 1); InputError otherwise (NaN too)
double normal_logcdf(double x);     // log Phi(x), finite (no underflow) for any finite x

}  // namespace secpe
