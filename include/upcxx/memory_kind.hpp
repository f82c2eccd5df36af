// Memory kinds (spec §3.2 ¶3, chapter 16): the constants a global_ptr is parameterized by.
//
// host is the shared segment; the device kinds name memory of a GPU opened through a device
// object (cuda_device, hip_device from UPC++ 2022.3, ze_device from 2023.3). This build of
// Gannet has host memory only: the device kinds exist so that a program with a GPU path
// compiles and takes its host path (docs/compatibility.md, "Memory kinds"). Pure constants,
// no runtime state.
#pragma once

#include "upcxx/version.hpp"

namespace upcxx {

enum class memory_kind : int { any = 0, host = 1, cuda_device = 2, hip_device = 3, ze_device = 4 };

}  // namespace upcxx
