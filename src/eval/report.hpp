#pragma once
// An EvalReport as JSON (the `secpe eval --out` file; `secpe run` can write the same per
// iteration) and as a short human summary.
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "eval/evaluate.hpp"

namespace secpe {

// Everything but "run" (ranks, seconds) is the same for any rank count.
nlohmann::ordered_json eval_report_json(const EvalReport& report);

void print_eval_summary(const EvalReport& report, std::ostream& out);

}  // namespace secpe
