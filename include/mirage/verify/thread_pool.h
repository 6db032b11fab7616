// A small fork-join pool for the verifier's data-parallel loops. The thread
// that calls parallelFor also works on its own loop, so nested or concurrent
// calls from several threads never deadlock; they only share the workers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace mirage::verify {

class ThreadPool {
 public:
  // `threads` counts the calling thread: 1 means no workers (serial);
  // 0 means one thread per hardware core.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const;
  // Calls fn(begin, end) on disjoint chunks covering [0, n), each of at most
  // `grain` iterations, on the workers and the calling thread; returns when
  // all are done.
  void parallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs on the pool when there is one, else inline.
inline void parallelFor(ThreadPool* pool, int64_t n, int64_t grain,
                        const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  if (!pool || pool->threads() <= 1 || n <= grain) {
    fn(0, n);
    return;
  }
  pool->parallelFor(n, grain, fn);
}

}  // namespace mirage::verify
