// mirage-run end to end: the built executable is started with a command line,
// reads .npy inputs and writes .npy outputs, and answers bad command lines
// and bad inputs with the contract's exit statuses.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "mirage/interp/npy.h"

using namespace mirage;
using interp::Tensor;

namespace {

namespace fs = std::filesystem;

struct Run {
  int status = -1;
  std::string out, err;
};

struct Sandbox {
  fs::path dir;
  Sandbox() {
    dir = fs::temp_directory_path() / ("mirage-run-tool-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::create_directories(dir);
  }
  ~Sandbox() { fs::remove_all(dir); }
  std::string file(const std::string& name) const { return (dir / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    return file(name);
  }
  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // Runs mirage-run with `args` (already shell-quoted where needed).
  Run run(const std::string& args) const {
    std::string cmd = std::string("'") + MIRAGE_RUN_PATH + "' " + args + " >'" + file("stdout") + "' 2>'" +
                      file("stderr") + "'";
    int raw = std::system(cmd.c_str());
    Run r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(file("stdout"));
    r.err = slurp(file("stderr"));
    return r;
  }
  static inline int n = 0;
};

const char* kProgram = R"(graph scale {
  A = input f32[2, 3]
  B = input f32[3]
  C = mul(add(A, B), 2)
  output C
}
)";

}  // namespace

TEST_CASE("mirage-run: inputs in, outputs out", "[tools][mirage-run]") {
  Sandbox s;
  std::string prog = s.write("scale.mg", kProgram);
  interp::writeNpy(s.file("a.npy"), Tensor({2, 3}, {1, 2, 3, 4, 5, 6}), ir::DType::F16);
  interp::writeNpy(s.file("b.npy"), Tensor({3}, {0.5f, 0, -1}), ir::DType::F32);
  Run r = s.run(prog + " --in A=" + s.file("a.npy") + " --in B=" + s.file("b.npy") + " --out C=" + s.file("c.npy"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  Tensor c = interp::readNpy(s.file("c.npy"), ir::DType::F32);
  CHECK(c.shape == ir::Shape{2, 3});
  CHECK(c.data == std::vector<float>{3, 4, 4, 9, 10, 10});
}

TEST_CASE("mirage-run: the seed fills missing inputs reproducibly", "[tools][mirage-run]") {
  Sandbox s;
  std::string prog = s.write("scale.mg", kProgram);
  REQUIRE(s.run(prog + " --seed 5 --out C=" + s.file("c1.npy")).status == 0);
  REQUIRE(s.run(prog + " --seed 5 --out C=" + s.file("c2.npy")).status == 0);
  CHECK(Sandbox::slurp(s.file("c1.npy")) == Sandbox::slurp(s.file("c2.npy")));
  Run summary = s.run(prog + " --seed 5");
  REQUIRE(summary.status == 0);
  CHECK(summary.out.rfind("C = f32[2, 3] min=", 0) == 0);
}

TEST_CASE("mirage-run: --help and --version", "[tools][mirage-run]") {
  Sandbox s;
  Run help = s.run("--help");
  CHECK(help.status == 0);
  CHECK(help.out.find("--in") != std::string::npos);
  CHECK(help.out.find("--seed") != std::string::npos);
  Run version = s.run("--version");
  CHECK(version.status == 0);
  CHECK(version.out.rfind("mirage-run ", 0) == 0);
}

TEST_CASE("mirage-run: bad command lines exit 2", "[tools][mirage-run]") {
  Sandbox s;
  std::string prog = s.write("scale.mg", kProgram);
  CHECK(s.run("").status == 2);
  CHECK(s.run(prog + " --bogus").status == 2);
  CHECK(s.run(prog + " --device tpu").status == 2);
  Run noEq = s.run(prog + " --in A");
  CHECK(noEq.status == 2);
  CHECK(noEq.err.find("--in expects NAME=FILE, got 'A'") != std::string::npos);
  Run unknown = s.run(prog + " --out D=" + s.file("d.npy"));
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("has no output 'D'") != std::string::npos);
  CHECK(s.run(prog + " --in Z=" + s.file("z.npy")).status == 2);
  CHECK(s.run(prog + " --device cuda").status == 2);
}

TEST_CASE("mirage-run: bad programs and inputs exit 1", "[tools][mirage-run]") {
  Sandbox s;
  std::string prog = s.write("scale.mg", kProgram);
  Run missing = s.run(s.file("nothere.mg"));
  CHECK(missing.status == 1);
  Run bad = s.run(s.write("bad.mg", "graph g {\n  A = input f32[2]\n  B = frobnicate(A)\n  output B\n}\n"));
  CHECK(bad.status == 1);
  CHECK(bad.err.find("bad.mg:3:") != std::string::npos);
  s.write("junk.npy", "not numpy at all");
  Run junk = s.run(prog + " --in A=" + s.file("junk.npy") + " --out C=" + s.file("c.npy"));
  CHECK(junk.status == 1);
  CHECK(junk.err.find("junk.npy: not a valid .npy file") != std::string::npos);
  CHECK_FALSE(fs::exists(s.file("c.npy")));
  interp::writeNpy(s.file("a.npy"), Tensor({3, 2}), ir::DType::F32);
  Run shape = s.run(prog + " --in A=" + s.file("a.npy"));
  CHECK(shape.status == 1);
  CHECK(shape.err.find("shape [3, 2] does not match input 'A' f32[2, 3]") != std::string::npos);
  // A .cu file that mirage-opt did not write: whether or not .cu programs
  // can run yet, this one fails with a message.
  Run cu = s.run(s.write("k.cu", "// not a mirage-opt kernel\n"));
  CHECK(cu.status == 1);
  CHECK(cu.err.find("mirage-run: ") != std::string::npos);
}
