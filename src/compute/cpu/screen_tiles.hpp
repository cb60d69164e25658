#pragma once
// How the register-tiled engines (AVX512-BF16, AVX512-VNNI, AVX-VNNI) walk a block of G: panels
// of Tiles::kGroups groups of 16 centres (one group fewer or two at the end of a block, whose
// centres are padded to 32s), and in each panel the rows Tiles::kRows at a time. A panel of
// centres (48 x 768 bytes in int8) stays in L1 while the block's rows stream past it from L2.
// Internal to compute/cpu/*_gemm.cpp.
#include <algorithm>

#include "compute/cpu/screen_gemm.hpp"

namespace secpe::screen {

// Tiles: static constexpr int kRows, kGroups (1 to 3); template <int Groups> static void
// tile(const Operands&, Eigen::Index row, Eigen::Index centre) for rows [row, row + kRows) and
// centres [centre, centre + 16 Groups) of the block. mbp must be a multiple of kRows and nbp of 16.
template <class Tiles, class Operands>
void run_tiles(const Operands& o, Eigen::Index mbp, Eigen::Index nbp) {
  for (Eigen::Index j = 0; j < nbp; j += 16 * Tiles::kGroups) {
    const Eigen::Index groups = std::min<Eigen::Index>(Tiles::kGroups, (nbp - j) / 16);
    for (Eigen::Index i = 0; i < mbp; i += Tiles::kRows) {
      if constexpr (Tiles::kGroups >= 3) {
        if (groups == 3) {
          Tiles::template tile<3>(o, i, j);
          continue;
        }
      }
      if constexpr (Tiles::kGroups >= 2) {
        if (groups == 2) {
          Tiles::template tile<2>(o, i, j);
          continue;
        }
      }
      Tiles::template tile<1>(o, i, j);
    }
  }
}

}  // namespace secpe::screen
