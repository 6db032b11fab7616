// Helpers of the driver tests: a fresh temporary directory, file reading,
// and running the driver with captured streams.
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

#include "mirage/driver/driver.h"

namespace test {

inline std::filesystem::path tempDir(const std::string& tag) {
  std::random_device rd;
  auto dir = std::filesystem::temp_directory_path() /
             ("mirage-driver-" + tag + "-" + std::to_string(rd()) + std::to_string(rd()));
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline void writeFile(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

// The launches of a generated .cu, by its launch plan's lines (launches of
// the same code share one __global__ function, so functions are not launches).
inline int launchesIn(const std::string& source) {
  const std::string line = "// mirage-plan launch ";
  int n = 0;
  for (size_t at = source.find(line); at != std::string::npos; at = source.find(line, at + 1)) ++n;
  return n;
}

struct Outcome {
  int status = -1;
  std::string out, err;
  double seconds = 0;
};

inline Outcome runDriver(const mirage::driver::Options& o) {
  std::ostringstream out, err;
  auto start = std::chrono::steady_clock::now();
  Outcome r;
  r.status = mirage::driver::runMirageOpt(o, out, err);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace test
