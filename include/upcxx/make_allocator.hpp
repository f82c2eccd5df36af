// make_gpu_allocator() and gpu_default_device (UPC++ 2022.3): open a GPU and its segment in
// one call, with the device type the build prefers.
//
// gpu_default_device is cuda_device (a build without GPU support names it so in UPC++ too),
// unless the translation unit defines UPCXX_GPU_DEFAULT_DEVICE_HIP or _ZE (or _CUDA) before
// including UPC++. make_gpu_allocator(size) with the default auto_device_id gives an
// inactive allocator when the process has no device of that kind, which is always the case
// in this build: a program checks `is_active()` and takes its host path. An explicit device
// ID other than invalid_device_id ends the job with a message that names the build.
// Collective over world(), master persona.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>

#include "upcxx/cuda.hpp"
#include "upcxx/detail/source_loc.hpp"
#include "upcxx/device_allocator.hpp"
#include "upcxx/hip.hpp"
#include "upcxx/ze.hpp"

namespace upcxx {

#if defined(UPCXX_GPU_DEFAULT_DEVICE_HIP) && UPCXX_GPU_DEFAULT_DEVICE_HIP
using gpu_default_device = hip_device;
#elif defined(UPCXX_GPU_DEFAULT_DEVICE_ZE) && UPCXX_GPU_DEFAULT_DEVICE_ZE
using gpu_default_device = ze_device;
#else
using gpu_default_device = cuda_device;
#endif

using gpu_heap_allocator = device_allocator<gpu_default_device>;

template <typename Device = gpu_default_device>
device_allocator<Device> make_gpu_allocator(std::size_t size,
                                            typename Device::id_type device_id = Device::auto_device_id,
                                            typename Device::template pointer<void> base = nullptr,
                                            detail::source_loc loc = detail::source_loc::current()) {
  // auto_device_id picks one of the process's devices, or none (an inactive allocator) when
  // it has no device: device_n() is 0 in this build.
  if (device_id == Device::auto_device_id) device_id = Device::invalid_device_id;
  Device device(device_id, loc);
  return device_allocator<Device>(device, size, base);
}

}  // namespace upcxx
