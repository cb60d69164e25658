#include "core/stop_signal.hpp"

#include <csignal>
#include <cstring>

#include <unistd.h>

namespace secpe {

namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int signal) {
  if (g_signal == 0) {
    g_signal = signal;
    // Only async-signal-safe calls here: one write(2) of a fixed message.
    static const char term[] = "secpe: SIGTERM received: stopping at the next iteration boundary, progress kept\n";
    static const char usr1[] = "secpe: SIGUSR1 received: stopping at the next iteration boundary, progress kept\n";
    static const char intr[] = "secpe: SIGINT received: stopping at the next iteration boundary, progress kept\n";
    const char* msg = signal == SIGTERM ? term : signal == SIGUSR1 ? usr1 : intr;
    [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, msg, std::strlen(msg));
  }
}

}  // namespace

void install_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (const int s : {SIGTERM, SIGUSR1, SIGINT}) sigaction(s, &action, nullptr);
}

int stop_signal() { return static_cast<int>(g_signal); }

std::string signal_name(int signal) {
  switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    case SIGINT: return "SIGINT";
    default: return "signal " + std::to_string(signal);
  }
}

}  // namespace secpe
