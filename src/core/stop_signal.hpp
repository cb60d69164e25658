#pragma once
// Stopping a long job cleanly. Slurm warns a job before its time limit with a signal (sbatch
// --signal=B:USR1@SECONDS, forwarded to the ranks by mpirun) and ends it with SIGTERM; after
// install_stop_signals(), either only sets a flag (and says so on stderr), and the run stops at
// the next iteration boundary, where every rank agrees (an allreduce of the flag), after its
// progress is in the private state folder. It then throws Interrupted, which the CLI turns into
// exit code 75 (EX_TEMPFAIL: "try again"), the code the sbatch scripts requeue on.
#include <stdexcept>
#include <string>

namespace secpe {

constexpr int kInterruptedExitCode = 75;

class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// SIGTERM, SIGUSR1 and SIGINT set the stop flag (once installed; idempotent).
void install_stop_signals();
// The signal that asked to stop, or 0.
int stop_signal();
// "SIGUSR1" etc.
std::string signal_name(int signal);

}  // namespace secpe
