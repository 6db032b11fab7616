// .npy reading and writing; see npy.h. The format
// (numpy.lib.format): the magic "\x93NUMPY", a major and minor version byte,
// the header length (2 bytes little-endian in 1.0, 4 bytes in 2.0/3.0), a
// header that is a Python dict literal with the keys 'descr', 'fortran_order'
// and 'shape', then the raw elements.
#include "mirage/interp/npy.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "mirage/interp/rounding.h"

namespace mirage::interp {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the .npy code assumes a little-endian host");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

// A cursor over the header dict text.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& file) : s_(text), file_(file) {}

  void parse(std::string& descr, bool& fortran, ir::Shape& shape) {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    expect('{');
    for (;;) {
      skipSpace();
      if (peek() == '}') break;
      std::string key = parseString();
      expect(':');
      if (key == "descr") {
        descr = parseString();
        haveDescr = true;
      } else if (key == "fortran_order") {
        fortran = parseBool();
        haveFortran = true;
      } else if (key == "shape") {
        shape = parseShape();
        haveShape = true;
      } else {
        fail(fmt::format("unknown header key '{}'", key));
      }
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail("expected ',' or '}' in the header");
    }
    ++pos_;
    if (!haveDescr || !haveFortran || !haveShape)
      fail("header lacks one of 'descr', 'fortran_order', 'shape'");
    skipSpace();
    if (pos_ != s_.size()) fail("unexpected text after the header dict");
  }

 private:
  using Shape = ir::Shape;

  [[noreturn]] void fail(const std::string& what) {
    throw NpyError(fmt::format("{}: not a valid .npy file: {}", file_, what));
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    skipSpace();
    if (peek() != c) fail(fmt::format("expected '{}' in the header", c));
    ++pos_;
  }
  std::string parseString() {
    skipSpace();
    char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string in the header");
    size_t end = s_.find(q, pos_ + 1);
    if (end == std::string_view::npos) fail("unterminated string in the header");
    std::string out(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return out;
  }
  bool parseBool() {
    skipSpace();
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("expected True or False for 'fortran_order'");
  }
  Shape parseShape() {
    Shape shape;
    expect('(');
    for (;;) {
      skipSpace();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') fail("expected a non-negative integer in 'shape'");
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (v > (int64_t{1} << 50)) fail("extent in 'shape' is too large");
        v = v * 10 + (peek() - '0');
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 long literal
      shape.push_back(v);
      if (shape.size() > 32) fail("'shape' has more than 32 dims");
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') fail("expected ',' or ')' in 'shape'");
    }
    ++pos_;
    return shape;
  }

  std::string_view s_;
  const std::string& file_;
  size_t pos_ = 0;
};

uint32_t readLE(const std::string& b, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<size_t>(i)]);
  return v;
}

std::string shapeTuple(const ir::Shape& s) {
  if (s.size() == 1) return fmt::format("({},)", s[0]);
  return fmt::format("({})", fmt::join(s, ", "));
}

}  // namespace

