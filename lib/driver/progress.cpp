// Progress on standard error (see progress.h).
#include "mirage/driver/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

#include <iostream>

namespace mirage::driver {

ProgressLine::ProgressLine(std::ostream& out, bool terminal, double logInterval, int width)
    : out_(out), terminal_(terminal), logInterval_(logInterval), width_(width) {}

void ProgressLine::update(const std::string& text, double seconds) {
  if (!terminal_) {
    if (seconds < lastLogged_ + logInterval_) return;
    lastLogged_ = seconds;
    out_ << text << "\n";
    out_.flush();
    return;
  }
  std::string shown = text;
  if (width_ > 1 && static_cast<int>(shown.size()) > width_ - 1) shown.resize(static_cast<size_t>(width_ - 1));
  out_ << "\r" << shown << "\x1b[K";
  out_.flush();
  shown_ = true;
}

void ProgressLine::clear() {
  if (!shown_) return;
  out_ << "\r\x1b[K";
  out_.flush();
  shown_ = false;
}

void ProgressLine::finish() {
  if (!shown_) return;
  out_ << "\n";
  out_.flush();
  shown_ = false;
}

bool stderrIsTerminal(const std::ostream& err, int* width) {
  *width = 0;
  if (&err != &std::cerr && &err != &std::clog) return false;
  if (!isatty(STDERR_FILENO)) return false;
  // A terminal that says it cannot move the cursor gets the log form.
  if (const char* term = std::getenv("TERM"); term && std::string(term) == "dumb") return false;
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0) *width = ws.ws_col;
  return true;
}

}  // namespace mirage::driver
