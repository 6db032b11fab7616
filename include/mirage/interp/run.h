// The work of `mirage-run` for a .mg program (../shared/spec/cli.md): read
// the inputs from .npy files (or fill them from the seed), evaluate the
// program with the reference interpreter, and write the requested outputs as
// .npy. tools/mirage-run.cpp parses the command line and the program and
// calls runProgram, so tests can call it without starting a process.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "mirage/interp/tensor.h"
#include "mirage/ir/graph.h"

namespace mirage::interp {

// One `--in NAME=FILE` or `--out NAME=FILE`.
struct NamedFile {
  std::string name;
  std::string file;
};

// Splits "NAME=FILE" at the first '='. Returns false (and leaves `out`
// unspecified) when there is no '=' or either side is empty.
bool parseNamedFile(const std::string& text, NamedFile& out);

struct RunOptions {
  std::vector<NamedFile> inputs;   // --in
  std::vector<NamedFile> outputs;  // --out
  uint64_t seed = 0;               // fills inputs without --in (see randomTensor)
};

// Exit statuses of mirage-run.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;       // bad input file or failed run
inline constexpr int kExitBadCommand = 2;   // bad command line

// Runs `program` (already parsed and checked). Errors go to `err` as
// "mirage-run: error: ..." lines; when no --out is given, a one-line summary
// of each output (name, dtype, shape, min, max and mean of the finite
// elements, counts of NaN and infinity) goes to `out`. No output
// file is written unless the whole run succeeds, and each is written
// atomically. Returns an exit status: kExitBadCommand for --in/--out names
// that the program lacks, or given twice; kExitFailed for unreadable or
// mismatched input files and unwritable outputs.
// The one-line summary mirage-run prints for an output without --out:
// "NAME = DTYPE[SHAPE] min=… max=… mean=…" over the finite elements, then
// the counts of NaN and infinity when there are any. Shared by the .mg and
// .cu runners so their lines compare.
std::string summarizeOutput(const std::string& name, ir::DType dtype, const Tensor& t);

int runProgram(const ir::Graph& program, const RunOptions& options, std::ostream& out,
               std::ostream& err);

}  // namespace mirage::interp
