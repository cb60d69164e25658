#pragma once
// Runs a command body under MPI: MPI_Init, a world communicator, rank-0 logging (starting with a
// warning when OpenBLAS runs slower kernels than the CPU allows), and errors turned
// into exit codes (2 for InputError, 1 otherwise). With several ranks an error on any rank aborts
// the job, since the other ranks may be waiting in a collective; a stop every rank agrees on
// (Interrupted, AgreedExit) finalises MPI cleanly instead.
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "devices/device_kind.hpp"

#include "comms/communicator.hpp"

namespace secpe::cli {

int run_under_mpi(const std::function<void(const Communicator&)>& body);

// Exit codes besides 0, 1 (internal error) and 2 (the user's input): 75 (core/stop_signal.hpp,
// stopped with the progress kept: run again with --resume) and 4 (secpe run: some secret gets
// more than its budget; the outputs are written).
inline constexpr int kOverBudgetExitCode = 4;

// Thrown by every rank at the same point when a command ends on purpose with a non-zero code:
// rank 0 prints the message, every rank finalises MPI and exits with `code` (no abort).
class AgreedExit : public std::runtime_error {
 public:
  AgreedExit(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// --device: the device this rank uses, auto resolved here (each rank sees its own GPUs) with
// resolve_device's note logged (devices/device_kind.hpp); its sum_communicator carries the sums.
const DeviceKind& rank_device(const std::string& requested);

}  // namespace secpe::cli
