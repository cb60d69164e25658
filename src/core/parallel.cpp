#include "core/parallel.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"

namespace secpe {

int default_threads() {
  if (const char* env = std::getenv("SECPE_THREADS"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (*end != '\0' || v < 1 || v > 4096) {
      throw InputError("SECPE_THREADS must be a positive integer (got '" + std::string(env) + "')");
    }
    return static_cast<int>(v);
  }
  // Asked once: glibc reads /sys on every call, which costs more than a small release itself.
  static const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

namespace detail {
namespace {

// One run_on_pool call: its chunks are claimed one at a time by whoever is free (the caller
// included) until none is left.
struct Job {
  std::size_t count;
  const std::function<void(std::size_t)>* body;
  std::atomic<std::size_t> next{0};  // the next unclaimed chunk
  std::atomic<std::size_t> done{0};  // chunks that have returned
  int users = 0;                     // workers holding a pointer to the job (under the pool's mutex)

  // Runs unclaimed chunks until none is left.
  void work() {
    for (std::size_t q = next.fetch_add(1); q < count; q = next.fetch_add(1)) {
      (*body)(q);
      done.fetch_add(1);
    }
  }
};

// Workers started on demand (never more than some run_on_pool asked for) and kept until exit.
// Jobs wait in arrival order; a worker takes the oldest, works on it until its chunks are all
// claimed, takes it off the queue and looks for the next.
class Pool {
 public:
  ~Pool() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void run(std::size_t count, const std::function<void(std::size_t)>& body) {
    Job job{count, &body};
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      grow(count - 1);
      queue_.push_back(&job);
    }
    wake_.notify_all();
    job.work();
    std::unique_lock<std::mutex> lock(mutex_);
    retire(&job);
    finished_.wait(lock, [&] { return job.users == 0 && job.done.load() == job.count; });
  }

 private:
  void grow(std::size_t wanted) {
    // Beyond this many a process has threads enough: nested calls then run on their callers.
    constexpr std::size_t kMaxWorkers = 1024;
    wanted = std::min(wanted, kMaxWorkers);
    while (workers_.size() < wanted) workers_.emplace_back([this] { serve(); });
  }

  void retire(Job* job) {  // under mutex_: nobody takes the job from now on
    const auto at = std::find(queue_.begin(), queue_.end(), job);
    if (at != queue_.end()) queue_.erase(at);
  }

  void serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to do
      Job* job = queue_.front();
      ++job->users;
      lock.unlock();
      job->work();
      lock.lock();
      retire(job);
      if (--job->users == 0) finished_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;      // a job arrived, or the pool stops
  std::condition_variable finished_;  // a worker let go of a job
  std::deque<Job*> queue_;
  std::vector<std::thread> workers_;
  bool stop_ = false;
};

}  // namespace

void run_on_pool(std::size_t count, const std::function<void(std::size_t)>& body) {
  if (count == 0) return;
  if (count == 1) return body(0);
  static Pool pool;
  pool.run(count, body);
}

}  // namespace detail
}  // namespace secpe
