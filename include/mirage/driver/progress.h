// The search's progress on standard error, as build tools show it: on a
// terminal one line rewritten in place (carriage return, the text, erase to
// the end of the line -- ninja's and cargo's convention), ended with a
// newline when the search ends; in a log (a file, a pipe, CI) a plain line
// every few seconds, so that a long run does not fill the log with a line a
// second.
#pragma once

#include <iosfwd>
#include <string>

namespace mirage::driver {

class ProgressLine {
 public:
  // `terminal`: the stream is an interactive terminal. `logInterval`: the
  // seconds between two lines in a log. `width`: the terminal's columns
  // (0: unknown); a longer line is cut so that it never wraps (a wrapped
  // line cannot be rewritten with a carriage return).
  ProgressLine(std::ostream& out, bool terminal, double logInterval = 5.0, int width = 0);

  // The status `text` at `seconds` into the search (called about once a
  // second). In a log only one call per interval prints.
  void update(const std::string& text, double seconds);
  // Erases the in-place line before some other message is written (terminal
  // only; the next update draws it again).
  void clear();
  // The search ended: ends the in-place line with a newline, leaving the last
  // status visible.
  void finish();

  bool terminal() const { return terminal_; }

 private:
  std::ostream& out_;
  bool terminal_;
  double logInterval_;
  int width_;
  bool shown_ = false;         // terminal: an unterminated status line is on screen
  double lastLogged_ = 0;      // log: when the last line was printed
};

// Whether `err` is the process's standard error and that is a terminal,
// and its width in columns (0 when unknown).
bool stderrIsTerminal(const std::ostream& err, int* width);

}  // namespace mirage::driver
