// GPU memory kinds as programs written for UPC++ 2022.3 to 2023.9 use them
// (example/gpu_vecadd style): make_gpu_allocator with gpu_default_device, hip_device and
// ze_device, the gpu_device and heap_allocator bases, device_n(), kind_info(),
// segment_size()/segment_used(), move assignment, and the UPCXX_KIND_* feature macros. On a
// build without GPU support every allocator is inactive and the program takes its host path.
//
// With an argument, for the failure-path tests (tests/CMakeLists.txt): "open-hip" asks
// make_gpu_allocator<hip_device> for device 1; "allocate-inactive" allocates from the
// inactive default allocator.
#include <upcxx/upcxx.hpp>

#include <cstdint>
#include <iostream>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "compat_check.hpp"

using gp_device = upcxx::global_ptr<double, upcxx::gpu_default_device::kind>;

#if defined(UPCXX_KIND_CUDA) || defined(UPCXX_KIND_HIP) || defined(UPCXX_KIND_ZE)
constexpr bool build_has_gpu = true;
#else
constexpr bool build_has_gpu = false;
#endif

static_assert(std::is_base_of<upcxx::gpu_device, upcxx::cuda_device>::value &&
                  std::is_base_of<upcxx::gpu_device, upcxx::hip_device>::value &&
                  std::is_base_of<upcxx::gpu_device, upcxx::ze_device>::value,
              "the device types derive from gpu_device (2022.3)");
static_assert(std::is_base_of<upcxx::heap_allocator, upcxx::gpu_heap_allocator>::value,
              "device_allocator derives from heap_allocator (2022.3)");
static_assert(upcxx::hip_device::kind == upcxx::memory_kind::hip_device &&
                  upcxx::ze_device::kind == upcxx::memory_kind::ze_device,
              "device kinds");
static_assert(std::is_same<upcxx::gpu_heap_allocator, upcxx::device_allocator<upcxx::gpu_default_device>>::value,
              "gpu_heap_allocator");
static_assert(std::is_move_assignable<upcxx::device_allocator<upcxx::hip_device>>::value &&
                  std::is_move_assignable<upcxx::cuda_device>::value,
              "MoveAssignable since 2022.3");

