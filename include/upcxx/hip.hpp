// hip_device (AMD GPUs through ROCm/HIP; UPC++ 2022.3): the device type of memory_kind::hip_device, and
// device_allocator<hip_device>.
//
// This build of Gannet has no HIP support: UPCXX_KIND_HIP is not defined, device_n() is 0,
// kind_info() says so, a default-constructed hip_device or one opened with invalid_device_id is
// inactive, and opening a device with any other ID ends the job with a message that names
// the build. Rules as for every device (device_fwd.hpp).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/device_allocator.hpp"
#include "upcxx/device_fwd.hpp"
#include "upcxx/memory_kind.hpp"

namespace upcxx {

class hip_device final : public detail::gpu_device_of<memory_kind::hip_device> {
 public:
  using gpu_device_of::gpu_device_of;
};

}  // namespace upcxx
