#include "core/log.hpp"

#include <cstdio>
#include <iostream>

namespace secpe {
namespace {
int g_rank = 0;
bool g_quiet = false;

bool enabled() { return g_rank == 0 && !g_quiet; }

std::string format_seconds(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, (int(s) % 3600) / 60);
  return buf;
}
}  // namespace

void set_log_rank(int rank) { g_rank = rank; }
void set_log_quiet(bool quiet) { g_quiet = quiet; }

void log_info(const std::string& msg) {
  if (enabled()) std::cerr << "secpe: " << msg << std::endl;
}

void log_warn(const std::string& msg) {
  if (g_rank == 0) std::cerr << "secpe: warning: " << msg << std::endl;
}

Progress::Progress(std::string stage, std::size_t total, double interval_s, bool percent)
    : stage_(std::move(stage)), total_(total), interval_s_(interval_s), percent_(percent),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

void Progress::step(std::size_t done, const std::string& detail) {
  const auto now = std::chrono::steady_clock::now();
  if (!enabled() || std::chrono::duration<double>(now - last_).count() < interval_s_) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? double(done) / elapsed : 0.0;
  const double eta = rate > 0 && total_ >= done ? double(total_ - done) / rate : 0.0;
  char buf[96];
  if (percent_) {
    const double share = total_ > 0 ? 100.0 * double(done) / double(total_) : 100.0;
    std::snprintf(buf, sizeof buf, "%.0f%%  %.2f%%/s  ETA %s", share, elapsed > 0 ? share / elapsed : 0.0,
                  format_seconds(eta).c_str());
  } else {
    std::snprintf(buf, sizeof buf, "%zu/%zu  %.2f/s  ETA %s", done, total_, rate, format_seconds(eta).c_str());
  }
  reported_ = true;
  std::cerr << "secpe: [" << stage_ << "] " << buf << (detail.empty() ? "" : "  " + detail) << std::endl;
}

void Progress::finish(const std::string& detail) {
  if (!enabled()) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::cerr << "secpe: [" << stage_ << "] done " << (percent_ ? std::string() : std::to_string(total_) + " ") << "in " << format_seconds(elapsed)
            << (detail.empty() ? "" : "  " + detail) << std::endl;
}

}  // namespace secpe
