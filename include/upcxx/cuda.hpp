// cuda_device (NVIDIA GPUs through CUDA; UPC++ 2020.10): the device type of memory_kind::cuda_device, and
// device_allocator<cuda_device>.
//
// This build of Gannet has no CUDA support: UPCXX_KIND_CUDA is not defined, device_n() is 0,
// kind_info() says so, a default-constructed cuda_device or one opened with invalid_device_id is
// inactive, and opening a device with any other ID ends the job with a message that names
// the build. Rules as for every device (device_fwd.hpp).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/device_allocator.hpp"
#include "upcxx/device_fwd.hpp"
#include "upcxx/memory_kind.hpp"

namespace upcxx {

class cuda_device final : public detail::gpu_device_of<memory_kind::cuda_device> {
 public:
  using gpu_device_of::gpu_device_of;
};

}  // namespace upcxx
