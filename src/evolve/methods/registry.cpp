// The methods secpe run knows; --method takes each one's name(). A new method: its file beside
// these, defining its factory, and one line in kMethods (docs/architecture.md).
#include "core/enum_names.hpp"
#include "evolve/methods/method.hpp"

namespace secpe {

std::unique_ptr<Method> make_secpe_method();
std::unique_ptr<Method> make_augpe_method();
std::unique_ptr<Method> make_control_method();

namespace {

using MethodFactory = std::unique_ptr<Method> (*)();
constexpr MethodFactory kMethods[] = {&make_secpe_method, &make_augpe_method, &make_control_method};

}  // namespace

std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (const MethodFactory make : kMethods) names.push_back(make()->name());
  return names;
}

std::unique_ptr<Method> make_method(const std::string& name) {
  for (const MethodFactory make : kMethods)
    if (std::unique_ptr<Method> method = make(); method->name() == name) return method;
  throw_unknown_name("--method", name, or_list(method_names()));
}

}  // namespace secpe
