// Output files written whole or not at all: a temporary file beside the
// target, renamed into place only once everything was written.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "mirage/driver/driver.h"

namespace mirage::driver {

std::string writeFileAtomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return fmt::format("cannot write '{}': no directory '{}'", path, dir.string());
  fs::path temp = dir / fmt::format(".{}.tmp{}", target.filename().string(), static_cast<long>(getpid()));
  {
    std::ofstream f(temp, std::ios::binary | std::ios::trunc);
    if (!f) return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    f.flush();
    if (!f) {
      fs::remove(temp, ec);
      return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
    }
  }
  fs::rename(temp, target, ec);
  if (ec) {
    fs::remove(temp, ec);
    return fmt::format("cannot write '{}': {}", path, ec.message());
  }
  return {};
}

}  // namespace mirage::driver
