// runProgram, the work behind `mirage-run` for .mg programs: inputs from
// .npy files or the seed, outputs written as .npy, and its error statuses.
#include <catch2/catch.hpp>

#include <spdlog/spdlog.h>

#include <filesystem>
#include <sstream>

#include "graph_builders.h"
#include "mirage/interp/interpreter.h"
#include "mirage/interp/npy.h"
#include "mirage/interp/rounding.h"
#include "mirage/interp/run.h"

using namespace mirage;
using namespace mirage::testing;
using interp::Tensor;

namespace {

// Y = A · B + 1 in f16.
ir::Graph program() {
  ir::Graph g;
  g.name = "affine";
  g.dtype = ir::DType::F16;
  ValueId a = input(g, "A", {2, 3}), b = input(g, "B", {3, 2});
  ValueId y = binary(g, OpKind::Add, binary(g, OpKind::Matmul, a, b), constant(g, "1"));
  g.outputs = {y};
  g.values[static_cast<size_t>(y)].name = "Y";
  return g;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("mirage-run-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
  static inline int counter = 0;
};

struct Result {
  int status;
  std::string out, err;
};

Result run(const ir::Graph& g, const interp::RunOptions& options) {
  spdlog::set_level(spdlog::level::warn);  // keep the progress lines out of test logs
  std::ostringstream out, err;
  int status = interp::runProgram(g, options, out, err);
  return {status, out.str(), err.str()};
}

}  // namespace

TEST_CASE("parseNamedFile", "[run]") {
  interp::NamedFile f;
  REQUIRE(interp::parseNamedFile("Q=dir/q=1.npy", f));
  CHECK(f.name == "Q");
  CHECK(f.file == "dir/q=1.npy");
  CHECK_FALSE(interp::parseNamedFile("Q", f));
  CHECK_FALSE(interp::parseNamedFile("=q.npy", f));
  CHECK_FALSE(interp::parseNamedFile("Q=", f));
}

TEST_CASE("inputs from files, output to a file", "[run]") {
  TempDir dir;
  ir::Graph g = program();
  interp::writeNpy(dir.file("a.npy"), Tensor({2, 3}, {1, 2, 3, 4, 5, 6}), ir::DType::F32);
  interp::writeNpy(dir.file("b.npy"), Tensor({3, 2}, {1, 0, 0, 1, 1, 1}), ir::DType::F16);
  interp::RunOptions o;
  o.inputs = {{"A", dir.file("a.npy")}, {"B", dir.file("b.npy")}};
  o.outputs = {{"Y", dir.file("y.npy")}};
  Result r = run(g, o);
  INFO(r.err);
  REQUIRE(r.status == interp::kExitOk);
  Tensor y = interp::readNpy(dir.file("y.npy"), ir::DType::F32);
  // [1 2 3; 4 5 6] · [1 0; 0 1; 1 1] + 1 = [5 6; 11 12]
  CHECK(y.shape == ir::Shape{2, 2});
  CHECK(y.data == std::vector<float>{5, 6, 11, 12});
}

TEST_CASE("inputs not given come from the seed, deterministically", "[run]") {
  TempDir dir;
  ir::Graph g = program();
  interp::RunOptions o;
  o.seed = 42;
  o.outputs = {{"Y", dir.file("y1.npy")}};
  REQUIRE(run(g, o).status == 0);
  o.outputs = {{"Y", dir.file("y2.npy")}};
  REQUIRE(run(g, o).status == 0);
  Tensor y1 = interp::readNpy(dir.file("y1.npy"), ir::DType::F32);
  CHECK(y1.data == interp::readNpy(dir.file("y2.npy"), ir::DType::F32).data);
  std::vector<Tensor> expect = interp::evaluate(
      g, {interp::randomTensor({2, 3}, ir::DType::F16, 42, "A"), interp::randomTensor({3, 2}, ir::DType::F16, 42, "B")});
  CHECK(y1.data == expect[0].data);
  o.seed = 43;
  o.outputs = {{"Y", dir.file("y3.npy")}};
  REQUIRE(run(g, o).status == 0);
  CHECK(y1.data != interp::readNpy(dir.file("y3.npy"), ir::DType::F32).data);
}

TEST_CASE("random inputs are uniform in [-1, 1] and rounded", "[run]") {
  Tensor t = interp::randomTensor({1000}, ir::DType::F16, 1, "X");
  float lo = 2, hi = -2;
  for (float x : t.data) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    CHECK(x == interp::roundToDType(x, ir::DType::F16));
  }
  CHECK(lo >= -1);
  CHECK(hi <= 1);
  CHECK(lo < -0.9);
  CHECK(hi > 0.9);
  CHECK(interp::randomTensor({4}, ir::DType::F32, 1, "X").data != interp::randomTensor({4}, ir::DType::F32, 1, "Y").data);
}

