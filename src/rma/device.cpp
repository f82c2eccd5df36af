// The non-template side of the memory kinds (include/upcxx/device_fwd.hpp): this build has
// host memory only, so a device or allocator operation that needs a GPU ends the job with a
// message naming the build, and destroy() of an inactive device is its entry barrier.
#include <string>

#include "upcxx/device_fwd.hpp"
#include "upcxx/detail/diagnostics.hpp"

namespace upcxx::detail {
namespace {
struct kind_names {
  const char* device;  // the device type
  const char* vendor;  // what UPC++ calls the GPU support
  const char* macro;   // the feature macro a program tests
};

kind_names names_of(memory_kind kind) {
  switch (kind) {
    case memory_kind::cuda_device: return {"cuda_device", "CUDA", "UPCXX_KIND_CUDA"};
    case memory_kind::hip_device: return {"hip_device", "ROCm/HIP", "UPCXX_KIND_HIP"};
    case memory_kind::ze_device: return {"ze_device", "oneAPI Level Zero", "UPCXX_KIND_ZE"};
    default: return {"device", "GPU", "UPCXX_KIND_CUDA"};
  }
}

std::string no_support(memory_kind kind) {
  const kind_names n = names_of(kind);
  return std::string(": this Gannet build has no ") + n.vendor + " support (host-only build): every " + n.device +
         " is inactive (" + n.macro + " is undefined, " + n.device +
         "::device_n() is 0); open it with invalid_device_id or make_gpu_allocator(size), and take the host "
         "path when is_active() is false";
}
}  // namespace

void fail_no_device_support(const char* what, memory_kind kind, long long device_id, const source_loc& loc) {
  std::string msg = std::string(what);
  if (device_id >= 0) msg += " with device ID " + std::to_string(device_id);
  fail_at(loc, msg + no_support(kind));
}

void fail_inactive_allocator(const char* op, memory_kind kind, const source_loc& loc) {
  fail_at(loc, std::string("upcxx::device_allocator<") + names_of(kind).device + ">::" + op +
                   " on an inactive allocator" + no_support(kind));
}

std::string device_kind_info(memory_kind kind) {
  const kind_names n = names_of(kind);
  return std::string(n.device) + ": not supported by this Gannet build (host-only build, no " + n.vendor +
         " memory kind); no devices";
}

void device_destroy_inactive(entry_barrier lev) { entry_barrier_wait(world(), lev); }

}  // namespace upcxx::detail
