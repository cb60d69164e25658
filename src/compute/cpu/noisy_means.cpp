// SecPE's release of centres on the host threads (NearestCentreKernel::noisy_centre_means' default):
// each centre's sum is made where its noise is added, in a buffer that stays in cache, so no
// K x d array of sums is cleared, filled and read again; centres are shared out over the threads
// (each has its own stream, so the values do not depend on which thread draws them). A centre's
// d + 1 normals are drawn together (SecretRng::normals: the same values as one at a time), then
// released eight coordinates at a time where the CPU can (compute/cpu/centre_lanes.hpp: the same
// bits as release_centre).
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "compute/cpu/centre_lanes.hpp"
#include "compute/impl/fixed_point.hpp"
#include "compute/nearest.hpp"
#include "core/parallel.hpp"
#include "core/secret_rng.hpp"

namespace secpe {

void noisy_means_on_host(const NoisyMeansTask& task, std::size_t begin, std::size_t end, int threads) {
  const MatrixF& rows = task.rows->rows();
  const MatrixF& pub = task.public_part->rows();
  const Eigen::Index d = pub.cols();
  const auto kd = static_cast<std::size_t>(d);
  const auto row_of = [&](std::int64_t v) {
    return v >= 0 ? rows.row(static_cast<Eigen::Index>(v)).data() : task.arrived->row(static_cast<Eigen::Index>(-1 - v)).data();
  };
  run_chunks(chunk_count(threads, end - begin, 20.0 * double(d)), end - begin, [&](int, std::size_t b, std::size_t e) {
    std::vector<std::int64_t> sum(kd);
    std::vector<double> normals(kd + 1);
    for (std::size_t i = begin + b; i < begin + e; ++i) {
      const std::uint64_t c = task.first + i;
      std::fill(sum.begin(), sum.end(), 0);
      for (std::size_t q = task.start[i]; q < task.start[i + 1]; ++q) add_fixed_point(sum.data(), row_of(task.members[q]), d);
      task.noise->stream(c).normals(normals);
      task.sizes[i] = release_centre_drawn(normals.data(), sum.data(), pub.row(static_cast<Eigen::Index>(c)).data(), d,
                                           double(task.public_sizes[c]), double(task.start[i + 1] - task.start[i]), task.sigma,
                                           task.clip_radius, task.centres->row(static_cast<Eigen::Index>(i)).data());
    }
  });
}

void NearestCentreKernel::noisy_centre_means(std::span<const NoisyMeansTask> tasks) const {
  for (const NoisyMeansTask& t : tasks) noisy_means_on_host(t, 0, t.sizes.size(), threads());
}

}  // namespace secpe
