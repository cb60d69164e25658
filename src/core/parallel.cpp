#include "core/parallel.hpp"

#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace secpe {

int default_threads() {
  if (const char* env = std::getenv("SECPE_THREADS"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (*end != '\0' || v < 1 || v > 4096) {
      throw InputError("SECPE_THREADS must be a positive integer (got '" + std::string(env) + "')");
    }
    return static_cast<int>(v);
  }
  // Asked once: glibc reads /sys on every call, which costs more than a small release itself.
  static const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

}  // namespace secpe
