#pragma once
// Per-secret (p_j, r_j) budgets: a uniform --p / --r, optionally overridden per secret by a file.
#include <filesystem>
#include <string>
#include <vector>

namespace secpe {

struct SecretBudgets {
  std::vector<double> p;  // adversary prior of secret j
  std::vector<double> r;  // allowed reconstruction probability of secret j (in one run)
  // Per secret: the cap on its r over every counted run of the dataset (evolve/run_budget.hpp);
  // 0 for none. Empty: no secret has one.
  std::vector<double> total_r;
};

// Validates one budget: p in (0, 1), r in (p, 1), no NaN. `what` names the source in errors.
void check_budget(double p, double r, const std::string& what);

SecretBudgets uniform_budgets(std::size_t secrets, double p, double r);

// A CSV file with the header "secret,p,r" (or "secret,p,r,total_r", total_r in [r, 1) or empty:
// the secret's cap over all runs of the dataset) and one line per secret: the secret as it appears in
// the dataset's secret list (matched case-insensitively), or "#J" for the secret with index J
// (J in plain decimal digits, below the number of secrets; a secret whose name starts with '#' is
// named by its index). A line whose first non-blank is '#' followed by a blank, or '#' alone, is
// a comment; blank lines are skipped.
// Secrets not listed keep `defaults`. Errors name the file and line, never the secret.
SecretBudgets read_budgets_file(const std::filesystem::path& path, const std::vector<std::string>& secret_names,
                                SecretBudgets defaults);

}  // namespace secpe
