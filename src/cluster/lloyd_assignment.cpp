#include "cluster/lloyd_assignment.hpp"

#include <cstring>
#include <vector>

namespace secpe {

namespace {

// The incremental step is taken when it scores fewer than this share of a full search's pairs
// (searching a few centres at a time costs more per pair than searching them all).
constexpr double kIncrementalShare = 0.75;

bool same_row(const MatrixF& a, const MatrixF& b, Eigen::Index r) {
  return std::memcmp(a.row(r).data(), b.row(r).data(), sizeof(float) * static_cast<std::size_t>(a.cols())) == 0;
}

}  // namespace

LloydAssignment::LloydAssignment(const KeptRows& kept, const NearestCentreKernel& kernel, Metric metric, bool incremental)
    : kept_(kept), kernel_(kernel), metric_(metric), incremental_(incremental) {}

void LloydAssignment::search_all(const MatrixF& centres, std::span<std::int32_t> nearest, std::span<double> score) {
  kernel_.search_kept(kept_, centres, metric_, 1, nearest, score);
  pairs_scored_ += kept_.rows().rows() * centres.rows();
}

void LloydAssignment::assign(const MatrixF& centres, std::span<std::int32_t> nearest, std::span<double> score) {
  const MatrixF& rows = kept_.rows();
  const Eigen::Index n = rows.rows(), k = centres.rows();
  const bool comparable = incremental_ && previous_.rows() == k && previous_.cols() == centres.cols();
  if (!comparable || n == 0) {
    if (n > 0) search_all(centres, nearest, score);
    previous_ = centres;
    return;
  }
  std::vector<std::int32_t> moved;  // centres that changed, ascending
  std::vector<std::uint8_t> has_moved(static_cast<std::size_t>(k), 0);
  for (Eigen::Index c = 0; c < k; ++c) {
    if (same_row(previous_, centres, c)) continue;
    moved.push_back(static_cast<std::int32_t>(c));
    has_moved[static_cast<std::size_t>(c)] = 1;
  }
  previous_ = centres;
  if (moved.empty()) return;  // every score the same: every answer the same
  std::vector<std::int64_t> lost;  // rows whose centre moved
  for (Eigen::Index i = 0; i < n; ++i)
    if (has_moved[static_cast<std::size_t>(nearest[static_cast<std::size_t>(i)])]) lost.push_back(i);
  const auto m = static_cast<Eigen::Index>(moved.size()), l = static_cast<Eigen::Index>(lost.size());
  if (double(n * m + l * k) > kIncrementalShare * double(n * k)) return search_all(centres, nearest, score);
  // Every row against the moved centres: a row whose centre stayed takes the better of the two.
  MatrixF moved_centres(m, centres.cols());
  for (Eigen::Index j = 0; j < m; ++j) moved_centres.row(j) = centres.row(moved[static_cast<std::size_t>(j)]);
  std::vector<std::int32_t> near_moved(static_cast<std::size_t>(n));
  std::vector<double> moved_score(static_cast<std::size_t>(n));
  kernel_.search_kept(kept_, moved_centres, metric_, 1, near_moved, moved_score);
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    if (has_moved[static_cast<std::size_t>(nearest[i])]) continue;
    const std::int32_t c = moved[static_cast<std::size_t>(near_moved[i])];
    if (moved_score[i] < score[i] || (moved_score[i] == score[i] && c < nearest[i])) {
      nearest[i] = c;
      score[i] = moved_score[i];
    }
  }
  // The rows whose centre moved, against every centre.
  if (l > 0) {
    MatrixF subset(l, rows.cols());
    for (Eigen::Index i = 0; i < l; ++i) subset.row(i) = rows.row(lost[static_cast<std::size_t>(i)]);
    std::vector<std::int32_t> best(static_cast<std::size_t>(l));
    std::vector<double> best_score(static_cast<std::size_t>(l));
    kernel_.search(subset, centres, metric_, best, best_score);
    for (std::size_t i = 0; i < lost.size(); ++i) {
      nearest[static_cast<std::size_t>(lost[i])] = best[i];
      score[static_cast<std::size_t>(lost[i])] = best_score[i];
    }
  }
  pairs_scored_ += n * m + l * k;
}

}  // namespace secpe
