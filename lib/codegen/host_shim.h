// The text of mirage_host_shim.h, the header a generated .cu file includes
// when it is compiled for the host (MIRAGE_HOST_SHIM defined): CUDA's
// keywords, types and built-ins emulated on the CPU. Written to a temporary
// directory by the host runner (mirage/codegen/host_runner.h).
#pragma once

#include <string>

namespace mirage::codegen {

const std::string& hostShimHeader();

}  // namespace mirage::codegen
