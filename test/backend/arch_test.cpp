// Architecture names and the published figures behind them.
#include <catch2/catch.hpp>

#include "mirage/backend/arch.h"

using namespace mirage::backend;

TEST_CASE("arch strings parse to compute capabilities") {
  CHECK(parseSmArch("sm_80") == 80);
  CHECK(parseSmArch("sm_90a") == 90);
  CHECK(parseSmArch("compute_86") == 86);
  CHECK(parseSmArch("sm_100f") == 100);
  CHECK_FALSE(parseSmArch("sm_"));
  CHECK_FALSE(parseSmArch("sm_9x"));
  CHECK_FALSE(parseSmArch("90"));
}

TEST_CASE("targets map to the published figures") {
  REQUIRE(archSpecFor("sm_80"));
  CHECK(archSpecFor("sm_80")->numSMs == 108);
  CHECK(archSpecFor("A100")->dramBandwidthGBs == 2039);
  CHECK(archSpecFor("sm_90")->name == "H100-SXM5-80GB");
  CHECK(archSpecFor("sm_90a")->smArch == 90);
  CHECK(archSpecFor("h200")->dramBandwidthGBs == 4800);
  CHECK(archSpecFor("h200")->numSMs == 132);
  CHECK_FALSE(archSpecFor("sm_75"));  // below the generator's minimum
  CHECK_FALSE(archSpecFor("v100"));
  // H200 differs from H100 in memory only.
  CHECK(h200Spec().tensorTflops == h100Spec().tensorTflops);
  CHECK(h200Spec().dramBandwidthGBs > h100Spec().dramBandwidthGBs);
  CHECK(h100Spec().smemBytesPerBlock == 227 * 1024);
  CHECK(a100Spec().smemBytesPerBlock == 163 * 1024);
}
