#pragma once
// What the host tells the device about one tile of add_to_centres (compute/impl/gpu_plan.hpp makes
// them, compute/cuda/kernels.cu reads them): plain C++17, as the device code is compiled.
#include <cstdint>

namespace secpe::gpu {

// One centre's run of rows within a tile [p0, p1) of the rows sorted by centre: rows begin .. end - 1 of the tile.
struct TileSegment {
  std::int32_t centre;
  std::int32_t begin;
  std::int32_t end;
};

}  // namespace secpe::gpu
