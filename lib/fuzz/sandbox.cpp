// The sandbox (sandbox.h): fork, a pipe for the result, poll with deadlines.
// The child's result is "FAILURE KERNELS\nDETAIL"; a child that ends without
// writing one crashed.
#include "mirage/fuzz/sandbox.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace mirage::fuzz {

using Clock = std::chrono::steady_clock;

struct Sandbox::Child {
  int tag = 0;
  pid_t pid = -1;
  int fd = -1;
  Clock::time_point deadline;
  double timeoutSeconds = 0;
  std::string data;
  std::string stderrPath;
};

namespace {

void writeAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

[[noreturn]] void childMain(int fd, const std::function<CaseResult()>& work, const std::string& stderrPath) {
  setpgid(0, 0);
  int devnull = ::open("/dev/null", O_WRONLY);
  if (devnull >= 0) dup2(devnull, 1);
  int log = stderrPath.empty() ? devnull : ::open(stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (log >= 0) dup2(log, 2);
  CaseResult r;
  try {
    r = work();
  } catch (const std::exception& e) {
    r.failure = Failure::Crash;
    r.detail = std::string("uncaught exception: ") + e.what();
  } catch (...) {
    r.failure = Failure::Crash;
    r.detail = "uncaught exception of unknown type";
  }
  writeAll(fd, fmt::format("{} {}\n{}", static_cast<int>(r.failure), r.candidateHasKernels ? 1 : 0, r.detail));
  ::close(fd);
  _exit(0);
}

CaseResult finish(Sandbox::Child& c);

}  // namespace

Sandbox::~Sandbox() {
  for (Child* c : children_) {
    kill(-c->pid, SIGKILL);
    waitpid(c->pid, nullptr, 0);
    ::close(c->fd);
    delete c;
  }
}

void Sandbox::start(int tag, const std::function<CaseResult()>& work, double timeoutSeconds,
                    const std::string& stderrPath) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    childMain(fds[1], work, stderrPath);
  }
  setpgid(pid, pid);
  ::close(fds[1]);
  auto* c = new Child;
  c->tag = tag;
  c->pid = pid;
  c->fd = fds[0];
  c->timeoutSeconds = timeoutSeconds;
  c->stderrPath = stderrPath;
  c->deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeoutSeconds));
  children_.push_back(c);
}

std::pair<int, CaseResult> Sandbox::wait() {
  if (children_.empty()) throw std::logic_error("Sandbox::wait with no child");
  for (;;) {
    auto now = Clock::now();
    // A child past its deadline: killed, a hang.
    for (size_t i = 0; i < children_.size(); ++i) {
      Child* c = children_[i];
      if (now >= c->deadline) {
        kill(-c->pid, SIGKILL);
        kill(c->pid, SIGKILL);
        waitpid(c->pid, nullptr, 0);
        ::close(c->fd);
        CaseResult r;
        r.failure = Failure::Hang;
        r.detail = fmt::format("the case ran past {:.0f} s and was killed", c->timeoutSeconds);
        int tag = c->tag;
        children_.erase(children_.begin() + static_cast<std::ptrdiff_t>(i));
        delete c;
        return {tag, r};
      }
    }
    std::vector<pollfd> fds;
    Clock::time_point next = Clock::time_point::max();
    for (Child* c : children_) {
      fds.push_back({c->fd, POLLIN, 0});
      next = std::min(next, c->deadline);
    }
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1;
    int n = poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(ms, 1000)));
    if (n <= 0) continue;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Child* c = children_[i];
      char buf[4096];
      ssize_t got = ::read(c->fd, buf, sizeof buf);
      if (got > 0) {
        c->data.append(buf, static_cast<size_t>(got));
        continue;
      }
      // End of the pipe: the child is done (or dead).
      CaseResult r = finish(*c);
      int tag = c->tag;
      children_.erase(children_.begin() + static_cast<std::ptrdiff_t>(i));
      delete c;
      return {tag, r};
    }
  }
}

namespace {

// The child closed its end of the pipe: reap it and read its result.
CaseResult finish(Sandbox::Child& c) {
  int status = 0;
  waitpid(c.pid, &status, 0);
  ::close(c.fd);
  CaseResult r;
  size_t nl = c.data.find('\n');
  int failure = -1, kernels = 0;
  if (nl != std::string::npos && std::sscanf(c.data.c_str(), "%d %d", &failure, &kernels) == 2 &&
      WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    r.failure = static_cast<Failure>(failure);
    r.candidateHasKernels = kernels != 0;
    r.detail = c.data.substr(nl + 1);
    return r;
  }
  r.failure = Failure::Crash;
  if (WIFSIGNALED(status))
    r.detail = fmt::format("the case's process was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else
    r.detail = fmt::format("the case's process exited with status {} without a result", WEXITSTATUS(status));
  if (!c.stderrPath.empty()) {
    std::ifstream in(c.stderrPath, std::ios::binary);
    std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (log.size() > 800) log = "..." + log.substr(log.size() - 800);
    while (!log.empty() && log.back() == '\n') log.pop_back();
    if (!log.empty()) r.detail += "; its last messages:\n" + log;
  }
  return r;
}

}  // namespace

CaseResult runIsolated(const std::function<CaseResult()>& work, double timeoutSeconds, const std::string& stderrPath) {
  Sandbox box(1);
  box.start(0, work, timeoutSeconds, stderrPath);
  return box.wait().second;
}

}  // namespace mirage::fuzz
