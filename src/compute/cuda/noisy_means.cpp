// SecPE's release on the device (NearestCentreKernel::noisy_centre_means): every label's centres in
// one upload (the sampled rows' indices, the public sizes, rows sent by other ranks, the labels'
// noise subkeys), one launch (noisy_means.cu: a thread per centre sums its rows and draws its secret
// stream) and one download (the released centres and sizes). The private rows and the public
// centres are read where the kernel keeps them, and the released centres stay on the device for
// the votes' search (DeviceCentres, with their exact norms). The bits are the host's
// (privacy/centre_release.hpp is the same code on both), and the built-in check holds the device
// to that: the first release against the host's release of every centre, later ones on one
// centre per label; a difference, or any CUDA error, sends this release and every later one to
// the host.
#include <sodium.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include "compute/cuda/cuda_kernel_impl.hpp"
#include "compute/impl/exact_score.hpp"
#include "compute/impl/gpu_plan.hpp"
#include "core/parallel.hpp"
#include "core/secret_rng.hpp"

namespace secpe {
namespace {


// Zeroes the host's copy of the subkeys on every way out.
class ZeroOnExit {
 public:
  ZeroOnExit(void* p, std::size_t n) : p_(p), n_(n) {}
  ZeroOnExit(const ZeroOnExit&) = delete;
  ZeroOnExit& operator=(const ZeroOnExit&) = delete;
  ~ZeroOnExit() { sodium_memzero(p_, n_); }

 private:
  void* p_;
  std::size_t n_;
};

// The upload's blocks: the labels' descriptors, the ziggurat's tables, then per label its
// members, centre offsets, public sizes and arrived rows.
std::vector<std::size_t> upload_sizes(std::span<const NoisyMeansTask* const> live) {
  std::vector<std::size_t> sizes{live.size() * sizeof(NoisyMeansLabel), sizeof(SecretZiggurat)};
  for (const NoisyMeansTask* t : live) {
    sizes.insert(sizes.end(), {8 * t->members.size(), 8 * t->start.size(), 8 * t->public_sizes.size(),
                               sizeof(float) * static_cast<std::size_t>(t->arrived->size())});
  }
  return sizes;
}

// Label q's inputs into the staging buffer at its blocks (2 + 4q ...).
void stage_label(const NoisyMeansTask& t, unsigned char* h, const gpu::Packing& in, std::size_t q) {
  const auto at = [&](std::size_t b) { return h + in.offsets[2 + 4 * q + b]; };
  if (!t.members.empty()) std::memcpy(at(0), t.members.data(), 8 * t.members.size());
  auto* start = reinterpret_cast<std::int64_t*>(at(1));
  for (std::size_t i = 0; i < t.start.size(); ++i) start[i] = static_cast<std::int64_t>(t.start[i]);
  std::memcpy(at(2), t.public_sizes.data(), 8 * t.public_sizes.size());
  if (t.arrived->size() > 0) std::memcpy(at(3), t.arrived->data(), sizeof(float) * static_cast<std::size_t>(t.arrived->size()));
}

}  // namespace

void CudaKernelImpl::noisy_centre_means(std::span<const NoisyMeansTask> tasks) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  bool device = options_.device_release && !safe_;
  for (const NoisyMeansTask& t : tasks) {
    if (t.sizes.empty()) continue;
    const DeviceKeptRows* rows = ours(*t.rows);
    const DeviceKeptRows* pub = ours(*t.public_part);
    device = device && pub && pub->resident && (t.rows->rows().rows() == 0 || (rows && rows->resident));
  }
  if (device) {
    try {
      if (release_on_device(tasks)) return;
    } catch (const std::runtime_error& e) {
      context_.drain();
      if (context_.release_io.din.get()) cudaMemset(context_.release_io.din.get(), 0, tasks.size() * sizeof(NoisyMeansLabel));  // the subkeys
      cudaGetLastError();
      fail(std::string("SecPE's release on the device failed: ") + e.what());
    }
  }
  NearestCentreKernel::noisy_centre_means(tasks);
}

std::shared_ptr<ReleasedBatch> CudaKernelImpl::released_batch(std::size_t floats, std::size_t doubles) const {
  // A buffer no copy refers to any more (only this list holds it) and large enough, else a new one;
  // at most two idle ones are kept.
  std::size_t idle = 0;
  for (auto it = released_.begin(); it != released_.end();) {
    if (it->use_count() == 1 && (*it)->centres_capacity >= floats && (*it)->norms_capacity >= doubles) return *it;
    if (it->use_count() == 1 && ++idle > 2) {
      it = released_.erase(it);
    } else {
      ++it;
    }
  }
  auto batch = std::make_shared<ReleasedBatch>();
  batch->centres.reserve(floats), batch->norms.reserve(doubles);
  batch->centres_capacity = floats, batch->norms_capacity = doubles;
  released_.push_back(batch);
  return batch;
}

