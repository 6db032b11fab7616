// Regions: a large program (a whole decoder layer, a chain of layers) is cut
// into contiguous runs of its operators, each searched on its own as a
// sub-program, and the regions' best μGraphs are stitched back into one
// program, verified whole against the input like any candidate. The search
// of one region is runSearch, unchanged; this header owns where to cut, how
// to form the sub-programs, how to stitch, and the loop that searches the
// regions on all cores and lets the cuts move. docs/search.md ("Regions")
// gives the rule and the figures.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"
#include "mirage/search/search.h"
#include "mirage/verify/verifier.h"

namespace mirage::search {

// The machine figures the cut rule prices a boundary with (the driver takes
// them from the backend's ArchSpec of the target).
struct RegionRule {
  int maxOps = 8;              // operators per region (inputs and constants not counted)
  int numSMs = 132;
  double launchUs = 2.0;       // what one more kernel launch costs
  double bandwidthGBs = 3350;  // device memory, for the bytes a cut writes and reads back
};

// Operators are numbered by their position among the program's ops that are
// neither inputs nor constants, in program (topological) order. Boundary b
// lies between operators b-1 and b.
struct Boundary {
  int position = 0;
  int64_t bytes = 0;      // tensors produced before b and used at or after b (program inputs excluded)
  double costUs = 0;      // one launch plus writing and reading those bytes: what fusing across could save
  bool eligible = false;  // every such tensor still splits across blocks (see docs/search.md)
  bool barrier = false;   // fusing across cannot pay: a kernel on both sides would run on too few blocks
  int culprit = -1;       // the operator after b that needs whole rows (for a barrier)
};

std::vector<int> operatorOps(const ir::Graph& program);  // indices into program.ops
std::vector<Boundary> analyzeBoundaries(const ir::Graph& program, const RegionRule& rule);

// Positions at which a new region starts (increasing, each in (0, operators)).
using Cuts = std::vector<int>;

// The cut rule: one cut per run of barriers with the same culprit (the
// cheapest of the run), then, in any stretch still longer than maxOps, the
// cheapest set of eligible boundaries that brings every region within it
// (dynamic programming on Boundary::costUs; any boundary if no eligible one
// will do). Before that stretch step and after it, a region that falls apart
// into independent parts (no operator after a boundary reads a value made
// within the region before it) is cut between them: a region search gives up
// only fusing them side by side (docs/search.md, "Independent parts").
Cuts chooseCuts(const ir::Graph& program, const RegionRule& rule);

// The cuts between the independent parts of a program alone (empty when it
// does not fall apart): the partition a small program is searched by when
// RegionOptions::mergeParts is set.
Cuts partCuts(const ir::Graph& program);

struct Region {
  int begin = 0, end = 0;  // operator positions [begin, end)
  // The sub-program, in canonical form so that equal regions (the same layer
  // of a chain) print the same text: inputs i0, i1, ... in order of first
  // use, outputs o0, o1, ... in value order, intermediates unnamed.
  ir::Graph program;
  std::vector<ir::ValueId> inputs;   // the whole program's value for each program.inputs
  std::vector<ir::ValueId> outputs;  // the whole program's value for each program.outputs
};

// Empty with *error set when the program cannot be split (a region's output
// is not a legal program output). A custom kernel of the program is copied
// into its region as it is.
std::vector<Region> splitRegions(const ir::Graph& program, const Cuts& cuts, std::string* error);

// The whole program with region i's operators replaced by bests[i], a
// program with region i's inputs and outputs (in order). Input and output
// names are the program's. Empty graph with *error set on a mismatch.
ir::Graph stitchRegions(const ir::Graph& program, const std::vector<Region>& regions,
                        const std::vector<const ir::Graph*>& bests, std::string* error);

// Verifies a stitched program against the whole input: first as a whole,
// like any candidate; a whole check that refutes it rejects it. When the
// verifier cannot decide the whole (its bound stays too high: the degrees of
// several chained layers exceed what its fields can prove), it is proven by
// composition instead: `stitched` must be exactly the regions' μGraphs
// `bests` stitched at `cuts`, the regions' own sub-programs stitched at the
// same cuts must be the input (ir::sameGraph), and every μGraph must be
// proven equivalent to its region's sub-program (checked here, each distinct
// pair once, with `regionOptions`). The same holds when the whole check is
// "not proven" for a program that nests exps (docs/verifier.md, "Nested
// exps"). *byRegions tells which proof holds.
//
// `proven` (may be null): pairs (a region's printed sub-program, a μGraph's
// printed text) that a verifier with `regionOptions` has already proven
// equivalent, with the error bound it gave (the region searches' own checks):
// such a pair is not checked again. The key is the texts the proof is about,
// so a pair found there holds however the μGraph reached the stitch.
using ProvenPairs = std::map<std::pair<std::string, std::string>, double>;

verify::Verdict verifyStitched(const ir::Graph& program, const verify::Verifier& verifier, const Cuts& cuts,
                               const std::vector<ir::Graph>& bests, const ir::Graph& stitched,
                               const verify::Options& regionOptions, const verify::Cancel& cancel, bool* byRegions,
                               const ProvenPairs* proven = nullptr);

// Searches one region's sub-program (the driver's hook: runSearch with the
// region's own verifier, or a cache lookup). `seconds` is its time limit,
// `jobs` its threads. `seeds`: programs equivalent to the region by
// composition (its independent parts' bests stitched), for
// Options::seeds once the hook has verified them.
using RegionSearch = std::function<Result(const ir::Graph& regionProgram, double seconds, int jobs,
                                          const std::vector<ir::Graph>& seeds)>;

struct RegionOptions {
  RegionRule rule;
  int jobs = 1;                  // threads in all: regions run side by side, jobs split among them
  double secondsPerRegion = 5;   // time limit of one region's search
  double timeLimitSeconds = 0;   // 0 = none; the deadline of the whole region search
  int cutMoves = 2;              // cuts tried at neighbouring positions (0: fixed cuts)
  // The least time left to try a cut move: a moved cut's regions are small
  // (decoder_distinct_4's took 0.4 s), and a move is kept only when it makes
  // the stitched program cheaper, so one cut short by the deadline costs
  // nothing but that time.
  double secondsPerMove = 1;
  int moveDistance = 2;          // how far (in operators) a cut may move
  // Search the program by its independent parts (partCuts) instead of the
  // cut rule, then merge neighbouring regions, one pair at a time from the
  // left, while a merged region's best (searched with its parts' bests
  // stitched as a seed) makes the stitched program cheaper: side-by-side
  // fusion of parts whose joint space would be too large to search whole
  // (docs/search.md, "Independent parts"). No cut moves then.
  bool mergeParts = false;
  std::function<double(const ir::Graph&)> cost;  // ranks stitched programs (required)
  std::function<void(const std::string&)> log;   // progress notes (may be empty)
};

struct RegionTiming {
  int begin = 0, end = 0;
  double seconds = 0;          // its search (0 for a repeat of an earlier region of the same text)
  int kernels = 0;             // launches of its best
  double costUs = 0;
  bool reused = false;         // an earlier region of this partition has the same canonical text
  std::string origin;
};

struct RegionsResult {
  Cuts cuts;                           // the cuts of the stitched program
  Cuts initialCuts;                    // what chooseCuts gave
  std::vector<RegionTiming> regions;   // per region of `cuts`
  std::vector<ir::Graph> bests;        // per region of `cuts`: its μGraph (verified against the region)
  ir::Graph stitched;                  // not yet verified whole: the caller does that (verifyStitched)
  double costUs = 0;
  int movesTried = 0, movesKept = 0;
  int mergesTried = 0, mergesKept = 0;
  Stats stats;                         // summed over every region search
  std::string error;                   // set when nothing could be stitched
};

// Splits, searches every region (equal regions once), stitches, then tries
// moving the cuts next to the most expensive boundaries and keeps a move
// when the stitched program's cost drops.
RegionsResult searchRegions(const ir::Graph& program, const RegionSearch& search, const RegionOptions& options);

}  // namespace mirage::search
