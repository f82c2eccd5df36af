// ze_device (Intel GPUs through oneAPI Level Zero; UPC++ 2023.3): the device type of memory_kind::ze_device, and
// device_allocator<ze_device>.
//
// This build of Gannet has no ZE support: UPCXX_KIND_ZE is not defined, device_n() is 0,
// kind_info() says so, a default-constructed ze_device or one opened with invalid_device_id is
// inactive, and opening a device with any other ID ends the job with a message that names
// the build. Rules as for every device (device_fwd.hpp).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/device_allocator.hpp"
#include "upcxx/device_fwd.hpp"
#include "upcxx/memory_kind.hpp"

namespace upcxx {

class ze_device final : public detail::gpu_device_of<memory_kind::ze_device> {
 public:
  using gpu_device_of::gpu_device_of;
};

}  // namespace upcxx
