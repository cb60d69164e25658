#pragma once
// GPU ranks (one GPU per rank): the per-centre sums and counts, the one large collective of an
// iteration, reduced by NCCL from device to device; everything else, and small sums, go through
// the communicator it wraps (MPI). int64 sums, so the reduction stays exact in any order.
// The NCCL unique id is bootstrapped over the wrapped communicator (rank 0 broadcasts it).
#include <cstddef>
#include <memory>

#include "comms/communicator.hpp"

namespace secpe {

// An NCCL communicator over the same ranks as `base` (which must outlive it), on CUDA device
// `device` (-1: the local rank's, as the CUDA kernel picks it: compute/impl/gpu_plan.hpp). Collective:
// every rank of `base` calls it. nullptr (use `base`) in a build without NCCL (SECPE_HAVE_NCCL),
// or when ranks share a GPU (NCCL needs one per rank).
std::unique_ptr<Communicator> make_nccl_communicator(const Communicator& base, int device = -1);

// Sums of fewer int64 values than this stay on the wrapped communicator (latency-bound there).
inline constexpr std::size_t kNcclMinValues = 4096;

}  // namespace secpe
