// GPU device objects (spec chapter 16; gpu_device since UPC++ 2022.3): the part common to
// cuda_device, hip_device and ze_device.
//
// A device object represents this process's share of a collective device: it is active when
// it was opened with a valid device ID, and inactive when default-constructed, opened with
// invalid_device_id, moved from or destroyed. This build of Gannet has no GPU support, so
// there is no valid device ID: every device object is inactive, `device_n()` is 0, and
// opening a device by ID ends the job with a message that names the build (debug and opt
// codemodes alike). Programs test for GPU support with the UPCXX_KIND_CUDA / _HIP / _ZE
// macros (undefined here) or at run time with `is_active()` / `device_n()`, and take their
// host path.
//
// Collective and progress rules (spec §16.2.1): opening a device and destroy() are
// collective over world() and called by the thread with the master persona; destroy() of an
// inactive device still runs its entry barrier (user-level progress for entry_barrier::user).
// Everything else here is local, progress level none.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <string>

#include "upcxx/detail/source_loc.hpp"
#include "upcxx/memory_kind.hpp"
#include "upcxx/team.hpp"

namespace upcxx {

namespace detail {
// src/rma/device.cpp. Ends the job: `what` (a device or allocator operation) needs GPU
// support of `kind`, which this build lacks.
[[noreturn]] void fail_no_device_support(const char* what, memory_kind kind, long long device_id,
                                         const source_loc& loc);
// Ends the job: operation `op` of a device_allocator of `kind` that is inactive, as every
// allocator is in this build.
[[noreturn]] void fail_inactive_allocator(const char* op, memory_kind kind, const source_loc& loc);
// kind_info() of a device kind in this build: says that the kind is not supported.
std::string device_kind_info(memory_kind kind);
// destroy() of an inactive device or allocator: only the entry barrier over world().
void device_destroy_inactive(entry_barrier lev);
}  // namespace detail

class gpu_device {
 public:
  using id_type = int;
  template <typename T>
  using pointer = T*;

  static constexpr id_type invalid_device_id = -1;
  // make_gpu_allocator(): choose a device (UPC++ 2022.3).
  static constexpr id_type auto_device_id = -2;

  template <typename T>
  static constexpr pointer<T> null_pointer() noexcept {
    return nullptr;
  }

  memory_kind kind() const noexcept { return kind_; }
  // Never true in this build (no valid device ID exists).
  bool is_active() const noexcept { return false; }
  id_type device_id() const noexcept { return invalid_device_id; }
  std::string kind_info() const { return detail::device_kind_info(kind_); }

  // Collective over world() (spec §16.2.1 ¶25): the entry barrier lev, then this object is
  // inactive (it already is).
  virtual void destroy(entry_barrier lev = entry_barrier::user) { detail::device_destroy_inactive(lev); }

  virtual ~gpu_device() = default;

 protected:
  explicit gpu_device(memory_kind kind) noexcept : kind_(kind) {}
  gpu_device(const gpu_device&) = delete;
  gpu_device& operator=(const gpu_device&) = delete;
  // Moving leaves the source inactive (spec §16.2.1 ¶23); both are inactive here.
  gpu_device(gpu_device&& other) noexcept : kind_(other.kind_) {}
  gpu_device& operator=(gpu_device&&) noexcept { return *this; }

  // The alignment of Device::default_alignment<T>(): at least `normal`.
  static constexpr std::size_t default_alignment_for(std::size_t align_of_t, std::size_t normal) noexcept {
    return align_of_t < normal ? normal : align_of_t;
  }

  // A device constructor with a device ID: only invalid_device_id is valid in this build.
  static void check_open(const char* what, memory_kind kind, id_type device_id, const detail::source_loc& loc) {
    if (device_id != invalid_device_id) detail::fail_no_device_support(what, kind, device_id, loc);
  }

 private:
  memory_kind kind_;
};

namespace detail {

// The names a device kind's messages use.
constexpr const char* device_open_what(memory_kind kind) {
  return kind == memory_kind::hip_device  ? "upcxx::hip_device(device_id)"
         : kind == memory_kind::ze_device ? "upcxx::ze_device(device_id)"
                                          : "upcxx::cuda_device(device_id)";
}
constexpr const char* device_uuid_what(memory_kind kind) {
  return kind == memory_kind::hip_device  ? "upcxx::hip_device::uuid"
         : kind == memory_kind::ze_device ? "upcxx::ze_device::uuid"
                                          : "upcxx::cuda_device::uuid";
}

// Everything of cuda_device, hip_device and ze_device but their names: in this build they
// differ in their memory kind only (cuda.hpp, hip.hpp, ze.hpp derive from it).
template <memory_kind K>
class gpu_device_of : public gpu_device {
 public:
  static constexpr memory_kind kind = K;

  // Inactive; touches no runtime state, so it may be built before init().
  gpu_device_of() noexcept : gpu_device(K) {}
  // Collective over world() (spec §16.2.1 ¶18). invalid_device_id: an inactive device;
  // any other ID: fatal here (no support for the kind).
  gpu_device_of(id_type device_id, source_loc loc = source_loc::current()) : gpu_device(K) {
    check_open(device_open_what(K), K, device_id, loc);
  }

  // How many devices of this kind this process can open (UPC++ 2022.3): none here.
  static id_type device_n() noexcept { return 0; }

  template <typename T>
  static constexpr std::size_t default_alignment() noexcept {
    return default_alignment_for(alignof(T), normal_alignment);
  }
  static constexpr std::size_t min_alignment = 16;

  // A description of the kind's configuration (UPC++ 2023.3): that there is none here.
  static std::string kind_info() { return device_kind_info(K); }
  // The hardware UUID of a device (UPC++ 2023.9): no device ID is valid here.
  static std::string uuid(id_type device_id, source_loc loc = source_loc::current()) {
    fail_no_device_support(device_uuid_what(K), K, device_id, loc);
  }

  void destroy(entry_barrier lev = entry_barrier::user) override { gpu_device::destroy(lev); }

 private:
  static constexpr std::size_t normal_alignment = 256;
};

}  // namespace detail

}  // namespace upcxx