// What a portable program prints about its GPU: is_active() and kind_info() through the bases.
std::string describe(const upcxx::heap_allocator& alloc, const upcxx::gpu_device& dev) {
  return std::string(alloc.is_active() ? "active" : "inactive") + " " + dev.kind_info();
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const std::size_t segsize = 3 * 1024 * sizeof(double);

  if (mode == "open-hip") {
    auto hip_alloc = upcxx::make_gpu_allocator<upcxx::hip_device>(segsize, 1);
    std::cout << "open-hip: " << (hip_alloc.is_active() ? "active" : "inactive") << std::endl;
    hip_alloc.destroy();
    upcxx::finalize();
    return 0;
  }

  auto gpu_alloc = upcxx::make_gpu_allocator(segsize);  // auto_device_id: any device, or none
  if (mode == "allocate-inactive") {
    gp_device p = gpu_alloc.allocate<double>(8);
    std::cout << "allocate-inactive: got " << p << std::endl;
    upcxx::finalize();
    return 0;
  }

  COMPAT_CHECK(!build_has_gpu);
  COMPAT_CHECK(upcxx::cuda_device::device_n() == 0 && upcxx::hip_device::device_n() == 0 &&
               upcxx::ze_device::device_n() == 0);
  COMPAT_CHECK(!gpu_alloc.is_active());
  COMPAT_CHECK(gpu_alloc.device_id() == upcxx::gpu_default_device::invalid_device_id);
  COMPAT_CHECK(gpu_alloc.segment_size() == 0 && gpu_alloc.segment_used() == 0);
  const upcxx::heap_allocator& base = gpu_alloc;
  COMPAT_CHECK(base.kind() == upcxx::gpu_default_device::kind && !base.is_active());

  // Each device type: opened with auto or invalid IDs, all inactive, described by kind_info().
  auto hip_alloc = upcxx::make_gpu_allocator<upcxx::hip_device>(segsize);
  auto ze_alloc = upcxx::make_gpu_allocator<upcxx::ze_device>(segsize, upcxx::ze_device::invalid_device_id);
  upcxx::hip_device hip(upcxx::hip_device::invalid_device_id);
  upcxx::ze_device ze;
  upcxx::cuda_device cuda;
  COMPAT_CHECK(!hip_alloc.is_active() && !ze_alloc.is_active() && !hip.is_active() && !ze.is_active());
  const upcxx::gpu_device &hip_base = hip, &ze_base = ze;  // kind() through the base; ::kind on the type
  COMPAT_CHECK(hip_base.kind() == upcxx::hip_device::kind && ze_base.kind() == upcxx::memory_kind::ze_device);
  const std::string hip_info = describe(hip_alloc, hip);
  COMPAT_CHECK(hip_info.rfind("inactive hip_device", 0) == 0);
  COMPAT_CHECK(describe(ze_alloc, ze).rfind("inactive ze_device", 0) == 0);
  COMPAT_CHECK(describe(gpu_alloc, cuda).rfind("inactive cuda_device", 0) == 0);
  COMPAT_CHECK(upcxx::cuda_device::kind_info() == cuda.kind_info() && !cuda.kind_info().empty());
  COMPAT_CHECK(upcxx::hip_device::kind_info() != upcxx::cuda_device::kind_info());
  COMPAT_CHECK(upcxx::ze_device::auto_device_id != upcxx::ze_device::invalid_device_id);

  // Move assignment into an inactive allocator (2022.3).
  upcxx::device_allocator<upcxx::hip_device> later;
  later = std::move(hip_alloc);
  COMPAT_CHECK(!later.is_active() && !hip_alloc.is_active());

  // The vector add of example/gpu_vecadd, host path: rank 0's arrays, a chunk per rank.
  const int N = 1024;
  upcxx::global_ptr<double> a = upcxx::new_array<double>(N), b = upcxx::new_array<double>(N);
  for (int i = 0; i < N; ++i) {
    a.local()[i] = i;
    b.local()[i] = 2.0 * i;
  }
  upcxx::dist_object<upcxx::global_ptr<double>> da(a), db(b);
  upcxx::global_ptr<double> root_a = da.fetch(0).wait(), root_b = db.fetch(0).wait();
  const int chunk = (N + n - 1) / n, lo = std::min(N, me * chunk), hi = std::min(N, lo + chunk);
  std::vector<double> x(N), y(N), sum(static_cast<std::size_t>(hi - lo));
  if (gpu_alloc.is_active()) {
    gp_device dA = gpu_alloc.allocate<double>(N), dB = gpu_alloc.allocate<double>(N);
    upcxx::when_all(upcxx::copy(root_a, dA, N), upcxx::copy(root_b, dB, N)).wait();
    upcxx::when_all(upcxx::copy(dA, x.data(), N), upcxx::copy(dB, y.data(), N)).wait();
    gpu_alloc.deallocate(dA);
    gpu_alloc.deallocate(dB);
    COMPAT_CHECK(false);  // no device in this build
  } else {
    upcxx::when_all(upcxx::rget(root_a, x.data(), N), upcxx::rget(root_b, y.data(), N)).wait();
  }
  for (int i = lo; i < hi; ++i) sum[static_cast<std::size_t>(i - lo)] = x[static_cast<std::size_t>(i)] + y[static_cast<std::size_t>(i)];
  double mine = std::accumulate(sum.begin(), sum.end(), 0.0);
  double total = upcxx::reduce_all(mine, upcxx::op_fast_add).wait();
  COMPAT_CHECK(total == 3.0 * (N - 1) * N / 2);

  upcxx::barrier();
  upcxx::delete_array(a);
  upcxx::delete_array(b);
  gpu_alloc.destroy();  // collective, as for an active allocator
  later.destroy(upcxx::entry_barrier::internal);
  ze_alloc.destroy();
  hip.destroy();
  if (me == 0) std::cout << "r2023_3_gpu_memory_kinds: OK" << std::endl;
  upcxx::finalize();
}
