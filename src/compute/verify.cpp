#include "compute/verify.hpp"

#include <cstring>
#include <vector>

#include "compute/cpu/reference_kernel.hpp"
#include "core/error.hpp"

namespace secpe {
namespace {

void run(const NearestCentreKernel& kernel, const MatrixF& x, const MatrixF& centres, Metric metric, int k,
         std::vector<std::int32_t>& idx, std::vector<double>& score) {
  const std::size_t n = static_cast<std::size_t>(x.rows()) * static_cast<std::size_t>(k > 0 ? k : 1);
  idx.assign(n, -1);
  score.assign(n, 0.0);
  if (k == 1) {
    kernel.search(x, centres, metric, idx, score);
  } else {
    kernel.search_k(x, centres, metric, k, idx, score);
  }
}

}  // namespace

bool verify_against_reference(const NearestCentreKernel& kernel, const MatrixF& x, const MatrixF& centres,
                              Metric metric, std::string* report, int k) {
  auto say = [&](const std::string& line) {
    if (report != nullptr) *report = line;
  };
  const std::string what = kernel.name() + " vs reference (" + metric_name(metric) + ", " +
                           std::to_string(x.rows()) + " rows, " + std::to_string(centres.rows()) + " centres, d " +
                           std::to_string(x.cols()) + ", k " + std::to_string(k) + ")";
  std::vector<std::int32_t> ref_idx, got_idx;
  std::vector<double> ref_score, got_score;
  std::string ref_error, got_error;
  try {
    run(ReferenceKernel(), x, centres, metric, k, ref_idx, ref_score);
  } catch (const InputError& e) {
    ref_error = e.what();
  }
  try {
    run(kernel, x, centres, metric, k, got_idx, got_score);
  } catch (const InputError& e) {
    got_error = e.what();
  }
  if (ref_error != got_error) {
    say("disagree: " + what + ": reference error '" + ref_error + "', kernel error '" + got_error + "'");
    return false;
  }
  if (!ref_error.empty()) {
    say("agree: " + what + ": both reject the input: " + ref_error);
    return true;
  }
  const std::size_t per_row = static_cast<std::size_t>(k);
  for (std::size_t i = 0; i < ref_idx.size(); ++i) {
    const bool same_bits = std::memcmp(&ref_score[i], &got_score[i], sizeof(double)) == 0;
    if (ref_idx[i] != got_idx[i] || !same_bits) {
      say("disagree: " + what + ": row " + std::to_string(i / per_row) + " rank " + std::to_string(i % per_row) +
          ": reference centre " + std::to_string(ref_idx[i]) + ", kernel centre " + std::to_string(got_idx[i]) +
          (same_bits ? ", same score" : ", scores differ"));
      return false;
    }
  }
  say("agree: " + what);
  return true;
}

}  // namespace secpe
