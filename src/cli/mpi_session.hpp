#pragma once
// Runs a command body under MPI: MPI_Init, a world communicator, rank-0 logging (starting with a
// warning when OpenBLAS runs slower kernels than the CPU allows), and errors turned
// into exit codes (2 for InputError, 1 otherwise). With several ranks an error on any rank aborts
// the job, since the other ranks may be waiting in a collective.
#include <functional>

#include "dist/communicator.hpp"

namespace secpe::cli {

int run_under_mpi(const std::function<void(const Communicator&)>& body);

}  // namespace secpe::cli
