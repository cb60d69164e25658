#pragma once
// SecPE's release on a GPU, one thread per centre: what the host hands over for each label
// (compute/cuda/noisy_means.cpp) and what a thread does with it (compute/cuda/noisy_means.cu),
// plain C++17 for the host and the device alike, so that the unit test runs the device's code on
// the CPU against the host's release (tests/unit/secret_normal_test.cpp).
#include <cstdint>

#include "core/chacha20_block.hpp"
#include "core/host_device.hpp"
#include "core/ieee_ops.hpp"
#include "core/secret_normal.hpp"
#include "privacy/centre_release.hpp"

namespace secpe {

// One label of the release (NoisyMeansTask): its centre i (global index first + i) is thread
// centre0 + i of the launch. Device pointers on a GPU.
struct NoisyMeansLabel {
  std::uint32_t key[8];             // the label's noise family's subkey (zeroed after the launch)
  const float* rows;                // the label's private rows (kept), d floats each
  const float* arrived;             // rows sent by other ranks
  const std::int64_t* members;      // NoisyMeansTask::members
  const std::int64_t* start;        // mine + 1
  const float* public_part;         // K x d (kept)
  const std::int64_t* public_sizes; // K
  std::int64_t first, mine, centre0, d;
  double sigma, clip_radius;
  float* centres;                   // out: mine x d
  double* sizes;                    // out: mine
};

// A centre's normals: its stream's words through the secret ziggurat.
struct StreamNormals {
  chacha20::BlockStream words;
  const SecretZiggurat* tables;
  SECPE_HOST_DEVICE double normal() { return secret_normal(words, *tables); }
};

// The label of thread g: the last whose first thread is at or before g (labels by centre0).
SECPE_HOST_DEVICE inline int label_of(const NoisyMeansLabel* labels, int n_labels, std::int64_t g) {
  int lo = 0, hi = n_labels - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (labels[mid].centre0 <= g) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Centre i of label t: its fixed-point sum made on the fly (rounded as add_fixed_point rounds),
// its stream first + i, the release of privacy/centre_release.hpp.
SECPE_HOST_DEVICE inline void noisy_means_of_centre(const NoisyMeansLabel& t, std::int64_t i, const SecretZiggurat* tables) {
  const std::int64_t c = t.first + i, b = t.start[i], e = t.start[i + 1];
  const auto sum = [&](long long j) {
    long long s = 0;
    for (std::int64_t q = b; q < e; ++q) {
      const std::int64_t v = t.members[q];
      const float* row = v >= 0 ? t.rows + v * t.d : t.arrived + (-1 - v) * t.d;
      s += ieee::to_int64_rn(ieee::mul_rn(static_cast<double>(row[j]), 4294967296.0));
    }
    return s;
  };
  StreamNormals noise{chacha20::BlockStream(t.key, static_cast<std::uint64_t>(c)), tables};
  t.sizes[i] = release_centre(noise, sum, t.public_part + c * t.d, t.d, static_cast<double>(t.public_sizes[c]),
                              static_cast<double>(e - b), t.sigma, t.clip_radius, t.centres + i * t.d);
}

}  // namespace secpe