bool CudaKernelImpl::release_on_device(std::span<const NoisyMeansTask> tasks) const {
  std::vector<const NoisyMeansTask*> live;  // the tasks with centres on this rank
  for (const NoisyMeansTask& t : tasks)
    if (!t.sizes.empty()) live.push_back(&t);
  if (live.empty()) return true;
  const std::size_t n = live.size();
  const auto d = static_cast<std::size_t>(live.front()->public_part->rows().cols());
  std::size_t total = 0;
  for (const NoisyMeansTask* t : live) {
    if (static_cast<std::size_t>(t->public_part->rows().cols()) != d || t->start.size() != t->sizes.size() + 1)
      throw std::logic_error("noisy_centre_means: the labels' shapes do not match");
    total += t->sizes.size();
  }
  std::optional<PhaseClock> clock(std::in_place, timed(), DevicePhase::kReleaseHost);
  const gpu::Packing in = gpu::pack(upload_sizes(live), gpu::kPackAlign);
  SECPE_CUDA_CHECK(cudaSetDevice(context_.device()));
  DrainOnExit drain(context_);
  cuda::Context::ReleaseIo& r = context_.release_io;
  r.in.reserve(std::max(in.total, 24 * total)), r.din.reserve(in.total);  // the staging also takes the norms' upload
  const std::size_t sizes_at = (4 * total * d + 7) / 8 * 8;  // the sizes after the centres in the download
  r.out.reserve(sizes_at + 8 * total), r.dout.reserve(8 * total);
  const std::shared_ptr<ReleasedBatch> batch = released_batch(total * d, 3 * total);
  unsigned char* h = r.in.get();
  const unsigned char* din = r.din.get();
  auto* labels = reinterpret_cast<NoisyMeansLabel*>(h + in.offsets[0]);
  const ZeroOnExit zero_keys(labels, n * sizeof(NoisyMeansLabel));
  std::memcpy(h + in.offsets[1], &secret_ziggurat(), sizeof(SecretZiggurat));
  std::int64_t centre0 = 0;
  for (std::size_t q = 0; q < n; ++q) {
    const NoisyMeansTask& t = *live[q];
    stage_label(t, h, in, q);
    const DeviceKeptRows* rows = ours(*t.rows);
    const auto mine = static_cast<std::int64_t>(t.sizes.size());
    const auto block = [&](std::size_t b) { return din + in.offsets[2 + 4 * q + b]; };
    NoisyMeansLabel& l = labels[q];
    const std::array<std::uint32_t, 8> key = t.noise->subkey_words();
    std::copy(key.begin(), key.end(), l.key);
    l.rows = rows && rows->resident ? rows->data.get() : nullptr;
    l.members = reinterpret_cast<const std::int64_t*>(block(0));
    l.start = reinterpret_cast<const std::int64_t*>(block(1));
    l.public_sizes = reinterpret_cast<const std::int64_t*>(block(2));
    l.arrived = reinterpret_cast<const float*>(block(3));
    l.public_part = ours(*t.public_part)->data.get();
    l.first = static_cast<std::int64_t>(t.first), l.mine = mine, l.centre0 = centre0, l.d = static_cast<std::int64_t>(d);
    l.sigma = t.sigma, l.clip_radius = t.clip_radius;
    l.centres = batch->centres.get() + static_cast<std::size_t>(centre0) * d;
    l.sizes = reinterpret_cast<double*>(r.dout.get()) + centre0;
    centre0 += mine;
  }
  cudaStream_t stream = context_.slot(0).stream;
  context_.timeline.start(stream);
  upload(r.din.get(), h, in.total, stream);
  context_.timeline.mark(DevicePhase::kUpload);
  cuda::launch_release(reinterpret_cast<const NoisyMeansLabel*>(din), static_cast<int>(n), static_cast<std::int64_t>(total),
                       reinterpret_cast<const SecretZiggurat*>(din + in.offsets[1]), stream);
  SECPE_CUDA_CHECK(cudaGetLastError());
  SECPE_CUDA_CHECK(cudaMemsetAsync(r.din.get(), 0, n * sizeof(NoisyMeansLabel), stream));  // the subkeys, once used
  context_.timeline.mark(DevicePhase::kRelease);
  auto* out_centres = reinterpret_cast<float*>(r.out.get());
  auto* out_sizes = reinterpret_cast<double*>(r.out.get() + sizes_at);
  download(out_centres, batch->centres.get(), total * d, stream);
  download(out_sizes, reinterpret_cast<const double*>(r.dout.get()), total, stream);
  context_.timeline.mark(DevicePhase::kDownload);
  clock.reset();  // the wait is its own phase
  wait(stream);
  clock.emplace(timed(), DevicePhase::kReleaseHost);
  run_chunks(threads(), n, [&](int, std::size_t b, std::size_t e) {  // the labels side by side: 100 MB at Yelp scale
    for (std::size_t q = b; q < e; ++q) {
      const NoisyMeansTask& t = *live[q];
      const auto at = static_cast<std::size_t>(labels[q].centre0);
      std::memcpy(t.centres->data(), out_centres + at * d, sizeof(float) * t.sizes.size() * d);
      std::memcpy(t.sizes.data(), out_sizes + at, sizeof(double) * t.sizes.size());
    }
  });
  if (options_.corrupt_release) {
    float& v = live.back()->centres->data()[live.back()->centres->size() - 1];
    v = std::nextafter(v, 1e30f);
  }
  clock.emplace(timed(), DevicePhase::kCheck);
  const bool full = !release_checked_;
  release_checked_ = true;
  if (!check_release(tasks, full)) return false;
  clock.reset();
  keep_released(live, batch);
  ++traffic_.releases;
  return true;
}

