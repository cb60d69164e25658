#pragma once
// Nearest-centre search: for each row of X, the nearest row of C. One interface (FAISS-style
// Index), several kernels behind it; every kernel must agree with the reference kernel,
// ties going to the lowest centre index. The factory and the interface's defaults are in
// compute/nearest.cpp; the arithmetic the backends share in compute/impl/; the backends in
// compute/cpu/ and compute/cuda/; their benchmarks in src/bench/.
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "compute/metric.hpp"
#include "core/enum_names.hpp"
#include "core/matrix.hpp"

namespace secpe {

class SecretStreamFamily;  // core/secret_rng.hpp

inline constexpr EnumNames<Metric, 3> kMetricNames{{{Metric::kL2, "l2"}, {Metric::kInnerProduct, "ip"}, {Metric::kCosine, "cosine"}}};
inline Metric parse_metric(const std::string& name) { return parse_name(kMetricNames, name, "the metric"); }
inline std::string metric_name(Metric metric) { return std::string(name_of(kMetricNames, metric)); }

// Rows a kernel keeps for repeated searches and sums (FAISS-style: added once, searched many
// times): k-means' rows, Aug-PE's voters. A GPU kernel holds a copy of them and their exact norms
// in device memory while the handle lives (when the device has room for them); the CPU kernels
// keep nothing but this view. A plain KeptRows is the view alone, for rows used once.
// The rows must outlive the handle and stay unchanged while it lives; the handle must not
// outlive the kernel that made it.
class KeptRows {
 public:
  explicit KeptRows(const MatrixF& rows) : rows_(&rows) {}
  KeptRows(const KeptRows&) = delete;
  KeptRows& operator=(const KeptRows&) = delete;
  virtual ~KeptRows() = default;
  const MatrixF& rows() const { return *rows_; }

 private:
  const MatrixF* rows_;
};

// A copy of a matrix that a kernel made itself and still holds (a GPU: in its memory): SecPE's
// release on a GPU leaves the released centres there (NoisyClusters::device_copy). A search given
// it (SearchTask::centres_copy) reads the copy instead of uploading the matrix, when it stands for
// that matrix (the same data and shape, e.g. after the matrix was moved); the matrix must stay
// unchanged while its copy is used. Another kernel's copy is ignored.
class DeviceCopy {
 public:
  explicit DeviceCopy(const MatrixF& m) : data_(m.data()), rows_(m.rows()), cols_(m.cols()) {}
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  virtual ~DeviceCopy() = default;
  bool stands_for(const MatrixF& m) const { return m.data() == data_ && m.rows() == rows_ && m.cols() == cols_; }

