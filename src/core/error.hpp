#pragma once
// Error types. Every error a user can cause (bad option, bad file, bad record) is an InputError:
// the CLI prints its message and exits with code 2. Anything else is a bug (exit code 1).
// Messages must never quote private text: name the file, line, field or record id instead.
#include <stdexcept>
#include <string>

namespace secpe {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "FILE:LINE: what" - the one format for errors that point into a file.
inline InputError input_error_at(const std::string& file, long long line, const std::string& what) {
  return InputError(file + ":" + std::to_string(line) + ": " + what);
}

}  // namespace secpe
