// Fork-join pool (see thread_pool.h). Jobs sit in a queue; workers and the
// submitting thread claim chunks of a job with an atomic counter.
#include "mirage/verify/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "mirage/verify/verifier.h"

namespace mirage::verify {

namespace {
thread_local const Cancel* tCancel = nullptr;
}  // namespace

const Cancel* currentCancel() { return tCancel; }
bool cancelRequested(const Cancel* cancel) { return cancel && cancel->requested(); }
ScopedCancel::ScopedCancel(const Cancel* cancel) : previous_(tCancel) { tCancel = cancel; }
ScopedCancel::~ScopedCancel() { tCancel = previous_; }

namespace {
struct Job {
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  int64_t n = 0;
  int64_t grain = 1;
  int64_t chunks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  int users = 0;  // workers inside work(); guarded by the pool's mutex
  std::mutex errorMu;
  std::exception_ptr error;  // the first exception a chunk threw

  // Runs chunks until none is left to claim. A chunk that throws (out of
  // memory, say) is recorded and counted as done; the submitter rethrows.
  void work() {
    int64_t ran = 0;
    for (;;) {
      int64_t c = next.fetch_add(1);
      if (c >= chunks) break;
      int64_t begin = c * grain;
      try {
        (*fn)(begin, std::min(n, begin + grain));
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMu);
        if (!error) error = std::current_exception();
      }
      ++ran;
    }
    if (ran) done.fetch_add(ran);
  }
};
}  // namespace

struct ThreadPool::Impl {
  int threads = 1;
  std::vector<std::thread> workers;
  std::mutex mu;
  std::condition_variable wake;     // workers: a job arrived
  std::condition_variable finished; // submitters: a chunk finished
  std::deque<Job*> queue;
  bool stop = false;

  void workerLoop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      wake.wait(lock, [&] { return stop || !queue.empty(); });
      if (stop) return;
      Job* job = queue.front();
      if (job->next.load() >= job->chunks) {
        queue.pop_front();  // fully claimed; its submitter waits for it
        continue;
      }
      ++job->users;  // keeps the job alive until this worker is out of it
      lock.unlock();
      job->work();
      lock.lock();
      --job->users;
      finished.notify_all();
    }
  }
};

ThreadPool::ThreadPool(int threads) : impl_(std::make_unique<Impl>()) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  impl_->threads = threads;
  for (int i = 1; i < threads; ++i) impl_->workers.emplace_back([this] { impl_->workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stop = true;
  }
  impl_->wake.notify_all();
  for (std::thread& t : impl_->workers) t.join();
}

int ThreadPool::threads() const { return impl_->threads; }

void ThreadPool::parallelFor(int64_t n, int64_t grain,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  Job job;
  job.fn = &fn;
  job.n = n;
  job.grain = grain;
  job.chunks = (n + grain - 1) / grain;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->queue.push_back(&job);
  }
  impl_->wake.notify_all();
  job.work();
  std::unique_lock<std::mutex> lock(impl_->mu);
  // Remove the job if no worker did, then wait for chunks still running.
  auto it = std::find(impl_->queue.begin(), impl_->queue.end(), &job);
  if (it != impl_->queue.end()) impl_->queue.erase(it);
  impl_->finished.wait(lock, [&] { return job.done.load() == job.chunks && job.users == 0; });
  lock.unlock();
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace mirage::verify