 private:
  const float* data_;
  Eigen::Index rows_, cols_;
};

// One search of a batch (NearestCentreKernel::search_batch): search_k of x against centres, and
// with centre_nearest non-empty (k = 1) search_mutual's other direction as well.
struct SearchTask {
  const KeptRows* x = nullptr;
  const MatrixF* centres = nullptr;
  const DeviceCopy* centres_copy = nullptr;  // the kernel's copy of the centres, if it has one
  int k = 1;
  std::span<std::int32_t> nearest;
  std::span<double> score;
  std::span<std::int32_t> centre_nearest = {};
  std::span<double> centre_score = {};
};

// One label's part of SecPE's release (cluster/secret_clustering.hpp) for
// NearestCentreKernel::noisy_centre_means: `mine` centres from global index `first`, each released
// by privacy/centre_release.hpp from the fixed-point sum of its sampled rows and its secret stream
// (stream first + i of `noise`, the label's (kNoise, label, iteration) family).
struct NoisyMeansTask {
  const KeptRows* rows = nullptr;         // the label's clipped private rows on this rank (kept)
  const MatrixF* arrived = nullptr;       // sampled rows sent by other ranks (may be empty)
  // Centre i's sampled rows are members[start[i] .. start[i + 1]): v >= 0 is row v of `rows`,
  // v < 0 row -1 - v of `arrived`.
  std::span<const std::int64_t> members;
  std::span<const std::size_t> start;     // mine + 1 entries
  const KeptRows* public_part = nullptr;  // every public centre clipped to the radius (K x d, kept)
  std::span<const std::int64_t> public_sizes;  // K
  std::uint64_t first = 0;
  const SecretStreamFamily* noise = nullptr;
  double sigma = 0.0, clip_radius = 0.0;
  MatrixF* centres = nullptr;             // out: mine x d, released
  std::span<double> sizes;                // out: mine, released
  std::shared_ptr<const DeviceCopy>* copy = nullptr;  // out (optional): the kernel's copy of the released centres, if it keeps one
};

// The host's release of centres [begin, end) of the task (the default noisy_centre_means, and what
// a GPU kernel's built-in check compares its release with), on `threads` threads.
void noisy_means_on_host(const NoisyMeansTask& task, std::size_t begin, std::size_t end, int threads);

class NearestCentreKernel {
 public:
  virtual ~NearestCentreKernel() = default;
  virtual std::string name() const = 0;
  // nearest[i] = argmin_k score(X_i, C_k), with score the squared L2 distance (kL2), the
  // negated inner product (kInnerProduct) or the negated cosine (kCosine); score[i] its value.
  // Every kernel returns exactly what ReferenceKernel returns: the same index and the same score,
  // bit for bit, whatever its blocking or thread count.
  // InputErrors (naming the row or centre by index): no centres, a dimension mismatch, a NaN or
  // infinite value in a row or a centre, a zero row or centre under cosine. An empty X is no error.
  virtual void search(const MatrixF& x, const MatrixF& centres, Metric metric,
                      std::span<std::int32_t> nearest, std::span<double> score) const = 0;
  // The k nearest centres of each row, best first: nearest[i*k + j], score[i*k + j] for j < k, in
  // ascending score, ties by the lower centre index (so search_k with k = 1 equals search).
  // 1 <= k <= centres.rows(), else an InputError; the spans hold at least x.rows() * k entries.
  // The default implementation is the reference one; kernels override it with a faster one.
  virtual void search_k(const MatrixF& x, const MatrixF& centres, Metric metric, int k,
                        std::span<std::int32_t> nearest, std::span<double> score) const;
  // Both directions at once: search(x, centres) into nearest/score, and each centre's nearest row
  // of x, search(centres, x), into centre_nearest/centre_score (spans of at least centres.rows()).
  // Nothing is searched when x has no rows. The results and errors are those of the two searches,
  // bit for bit; the default runs them one after the other, and a kernel may share their work.
  virtual void search_mutual(const MatrixF& x, const MatrixF& centres, Metric metric, std::span<std::int32_t> nearest,
                             std::span<double> score, std::span<std::int32_t> centre_nearest,
                             std::span<double> centre_score) const;
  // Per-centre sums in fixed point (compute/impl/fixed_point.hpp): for every row i of x with include[i]
  // set (every row when include is empty), sums[c*d + j] += round(x_ij 2^32) (to nearest, ties to
  // even) and counts[c] += 1, c = centre_of[i]. Integer arithmetic, so the result is exact and the
  // same for any blocking, thread count or backend. The default is the CPU implementation
  // (compute/cpu/centre_sums.cpp), threaded over threads().
  virtual void add_to_centres(const MatrixF& x, std::span<const std::int32_t> centre_of, std::span<const std::uint8_t> include,
                              std::span<std::int64_t> sums, std::span<std::int64_t> counts) const;
  // Kept rows (above): the default keeps only the view.
  virtual std::unique_ptr<KeptRows> keep(const MatrixF& rows) const;
  // Several searches at once, each with the results and errors it would have alone (the first
  // task's error is thrown first); k = 1 tasks are search(), mutual ones search_mutual(). The
  // default runs them one after the other; a GPU kernel uploads every task's centres at once,
  // queues all the searches and waits once.
  virtual void search_batch(std::span<const SearchTask> tasks, Metric metric) const;
  // One search of kept rows (a batch of one).
  void search_kept(const KeptRows& x, const MatrixF& centres, Metric metric, int k, std::span<std::int32_t> nearest,
                   std::span<double> score) const;
  // add_to_centres of kept rows: the same sums; a GPU kernel reads the rows where it keeps them.
  virtual void add_kept_to_centres(const KeptRows& x, std::span<const std::int32_t> centre_of,
                                   std::span<const std::uint8_t> include, std::span<std::int64_t> sums,
                                   std::span<std::int64_t> counts) const {
    add_to_centres(x.rows(), centre_of, include, sums, counts);
  }
  // SecPE's release of several labels' centres (NoisyMeansTask): the default runs on the host
  // threads; a GPU kernel releases every task's centres at once on the device (the same bits:
  // privacy/centre_release.hpp), checked against the host (compute/cuda/cuda_backend.hpp).
  virtual void noisy_centre_means(std::span<const NoisyMeansTask> tasks) const;
  // Worker threads the kernel uses (1 unless it says otherwise).
  virtual int threads() const { return 1; }
  // Whether a pass over some of the kept rows (searched as a matrix of their own, or summed under
  // `include`) costs about their share of a pass over all of them, as on the CPU. A GPU kernel
  // passes over the rows it keeps in device memory faster than it uploads a few: k-means' Lloyd
  // iterations then search and sum every row (cluster/lloyd_assignment.hpp).
  virtual bool partial_passes_pay() const { return true; }
};

// The CPU's kernel named "reference" (compute/cpu/reference_kernel.hpp) or "blas"
// (compute/cpu/blas_kernel.hpp) with `threads` workers (0: SECPE_THREADS if set, else the
// hardware's; the reference kernel uses one); an unknown name is an InputError. A device's kernel
// (a GPU's in this one's place) comes from its kind: devices/device_kind.hpp.
std::unique_ptr<NearestCentreKernel> make_kernel(const std::string& name, int threads = 0);
// make_kernel's check of the name alone, for a device that takes the CPU kernel's place.
void check_kernel_name(const std::string& name);

}  // namespace secpe
