#include "core/random_draws.hpp"

namespace secpe::detail {

ZigguratTables build_ziggurat_tables() {
  constexpr int n = ZigguratTables::kLayers;
  constexpr double r = ZigguratTables::kR, v = 9.91256303526217e-3;  // v: area of each layer
  ZigguratTables t{};
  double f = std::exp(-0.5 * r * r);
  t.x[0] = v / f;  // the base layer as a rectangle of area v
  t.x[1] = r;
  t.x[n] = 0.0;
  for (int i = 2; i < n; ++i) {
    t.x[i] = std::sqrt(-2.0 * std::log(v / t.x[i - 1] + f));
    f = std::exp(-0.5 * t.x[i] * t.x[i]);
  }
  for (int i = 0; i < n; ++i) t.ratio[i] = t.x[i + 1] / t.x[i];
  return t;
}

}  // namespace secpe::detail
