#pragma once
// Human-readable progress and warnings on stderr. Only rank 0 prints (set_log_rank), so an
// N-rank job prints one copy. Nothing logged may contain private text or unnoised private
// statistics: log stage names, counts of public things, timings and released (noised) values.
#include <atomic>
#include <chrono>
#include <string>

namespace secpe {

void set_log_rank(int rank);
void set_log_quiet(bool quiet);
void log_info(const std::string& msg);
void log_warn(const std::string& msg);

// Progress of one stage: "[stage] 3/10 label 'x'  12.3 it/s  ETA 4s". Prints at most every
// `interval` seconds (and always at the end). With `percent`, the counts are not printed, only the
// share done and its rate ("[stage] 37%  4.1%/s  ETA 15s"): for totals that depend on private
// data and must stay out of the log.
class Progress {
 public:
  Progress(std::string stage, std::size_t total, double interval_s = 1.0, bool percent = false);
  void step(std::size_t done, const std::string& detail = "");
  void finish(const std::string& detail = "");
  bool reported() const { return reported_; }  // a step line was printed (the stage was slow)

 private:
  std::string stage_;
  std::size_t total_;
  double interval_s_;
  bool percent_ = false, reported_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// Progress of work shared by threads (core/parallel.hpp's run_chunks): each thread adds what it
// finished, and chunk 0's thread alone prints (Progress is not thread-safe).
class SharedProgress {
 public:
  SharedProgress(std::string stage, std::size_t total) : progress_(std::move(stage), total) {}
  void add(int chunk, std::size_t n) {
    const std::size_t now = done_.fetch_add(n) + n;
    if (chunk == 0) progress_.step(now);
  }
  void finish() { progress_.finish(); }

 private:
  Progress progress_;
  std::atomic<std::size_t> done_{0};
};

}  // namespace secpe