// The released centres' exact norms (host) and their triples (device, uploaded through the
// staging buffer), then each label's copy for the votes' search.
void CudaKernelImpl::keep_released(std::span<const NoisyMeansTask* const> live, const std::shared_ptr<ReleasedBatch>& batch) const {
  const std::size_t n = live.size();
  std::vector<std::vector<double>> norms(n);
  std::vector<std::size_t> at(n + 1, 0);
  for (std::size_t q = 0; q < n; ++q) at[q + 1] = at[q] + live[q]->sizes.size();
  auto* triple = reinterpret_cast<double*>(context_.release_io.in.get());
  {
    const PhaseClock clock(timed(), DevicePhase::kReleaseNorms);
    run_chunks(threads(), n, [&](int, std::size_t b, std::size_t e) {
      for (std::size_t q = b; q < e; ++q) {
        norms[q] = exact::norms(*live[q]->centres, 1);
        const std::size_t m = norms[q].size();
        for (std::size_t i = 0; i < m; ++i) {
          triple[3 * at[q] + i] = norms[q][i];
          triple[3 * at[q] + m + i] = norms[q][i] * norms[q][i];
          triple[3 * at[q] + 2 * m + i] = 1.0 / norms[q][i];
        }
      }
    });
  }
  cudaStream_t stream = context_.slot(0).stream;
  context_.timeline.start(stream);
  upload(batch->norms.get(), triple, 3 * at[n], stream);
  context_.timeline.mark(DevicePhase::kUpload);
  wait(stream);  // the staging buffer is the next release's
  const std::size_t d = static_cast<std::size_t>(live.front()->centres->cols());
  for (std::size_t q = 0; q < n; ++q) {
    if (!live[q]->copy) continue;
    *live[q]->copy = std::make_shared<DeviceCentres>(*live[q]->centres, this, batch, batch->centres.get() + at[q] * d,
                                                     batch->norms.get() + 3 * at[q], std::move(norms[q]));
  }
}

// The host's release of every centre (full) or of each label's last centre, against the device's.
bool CudaKernelImpl::check_release(std::span<const NoisyMeansTask> tasks, bool full) const {
  for (const NoisyMeansTask& t : tasks) {
    const std::size_t mine = t.sizes.size();
    if (mine == 0) continue;
    const std::size_t begin = full ? 0 : mine - 1;
    MatrixF centres(t.centres->rows(), t.centres->cols());
    std::vector<double> sizes(mine);
    NoisyMeansTask host = t;
    host.centres = &centres, host.sizes = sizes, host.copy = nullptr;
    noisy_means_on_host(host, begin, mine, threads());
    const auto d = static_cast<std::size_t>(centres.cols());
    for (std::size_t i = begin; i < mine; ++i) {
      const auto row = static_cast<Eigen::Index>(i);
      if (std::memcmp(centres.row(row).data(), t.centres->row(row).data(), d * sizeof(float)) != 0 ||
          std::memcmp(&sizes[i], &t.sizes[i], sizeof(double)) != 0) {
        fail("SecPE's release of centre " + std::to_string(t.first + i) + " of a label on the device differs from the host's");
        return false;
      }
    }
  }
  return true;
}

}  // namespace secpe
