#include "evolve/run_estimate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/error.hpp"

namespace secpe {
namespace {

std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
  return text;
}

}  // namespace

std::string RunEstimate::describe() const {
  return std::to_string(candidates) + " candidates in the largest label: about " + gigabytes(total()) +
         " per rank (candidate pool " + gigabytes(candidate_bytes) + ", clusters " + gigabytes(cluster_bytes) +
         ", dataset shard " + gigabytes(shard_bytes) + ")";
}

RunEstimate estimate_run(const RunOptions& options, const Method& method, const std::vector<std::size_t>& synthetic_per_label, int dim,
                         std::uint64_t shard_rows) {
  const std::size_t largest = synthetic_per_label.empty() ? 0 : *std::max_element(synthetic_per_label.begin(), synthetic_per_label.end());
  RunEstimate e;
  e.candidates = static_cast<std::uint64_t>(largest) * (static_cast<std::uint64_t>(options.variations) + 1);
  // Per candidate: its float embedding, its text (about 6 bytes a word plus the string itself)
  // and the released vote and tie key.
  const double per_candidate = 4.0 * dim + 6.0 * options.generator.max_words + 32 + 16;
  e.candidate_bytes = per_candidate * static_cast<double>(e.candidates);
  e.cluster_bytes = method.label_state_bytes(options, dim);
  // The shard's float rows (a label's own rows are copied too, but a label is a fraction of it):
  // the estimate errs low, so that only runs that surely cannot fit are refused.
  e.shard_bytes = 4.0 * dim * static_cast<double>(shard_rows);
  return e;
}

void check_run_fits(const RunEstimate& estimate, double available_bytes) {
  if (estimate.candidates > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
    throw InputError("N_syn x (L + 1) gives " + std::to_string(estimate.candidates) +
                     " candidates in one label, more than the 2^31 - 1 a label's candidate pool can index; lower the synthetic count or the variations");
  }
  if (estimate.total() > available_bytes) {
    throw InputError("the synthetic count and the variations ask for " + estimate.describe() + ", more than the " +
                     gigabytes(available_bytes) + " of memory this rank has; lower the synthetic count, the variations or the clusters");
  }
}

double memory_per_rank_bytes() {
  const double physical = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const long ranks = local ? std::max(1L, std::atol(local)) : 1L;
  return physical / static_cast<double>(ranks);
}

}  // namespace secpe