TEST_CASE("without --out, a summary goes to standard output", "[run]") {
  Result r = run(program(), {});
  REQUIRE(r.status == 0);
  CHECK(r.out.rfind("Y = f16[2, 2] min=", 0) == 0);
}

TEST_CASE("bad names are command-line errors", "[run]") {
  ir::Graph g = program();
  interp::RunOptions o;
  o.inputs = {{"Z", "z.npy"}};
  Result r = run(g, o);
  CHECK(r.status == interp::kExitBadCommand);
  CHECK(r.err == "mirage-run: error: --in Z: program 'affine' has no input 'Z' (its inputs: A, B)\n");
  o.inputs = {};
  o.outputs = {{"A", "a.npy"}};
  r = run(g, o);
  CHECK(r.status == interp::kExitBadCommand);
  CHECK(r.err.find("has no output 'A' (its outputs: Y)") != std::string::npos);
  o.outputs = {{"Y", "a.npy"}, {"Y", "b.npy"}};
  CHECK(run(g, o).status == interp::kExitBadCommand);
}

TEST_CASE("bad input files fail the run and write nothing", "[run]") {
  TempDir dir;
  ir::Graph g = program();
  interp::RunOptions o;
  o.outputs = {{"Y", dir.file("y.npy")}};
  SECTION("shape mismatch") {
    interp::writeNpy(dir.file("a.npy"), Tensor({3, 2}), ir::DType::F32);
    o.inputs = {{"A", dir.file("a.npy")}};
    Result r = run(g, o);
    CHECK(r.status == interp::kExitFailed);
    CHECK(r.err.find("a.npy: shape [3, 2] does not match input 'A' f16[2, 3]") != std::string::npos);
  }
  SECTION("missing file") {
    o.inputs = {{"A", dir.file("none.npy")}};
    Result r = run(g, o);
    CHECK(r.status == interp::kExitFailed);
    CHECK(r.err.find("none.npy: cannot open") != std::string::npos);
  }
  SECTION("not a .npy file") {
    interp::writeFileAtomically(dir.file("a.npy"), "garbage");
    o.inputs = {{"A", dir.file("a.npy")}};
    Result r = run(g, o);
    CHECK(r.status == interp::kExitFailed);
    CHECK(r.err.find("not a valid .npy file") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(dir.file("y.npy")));
}

TEST_CASE("an unwritable output fails the run", "[run]") {
  interp::RunOptions o;
  o.outputs = {{"Y", "/nonexistent/dir/y.npy"}};
  Result r = run(program(), o);
  CHECK(r.status == interp::kExitFailed);
  CHECK(r.err.find("/nonexistent/dir/y.npy") != std::string::npos);
}

TEST_CASE("a program too large for memory is refused, not attempted", "[run]") {
  ir::Graph g;
  g.name = "huge";
  g.dtype = ir::DType::F16;
  ValueId a = input(g, "A", {int64_t{1} << 20, int64_t{1} << 20});  // 2^40 elements
  g.outputs = {unary(g, OpKind::Exp, a)};
  Result r = run(g, {});
  CHECK(r.status == interp::kExitFailed);
  CHECK(r.err.find("program 'huge' needs up to 8192.0 GiB") != std::string::npos);
}
