// ze_device (Intel GPUs through oneAPI Level Zero; UPC++ 2023.3): the device type of memory_kind::ze_device, and
// device_allocator<ze_device>.
//
// This build of Gannet has no ZE support: UPCXX_KIND_ZE is not defined, device_n() is 0,
// kind_info() says so, a default-constructed ze_device or one opened with invalid_device_id is
// inactive, and opening a device with any other ID ends the job with a message that names
// the build. Rules as for every device (device_fwd.hpp).
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <string>

#include "upcxx/detail/source_loc.hpp"
#include "upcxx/device_allocator.hpp"
#include "upcxx/device_fwd.hpp"
#include "upcxx/memory_kind.hpp"

namespace upcxx {

class ze_device final : public gpu_device {
 public:
  static constexpr memory_kind kind = memory_kind::ze_device;

  // Inactive; touches no runtime state, so it may be built before init().
  ze_device() noexcept : gpu_device(memory_kind::ze_device) {}
  // Collective over world() (spec §16.2.1 ¶18). invalid_device_id: an inactive device;
  // any other ID: fatal here (no ZE support).
  ze_device(id_type device_id, detail::source_loc loc = detail::source_loc::current())
      : gpu_device(memory_kind::ze_device) {
    check_open("upcxx::ze_device(device_id)", memory_kind::ze_device, device_id, loc);
  }
  ze_device(ze_device&& other) noexcept = default;
  ze_device& operator=(ze_device&& other) noexcept = default;

  // How many devices of this kind this process can open (UPC++ 2022.3): none here.
  static id_type device_n() noexcept { return 0; }

  template <typename T>
  static constexpr std::size_t default_alignment() noexcept {
    return default_alignment_for(alignof(T), normal_alignment);
  }
  static constexpr std::size_t min_alignment = 16;

  // A description of the ZE configuration (UPC++ 2023.3): that there is none here.
  static std::string kind_info() { return detail::device_kind_info(memory_kind::ze_device); }
  // The hardware UUID of a device (UPC++ 2023.9): no device ID is valid here.
  static std::string uuid(id_type device_id, detail::source_loc loc = detail::source_loc::current()) {
    detail::fail_no_device_support("upcxx::ze_device::uuid", memory_kind::ze_device, device_id, loc);
  }

  void destroy(entry_barrier lev = entry_barrier::user) override { gpu_device::destroy(lev); }

 private:
  static constexpr std::size_t normal_alignment = 256;
};

}  // namespace upcxx