Tensor parseNpy(const std::string& b, const std::string& file, ir::DType dtype) {
  auto fail = [&](const std::string& what) -> NpyError {
    return NpyError(fmt::format("{}: not a valid .npy file: {}", file, what));
  };
  if (b.size() < kMagicLen + 2 || std::memcmp(b.data(), kMagic, kMagicLen) != 0)
    throw fail("it does not start with the .npy magic \"\\x93NUMPY\"");
  int major = static_cast<unsigned char>(b[6]);
  int minor = static_cast<unsigned char>(b[7]);
  if (major < 1 || major > 3 || minor != 0)
    throw fail(fmt::format("unsupported format version {}.{} (1.0, 2.0 and 3.0 are read)", major, minor));
  int lenBytes = major == 1 ? 2 : 4;
  size_t headerStart = 8 + static_cast<size_t>(lenBytes);
  if (b.size() < headerStart) throw fail("truncated before the header length");
  size_t headerLen = readLE(b, 8, lenBytes);
  if (b.size() - headerStart < headerLen) throw fail("truncated inside the header");
  std::string_view header(b.data() + headerStart, headerLen);

  std::string descr;
  bool fortran = false;
  ir::Shape shape;
  HeaderParser(header, file).parse(descr, fortran, shape);

  if (fortran)
    throw NpyError(fmt::format("{}: Fortran-order arrays are not supported; save the array in C order "
                               "(numpy.ascontiguousarray)", file));
  if (descr.size() != 3 || (descr[0] != '<' && descr[0] != '=' && descr[0] != '>' && descr[0] != '|') ||
      descr[1] != 'f' || (descr[2] != '2' && descr[2] != '4' && descr[2] != '8'))
    throw NpyError(fmt::format("{}: unsupported element type '{}': expected float16 ('<f2'), "
                               "float32 ('<f4') or float64 ('<f8')", file, descr));
  if (descr[0] == '>')
    throw NpyError(fmt::format("{}: big-endian data ('{}') is not supported; use little-endian", file, descr));
  size_t item = static_cast<size_t>(descr[2] - '0');

  int64_t n = 1;
  for (int64_t e : shape) {
    if (e != 0 && n > (int64_t{1} << 40) / e) throw fail("the array is too large");
    n *= e;
  }
  size_t dataStart = headerStart + headerLen;
  size_t want = static_cast<size_t>(n) * item;
  size_t have = b.size() - dataStart;
  if (have < want)
    throw NpyError(fmt::format("{}: truncated: shape {} of '{}' needs {} data bytes, the file has {}",
                               file, shapeTuple(shape), descr, want, have));
  if (have > want)
    throw NpyError(fmt::format("{}: {} unexpected bytes after the data of shape {}", file,
                               have - want, shapeTuple(shape)));

  Tensor t(shape);
  const char* p = b.data() + dataStart;
  for (int64_t i = 0; i < n; ++i, p += item) {
    float& out = t.data[static_cast<size_t>(i)];
    if (item == 2) {
      uint16_t h;
      std::memcpy(&h, p, 2);
      out = roundToDType(halfBitsToFloat(h), dtype);
    } else if (item == 4) {
      float f;
      std::memcpy(&f, p, 4);
      out = roundToDType(f, dtype);
    } else {
      double d;
      std::memcpy(&d, p, 8);
      out = roundToDType(d, dtype);
    }
  }
  return t;
}

Tensor readNpy(const std::string& path, ir::DType dtype) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NpyError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw NpyError(fmt::format("{}: read error", path));
  return parseNpy(ss.str(), path, dtype);
}

std::string formatNpy(const Tensor& t, ir::DType dtype) {
  bool half = dtype == ir::DType::F16;
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   half ? "<f2" : "<f4", shapeTuple(t.shape));
  // Pad with spaces and end with '\n' so that magic + version + length +
  // header is a multiple of 64 bytes.
  size_t total = kMagicLen + 2 + 2 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic, kMagicLen);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  size_t item = half ? 2 : 4;
  size_t start = out.size();
  out.resize(start + t.data.size() * item);
  char* p = out.data() + start;
  for (float x : t.data) {
    float r = roundToDType(x, dtype);
    if (half) {
      uint16_t h = floatToHalfBits(r);
      std::memcpy(p, &h, 2);
    } else {
      std::memcpy(p, &r, 4);
    }
    p += item;
  }
  return out;
}

void writeFileAtomically(const std::string& path, const std::string& bytes) {
  std::string tmp = path + ".tmpXXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) throw NpyError(fmt::format("{}: cannot create a temporary file: {}", path, std::strerror(errno)));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      std::remove(tmp.c_str());
      throw NpyError(fmt::format("{}: write error: {}", path, std::strerror(err)));
    }
    done += static_cast<size_t>(w);
  }
  if (::close(fd) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw NpyError(fmt::format("{}: write error: {}", path, std::strerror(err)));
  }
  // mkstemp creates the file 0600; give it the usual permissions.
  ::chmod(tmp.c_str(), 0644);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw NpyError(fmt::format("{}: cannot write: {}", path, std::strerror(err)));
  }
}

void writeNpy(const std::string& path, const Tensor& t, ir::DType dtype) {
  writeFileAtomically(path, formatNpy(t, dtype));
}

}  // namespace mirage::interp
