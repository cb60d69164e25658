// libFuzzer target: per-secret budgets files (privacy/budgets.cpp). The input is the file, read
// against a dataset with three secrets; every budget it yields must be a valid one.
#include "fuzz_util.hpp"
#include "privacy/budgets.hpp"

using namespace secpe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> names = {"alice", "Bob Smith", "zoe@example.org"};
  const auto path = fuzz::input_file("budgets.csv", data, size);
  const auto budgets = fuzz::unless_input_error(
      [&] { return read_budgets_file(path, names, uniform_budgets(names.size(), 1e-4, 1e-3)); });
  if (!budgets) return 0;
  if (budgets->p.size() != names.size() || budgets->r.size() != names.size()) fuzz::finding("budgets resized");
  for (std::size_t j = 0; j < names.size(); ++j) {
    try {
      check_budget(budgets->p[j], budgets->r[j], "fuzz");
    } catch (const InputError&) {
      fuzz::finding("an invalid budget was accepted");
    }
  }
  return 0;
}
