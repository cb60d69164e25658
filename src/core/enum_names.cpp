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

}  // namespace secpe
