#pragma once
// Runs a command body under MPI: MPI_Init, a world communicator, rank-0 logging (starting with a
// warning when OpenBLAS runs slower kernels than the CPU allows), and errors turned
// into exit codes (2 for InputError, 1 otherwise). With several ranks an error on any rank aborts
// the job, since the other ranks may be waiting in a collective.
#include <functional>
#include <memory>

#include "compute/nearest.hpp"

#include "dist/communicator.hpp"

namespace secpe::cli {

int run_under_mpi(const std::function<void(const Communicator&)>& body);

// GPU ranks (--device): the device this rank uses, kAuto resolved here (each rank sees its own
// GPUs) with resolve_device's note logged; and the communicator for it: an NCCL one for the large
// sums when the ranks run on CUDA, several of them, in a build with NCCL; else nullptr (use comm).
Device rank_device(Device requested);
std::unique_ptr<Communicator> device_communicator(const Communicator& comm, Device device);

}  // namespace secpe::cli
