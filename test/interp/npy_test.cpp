// .npy reading and writing: round trips, the exact bytes NumPy writes, other
// versions and float64, and every kind of bad file.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "mirage/interp/npy.h"
#include "mirage/interp/rounding.h"

using namespace mirage;
using interp::NpyError;
using interp::Tensor;

namespace {

// A .npy file with the given version and header dict, followed by `data`.
std::string npyBytes(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  size_t pre = 6 + 2 + (major == 1 ? 2 : 4);
  while ((pre + header.size() + 1) % 64 != 0) header.push_back(' ');
  header.push_back('\n');
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  uint32_t len = static_cast<uint32_t>(header.size());
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  return out + header + data;
}

template <typename T>
std::string raw(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return s;
}

std::filesystem::path tempDir() {
  auto dir = std::filesystem::temp_directory_path() / ("mirage-npy-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

Tensor parse(const std::string& bytes, ir::DType t = ir::DType::F32) {
  return interp::parseNpy(bytes, "x.npy", t);
}

}  // namespace

TEST_CASE("npy: float32 header is byte for byte what NumPy writes", "[npy]") {
  Tensor t({2, 3}, {1, 2, 3, 4, 5, 6});
  std::string b = interp::formatNpy(t, ir::DType::F32);
  // np.save of np.arange(1, 7, dtype=np.float32).reshape(2, 3)
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  REQUIRE(b.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  size_t len = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
  CHECK((10 + len) % 64 == 0);
  CHECK(b.substr(10, header.size()) == header);
  CHECK(b[10 + len - 1] == '\n');
  CHECK(b.size() == 10 + len + 6 * 4);
  CHECK(b.substr(10 + len) == raw<float>({1, 2, 3, 4, 5, 6}));
}

TEST_CASE("npy: 1-d shapes are written as (n,)", "[npy]") {
  std::string b = interp::formatNpy(Tensor({5}), ir::DType::F16);
  CHECK(b.find("'descr': '<f2', 'fortran_order': False, 'shape': (5,), }") != std::string::npos);
}

TEST_CASE("npy: round trips", "[npy]") {
  Tensor t({2, 2}, {1.0f, -0.333251953125f, 65504.0f, std::ldexp(1.0f, -24)});
  SECTION("f16 (exactly representable values)") {
    Tensor r = parse(interp::formatNpy(t, ir::DType::F16), ir::DType::F16);
    CHECK(r.shape == t.shape);
    CHECK(r.data == t.data);
  }
  SECTION("f32") {
    Tensor u({3}, {0.1f, -1e30f, 3.5f});
    Tensor r = parse(interp::formatNpy(u, ir::DType::F32), ir::DType::F32);
    CHECK(r.data == u.data);
  }
  SECTION("bf16 is written as float32") {
    Tensor u({2}, {1.5f, -2.0f});
    std::string b = interp::formatNpy(u, ir::DType::BF16);
    CHECK(b.find("'<f4'") != std::string::npos);
    CHECK(parse(b, ir::DType::BF16).data == u.data);
  }
  SECTION("writing rounds to the dtype") {
    Tensor u({1}, {0.1f});
    Tensor r = parse(interp::formatNpy(u, ir::DType::F16), ir::DType::F32);
    CHECK(r.data[0] == interp::roundToDType(0.1f, ir::DType::F16));
  }
  SECTION("through a file") {
    auto path = (tempDir() / "t.npy").string();
    interp::writeNpy(path, t, ir::DType::F16);
    CHECK(interp::readNpy(path, ir::DType::F16).data == t.data);
    std::filesystem::remove(path);
  }
}

TEST_CASE("npy: reading converts to the input dtype", "[npy]") {
  std::string f32 = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                             raw<float>({0.1f, 70000.0f}));
  Tensor h = parse(f32, ir::DType::F16);
  CHECK(h.data[0] == interp::roundToDType(0.1f, ir::DType::F16));
  CHECK(std::isinf(h.data[1]));
  Tensor b = parse(f32, ir::DType::BF16);
  CHECK(b.data[0] == interp::roundToDType(0.1f, ir::DType::BF16));
  uint16_t one = 0x3c00, two = 0x4000;
  Tensor fromHalf = parse(npyBytes("{'descr': '<f2', 'fortran_order': False, 'shape': (1, 2), }",
                                   raw<uint16_t>({one, two})),
                          ir::DType::F32);
  CHECK(fromHalf.shape == ir::Shape{1, 2});
  CHECK(fromHalf.data == std::vector<float>{1, 2});
}

TEST_CASE("npy: float64 rounds once to the dtype", "[npy]") {
  double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  Tensor t = parse(npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", raw<double>({x, -2.5})),
                   ir::DType::F16);
  CHECK(t.data[0] == 1.0f + std::ldexp(1.0f, -10));
  CHECK(t.data[1] == -2.5f);
}

TEST_CASE("npy: versions 2.0 and 3.0, key order, spacing, rank 0", "[npy]") {
  for (int major : {2, 3}) {
    Tensor t = parse(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", raw<float>({7}), major));
    CHECK(t.data == std::vector<float>{7});
  }
  Tensor t = parse(npyBytes("{\"shape\":(2,1),\"fortran_order\":False,\"descr\":\"<f4\"}", raw<float>({1, 2})));
  CHECK(t.shape == ir::Shape{2, 1});
  Tensor s = parse(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", raw<float>({3})));
  CHECK(s.shape.empty());
  CHECK(s.data == std::vector<float>{3});
}

TEST_CASE("npy: bad files give clear errors", "[npy]") {
  std::string good = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", raw<float>({1, 2, 3, 4}));
  auto fails = [](const std::string& bytes, const std::string& message) {
    INFO("expected: " << message);
    CHECK_THROWS_WITH(parse(bytes), Catch::Contains("x.npy: ") && Catch::Contains(message));
  };
  fails("", "magic");
  fails("hello, world, this is not numpy", "magic");
  fails(std::string("\x93NUMPY", 6), "magic");
  fails(good.substr(0, 9), "truncated before the header length");
  fails(good.substr(0, 40), "truncated inside the header");
  fails(good.substr(0, good.size() - 1), "truncated: shape (2, 2) of '<f4' needs 16 data bytes, the file has 15");
  fails(good + "xx", "2 unexpected bytes after the data");
  std::string v9 = good;
  v9[6] = 9;
  fails(v9, "unsupported format version 9.0");
  fails(npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", raw<float>({1, 2, 3, 4})),
        "Fortran-order arrays are not supported");
  fails(npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", raw<int>({1})),
        "unsupported element type '<i4'");
  fails(npyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", "x"), "unsupported element type '|b1'");
  fails(npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", raw<float>({1})), "big-endian");
  fails(npyBytes("{'descr': '<f4', 'shape': (1,), }", raw<float>({1})), "header lacks");
  fails(npyBytes("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", raw<float>({1})), "True or False");
  fails(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", ""), "non-negative integer");
  fails(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", raw<float>({1})),
        "unknown header key 'extra'");
  fails(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", ""),
        "too large");
  fails(npyBytes("{'descr: '<f4'", ""), "");
  fails(npyBytes("[1, 2, 3]", ""), "expected '{'");
}

TEST_CASE("npy: unreadable and unwritable paths", "[npy]") {
  CHECK_THROWS_WITH(interp::readNpy("/nonexistent/dir/a.npy", ir::DType::F32),
                    Catch::Contains("/nonexistent/dir/a.npy: cannot open"));
  CHECK_THROWS_AS(interp::writeNpy("/nonexistent/dir/a.npy", Tensor({1}), ir::DType::F32), NpyError);
}

TEST_CASE("npy: writing replaces the file whole and leaves no temporary", "[npy]") {
  auto dir = tempDir() / "atomic";
  std::filesystem::create_directories(dir);
  auto path = (dir / "out.npy").string();
  interp::writeNpy(path, Tensor({1000}, 1.0f), ir::DType::F32);
  interp::writeNpy(path, Tensor({2}, 3.0f), ir::DType::F32);
  CHECK(interp::readNpy(path, ir::DType::F32).data == std::vector<float>{3, 3});
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++files;
  }
  CHECK(files == 1);
  std::filesystem::remove_all(dir);
}
