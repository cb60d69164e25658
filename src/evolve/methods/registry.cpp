// The methods secpe run knows, by the name --method takes. A new method: its file beside these,
// defining its factory, and one line in kMethods (docs/architecture.md).
#include "core/error.hpp"
#include "evolve/methods/method.hpp"

namespace secpe {

std::unique_ptr<Method> make_secpe_method();
std::unique_ptr<Method> make_augpe_method();
std::unique_ptr<Method> make_control_method();

namespace {

struct MethodEntry {
  const char* name;
  std::unique_ptr<Method> (*make)();
};

constexpr MethodEntry kMethods[] = {
    {"secpe", &make_secpe_method},
    {"augpe", &make_augpe_method},
    {"random", &make_control_method},
};

}  // namespace

std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (const auto& m : kMethods) names.push_back(m.name);
  return names;
}

std::unique_ptr<Method> make_method(const std::string& name) {
  for (const auto& m : kMethods)
    if (name == m.name) return m.make();
  std::string known;
  const std::vector<std::string> names = method_names();
  for (std::size_t i = 0; i < names.size(); ++i) known += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  throw InputError("--method must be " + known + ", not '" + name + "'");
}

}  // namespace secpe
