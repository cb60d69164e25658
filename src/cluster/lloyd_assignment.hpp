#pragma once
// The assignment step of Lloyd's iterations, searching only what can have changed. After a few
// iterations many clusters keep their members, so their centres come back bit for bit the same
// (on the demo corpus at Yelp scale, most of a small label's centres from the fifth iteration on;
// a large label's keep moving for longer). A row's exact score to an unchanged centre is unchanged
// too, so:
//   - a row whose centre did not move is nearest either to it still or to a centre that moved:
//     one search of the rows against the moved centres alone settles it;
//   - a row whose centre moved is searched against every centre, as before.
// The answer is the kernel's, bit for bit, with no bound or tolerance involved: the row's centre
// was the nearest of all (ties to the lowest index) and the unchanged centres' scores are the same
// numbers, so the nearest is the better of its centre and the moved centres' nearest (ties again
// to the lower index). When that would score most of what a full search scores, every row is
// searched.
#include <cstdint>
#include <span>

#include "compute/nearest.hpp"
#include "core/matrix.hpp"

namespace secpe {

class LloydAssignment {
 public:
  // `kept` must outlive this object. `incremental` false: every row searched against every centre
  // every time (the plain reference the tests compare with).
  LloydAssignment(const KeptRows& kept, const NearestCentreKernel& kernel, Metric metric, bool incremental = true);

  // nearest[i], score[i] = the kernel's nearest centre of row i among `centres` and its exact score
  // (search_kept's answer, bit for bit). The spans are the same at every call: they hold the last
  // answer, which the next starts from.
  void assign(const MatrixF& centres, std::span<std::int32_t> nearest, std::span<double> score);

  // Over every assign() so far, this rank: pairs (row, centre) scored by the searches.
  std::int64_t pairs_scored() const { return pairs_scored_; }

 private:
  void search_all(const MatrixF& centres, std::span<std::int32_t> nearest, std::span<double> score);

  const KeptRows& kept_;
  const NearestCentreKernel& kernel_;
  Metric metric_;
  bool incremental_;
  MatrixF previous_;  // the centres of the last assignment
  std::int64_t pairs_scored_ = 0;
};

}  // namespace secpe
