// The search's progress on standard error (mirage/driver/progress.h): in a
// log a line every five seconds, on a terminal one line rewritten in place.
#include <catch2/catch.hpp>

#include <sstream>

#include "mirage/driver/progress.h"
#include "test_util.h"

using mirage::driver::ProgressLine;

namespace {

int countOf(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("in a log the progress is a plain line every five seconds, not every second", "[driver]") {
  std::ostringstream log;
  ProgressLine p(log, /*terminal=*/false, 5.0);
  for (int s = 1; s <= 16; ++s) p.update("status " + std::to_string(s), s);  // once a second, as the search calls
  p.finish();
  CHECK(log.str() == "status 5\nstatus 10\nstatus 15\n");
  p.clear();  // nothing to erase in a log
  CHECK(log.str().find('\r') == std::string::npos);
  CHECK(log.str().find('\x1b') == std::string::npos);
}

TEST_CASE("on a terminal the progress is one line rewritten in place and ended with a newline", "[driver]") {
  std::ostringstream tty;
  ProgressLine p(tty, /*terminal=*/true, 5.0, /*width=*/20);
  p.update("first", 1);
  p.update("second", 2);
  CHECK(tty.str() == "\rfirst\x1b[K\rsecond\x1b[K");
  // A message in between erases the line; the next update draws it again.
  p.clear();
  tty << "a note\n";
  p.update("a status longer than the terminal is wide", 3);
  p.finish();
  p.finish();  // only one newline
  CHECK(tty.str() == "\rfirst\x1b[K\rsecond\x1b[K\r\x1b[Ka note\n\ra status longer tha\x1b[K\n");
}

TEST_CASE("mirage-opt writing to a log prints no more than a progress line per five seconds", "[driver]") {
  auto dir = test::tempDir("progress");
  // Element-wise: its search runs until the time limit.
  test::writeFile(dir / "p.mg",
                  "graph ew {\n  X = input f16[64, 64]\n  Y = input f16[64, 64]\n"
                  "  O = mul(rsqrt(add(square(Y), 0.5)), sqrt(add(square(X), 1)))\n  output O\n}\n");
  mirage::driver::Options o;
  o.input = (dir / "p.mg").string();
  o.device = "none";
  o.jobs = 1;
  o.noCache = true;
  o.timeLimitSeconds = 6;
  o.emitMg = (dir / "out.mg").string();
  auto r = test::runDriver(o);  // standard error is a string here, never a terminal
  REQUIRE(r.status == 0);
  int progress = countOf(r.err, " states, ") - countOf(r.err, "mirage-opt: search: ");
  CHECK(progress <= 1);  // before: one a second, five or six in 6 s
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(r.err.find('\x1b') == std::string::npos);
}
