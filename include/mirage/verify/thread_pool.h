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

struct Cancel;

// The cancellation in effect for the loops this thread starts (set by the
// program evaluation for the duration of one evaluation; null: none). Once
// it is requested, the remaining chunks of those loops are skipped, so a
// cancelled op ends early with an unfinished result, which the evaluation
// discards (a Cancel, once requested, stays requested).
const Cancel* currentCancel();
bool cancelRequested(const Cancel* cancel);
class ScopedCancel {
 public:
  explicit ScopedCancel(const Cancel* cancel);
  ~ScopedCancel();
  ScopedCancel(const ScopedCancel&) = delete;
  ScopedCancel& operator=(const ScopedCancel&) = delete;

 private:
  const Cancel* previous_;
};

// Runs on the pool when there is one, else inline.
inline void parallelFor(ThreadPool* pool, int64_t n, int64_t grain,
                        const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  if (const Cancel* cancel = currentCancel()) {
    grain = grain < 1 ? 1 : grain;
    if (!pool || pool->threads() <= 1 || n <= grain) {
      // Serial, chunk by chunk, so that it can stop between chunks.
      for (int64_t lo = 0; lo < n && !cancelRequested(cancel); lo += grain) fn(lo, lo + grain < n ? lo + grain : n);
      return;
    }
    pool->parallelFor(n, grain, [&](int64_t lo, int64_t hi) {
      if (!cancelRequested(cancel)) fn(lo, hi);
    });
    return;
  }
  if (!pool || pool->threads() <= 1 || n <= grain) {
    fn(0, n);
    return;
  }
  pool->parallelFor(n, grain, fn);
}

}  // namespace mirage::verify
