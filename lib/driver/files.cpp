// Output files written whole or not at all: a temporary file beside the
// target, renamed into place only once everything was written. The result
// cache uses the same function, so it is also what makes the cache safe to
// share between concurrent processes (docs/scaling.md).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <thread>

#include "mirage/driver/driver.h"

namespace mirage::driver {
namespace {

// A temporary name no other writer uses, in this process (a counter and the
// thread), on this machine (the pid) or on another machine writing to the
// same network directory (the host name and a random word: pids repeat
// across machines). The file is also created with O_EXCL, so a clash is an
// error, never two writers sharing one temporary file.
std::string uniqueSuffix() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = [] {
    std::random_device rd;
    return (uint64_t{rd()} << 32) ^ rd() ^
           static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  char host[64] = {0};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "host");
  for (char* c = host; *c; ++c)
    if (*c == '/' || *c == '.') *c = '_';
  return fmt::format("{}.{}.{:x}.{:x}.{}", host, static_cast<long>(getpid()),
                     std::hash<std::thread::id>{}(std::this_thread::get_id()) & 0xffffff, salt & 0xffffffffff,
                     counter.fetch_add(1));
}

bool writeAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string temporaryNameFor(const std::string& path) {
  std::filesystem::path target(path);
  std::filesystem::path dir = target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path();
  return (dir / fmt::format(".{}.tmp.{}", target.filename().string(), uniqueSuffix())).string();
}

}  // namespace

std::string writeFileAtomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return fmt::format("cannot write '{}': no directory '{}'", path, dir.string());
  std::string temp = temporaryNameFor(path);
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  // fsync before the rename: after a crash the target is the old file or the
  // new one whole, never a new name with missing data (ext4's delayed
  // allocation, NFS write-back). close() also reports NFS write errors.
  bool ok = writeAll(fd, text) && ::fsync(fd) == 0;
  int savedErrno = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    savedErrno = errno;
  }
  if (!ok) {
    fs::remove(temp, ec);
    return fmt::format("cannot write '{}': {}", path, std::strerror(savedErrno));
  }
  // rename(2) within one directory is atomic on POSIX file systems and on
  // NFS: a reader opens the old file or the new one, never a mixture, and of
  // two concurrent writers of the same path the last rename wins whole.
  fs::rename(temp, target, ec);
  if (ec) {
    fs::remove(temp, ec);
    return fmt::format("cannot write '{}': {}", path, ec.message());
  }
  return {};
}

}  // namespace mirage::driver
