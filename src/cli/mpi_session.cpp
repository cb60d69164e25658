#include "cli/mpi_session.hpp"

#include <mpi.h>

#include <cstdlib>
#include <iostream>

#include "compute/cpu/blas_core.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/stop_signal.hpp"
#include "comms/mpi_communicator.hpp"

namespace secpe::cli {
namespace {

// mpirun reports any non-zero exit code with a banner saying the job was "aborted"; after a stop
// every rank agreed on, that banner means nothing went wrong, so the message says so first.
std::string launcher_note() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") ? " (mpirun may now print that the job was aborted: that is how it reports a non-zero "
                                               "exit code; every rank finished cleanly)"
                                             : "";
}

}  // namespace

int run_under_mpi(const std::function<void(const Communicator&)>& body) {
  MPI_Init(nullptr, nullptr);
  int code = 0;
  {
    const MpiCommunicator comm(MPI_COMM_WORLD);
    set_log_rank(comm.rank());
    if (const auto warning = blas_core_warning(blas_core())) log_warn(*warning);  // rank 0 only
    try {
      body(comm);
    } catch (const Interrupted& e) {  // every rank stops together: no abort needed
      code = kInterruptedExitCode;
      if (comm.is_root()) std::cerr << "secpe: stopped: " << e.what() << ". Exit code 75: stopped cleanly" << launcher_note() << std::endl;
    } catch (const AgreedExit& e) {
      code = e.code();
      if (comm.is_root()) std::cerr << "secpe: " << e.what() << launcher_note() << std::endl;
    } catch (const std::exception& e) {
      code = dynamic_cast<const InputError*>(&e) ? 2 : 1;
      std::cerr << "secpe: error" << (comm.size() > 1 ? " (rank " + std::to_string(comm.rank()) + ")" : "") << ": "
                << e.what() << std::endl;
      if (comm.size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
    }
  }
  MPI_Finalize();
  return code;
}

const DeviceKind& rank_device(const std::string& requested) {
  std::string note;
  const DeviceKind& device = resolve_device(requested, &note);
  if (!note.empty()) log_info(note);
  return device;
}

}  // namespace secpe::cli
