// cuda_device (NVIDIA GPUs through CUDA; UPC++ 2020.10): the device type of memory_kind::cuda_device, and
// device_allocator<cuda_device>.
//
// This build of Gannet has no CUDA support: UPCXX_KIND_CUDA is not defined, device_n() is 0,
// kind_info() says so, a default-constructed cuda_device or one opened with invalid_device_id is
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

class cuda_device final : public gpu_device {
 public:
  static constexpr memory_kind kind = memory_kind::cuda_device;

  // Inactive; touches no runtime state, so it may be built before init().
  cuda_device() noexcept : gpu_device(memory_kind::cuda_device) {}
  // Collective over world() (spec §16.2.1 ¶18). invalid_device_id: an inactive device;
  // any other ID: fatal here (no CUDA support).
  cuda_device(id_type device_id, detail::source_loc loc = detail::source_loc::current())
      : gpu_device(memory_kind::cuda_device) {
    check_open("upcxx::cuda_device(device_id)", memory_kind::cuda_device, device_id, loc);
  }
  cuda_device(cuda_device&& other) noexcept = default;
  cuda_device& operator=(cuda_device&& other) noexcept = default;

  // How many devices of this kind this process can open (UPC++ 2022.3): none here.
  static id_type device_n() noexcept { return 0; }

  template <typename T>
  static constexpr std::size_t default_alignment() noexcept {
    return default_alignment_for(alignof(T), normal_alignment);
  }
  static constexpr std::size_t min_alignment = 16;

  // A description of the CUDA configuration (UPC++ 2023.3): that there is none here.
  static std::string kind_info() { return detail::device_kind_info(memory_kind::cuda_device); }
  // The hardware UUID of a device (UPC++ 2023.9): no device ID is valid here.
  static std::string uuid(id_type device_id, detail::source_loc loc = detail::source_loc::current()) {
    detail::fail_no_device_support("upcxx::cuda_device::uuid", memory_kind::cuda_device, device_id, loc);
  }

  void destroy(entry_barrier lev = entry_barrier::user) override { gpu_device::destroy(lev); }

 private:
  static constexpr std::size_t normal_alignment = 256;
};

}  // namespace upcxx
