#pragma once
// A built-in agreement check (in the spirit of HPCG's verification): run a kernel and the
// reference kernel on the same input and compare index and score bit for bit.
#include <string>

#include "compute/nearest.hpp"

namespace secpe {

// True when `kernel` returns exactly what ReferenceKernel returns for (x, centres, metric): the
// same nearest index and a bit-identical score for every row (k = 1), and the same for the k
// nearest when k > 1 (search_k). If the reference throws an InputError the kernel must throw one
// with the same message. `report` (optional) receives one line: "agree: ..." or the first
// disagreement (row, rank, the centre index of both, whether the scores differ). Never quotes
// data values or scores (they may derive from private embeddings).
bool verify_against_reference(const NearestCentreKernel& kernel, const MatrixF& x, const MatrixF& centres,
                              Metric metric, std::string* report, int k = 1);

}  // namespace secpe
