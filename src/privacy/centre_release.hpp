#pragma once
// One centre of SecPE's release (cluster/secret_clustering.hpp has the formulas and why), written
// once for the host (SecretClustering::release) and for CUDA devices (compute/cuda: the release
// on a GPU), so that both give the same bits: the noisy size first, then each coordinate's noisy
// mean, all from the centre's one secret stream in that order (noise: anything with normal(), a
// SecretRng or a device's SecretNormals), each operation rounded on its own.
#include <cstdint>

#include "core/host_device.hpp"
#include "core/ieee_ops.hpp"
#include "privacy/noisy_release.hpp"

namespace secpe {

// What every coordinate of a centre's release shares: its noise and 1 / its members.
struct CentreCoordinates {
  GaussianRelease noise;
  double n_pub, inv_members;
};

// n_pub: the centre's public size, m_pri: its sampled private rows.
SECPE_HOST_DEVICE inline CentreCoordinates centre_coordinates(double n_pub, double m_pri, double sigma, double clip_radius) {
  using namespace ieee;
  // A public cluster left empty by k-means (duplicate rows) counts as size 1 for the noise scale.
  const GaussianRelease noise(mul_rn(div_rn(mul_rn(2.0, clip_radius), n_pub > 1.0 ? n_pub : 1.0), sigma));
  const double members = add_rn(n_pub, m_pri);
  return {noise, n_pub, div_rn(1.0, members > 1.0 ? members : 1.0)};
}

// A coordinate's mean before noise: sum, its fixed-point sum (compute/impl/fixed_point.hpp, 2^-32
// units); public_value, the public centre's coordinate (clipped).
SECPE_HOST_DEVICE inline double centre_mean(const CentreCoordinates& c, long long sum, float public_value) {
  using namespace ieee;
  const double fixed_sum = div_rn(static_cast<double>(sum), 4294967296.0);  // from_fixed
  return mul_rn(add_rn(mul_rn(c.n_pub, static_cast<double>(public_value)), fixed_sum), c.inv_members);
}

// The centre's noisy mean into out[0 .. d), its noisy size returned. sum(j): coordinate j of the
// fixed-point sum of its m_pri sampled private rows (an array on the host; summed on the fly on a
// device); public_row: its public centre clipped to clip_radius; n_pub: its public size.
template <typename Noise, typename Sum>
SECPE_HOST_DEVICE inline double release_centre(Noise& noise, const Sum& sum, const float* public_row, long long d, double n_pub,
                                               double m_pri, double sigma, double clip_radius, float* out) {
  const double size = noisy_release(ieee::add_rn(n_pub, m_pri), sigma, noise);
  const CentreCoordinates c = centre_coordinates(n_pub, m_pri, sigma, clip_radius);
  for (long long j = 0; j < d; ++j) out[j] = static_cast<float>(c.noise(centre_mean(c, sum(j), public_row[j]), noise));
  return size;
}

}  // namespace secpe
