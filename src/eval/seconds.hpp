#pragma once
// The one clock of the evaluation's timings.
#include <chrono>

namespace secpe {

using EvalClock = std::chrono::steady_clock;

inline double seconds_since(EvalClock::time_point start) {
  return std::chrono::duration<double>(EvalClock::now() - start).count();
}

}  // namespace secpe
