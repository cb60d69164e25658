#include "core/enum_names.hpp"

#include "core/error.hpp"

namespace secpe {

void throw_unknown_name(std::string_view what, std::string_view name, const std::string& names) {
  std::string message(what);
  if (!message.empty()) message += ' ';
  message += "must be ";
  message += names;
  message += ", not '";
  message += name;
  message += "'";
  throw InputError(message);
}

std::string or_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

}  // namespace secpe
