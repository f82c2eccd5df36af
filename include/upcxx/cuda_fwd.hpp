// Forward declarations of the CUDA memory kind (spec chapter 16): cuda_device and
// device_allocator, for headers that name them without using them. cuda.hpp defines them.
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/memory_kind.hpp"

namespace upcxx {
class cuda_device;
template <typename Device>
class device_allocator;
}  // namespace upcxx
