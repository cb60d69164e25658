#pragma once
// The downstream half of `secpe eval`: per label column, classifiers trained on the synthetic set
// (on rank 0, then broadcast, so every rank scores with the same model) and scored on the real
// set's chunks, each rank its own, with the confusion counts summed exactly.
#include <vector>

#include "eval/evaluate.hpp"

namespace secpe {

// One label column of both sets (by name), with the synthetic set's classes.
struct LabelColumn {
  std::string name;
  std::size_t synthetic_index = 0, real_index = 0;
  std::vector<std::string> classes;      // sorted
  std::vector<std::int32_t> synthetic_y;  // class of each synthetic record
};

// The label columns both sets have (InputError when none, or when no synthetic class of a column
// occurs in the real set).
std::vector<LabelColumn> common_label_columns(const Corpus& synthetic, const RealSet& real, const EvalOptions& options);

// Trains, scores and reports every column x feature kind. `seconds` gets the classifiers' and the
// scoring's times.
std::vector<LabelColumnReport> downstream_reports(const Corpus& synthetic, const std::vector<LabelColumn>& columns,
                                                  const RealSet& real, const EvalOptions& options,
                                                  const Communicator& comm, EvalReport::Seconds& seconds);

}  // namespace secpe
