// A program with a GPU path, written for UPC++ 2020.10 (spec chapter 16), run on a build
// without GPU support: it compiles, finds its cuda_device and device_allocator inactive and
// takes its host path. The GPU path (device allocation, copy() between host and device
// memory, device pointers in a dist_object and a broadcast) is compiled but not taken.
//
// With an argument it does one thing a host-only build cannot do, for the failure-path
// tests (tests/CMakeLists.txt): "open-cuda" opens device 0 on every rank.
#include <upcxx/upcxx.hpp>

#include <cstddef>
#include <iostream>
#include <string>
#include <type_traits>
#include <utility>

#include "compat_check.hpp"

using upcxx::cuda_device;
using upcxx::device_allocator;
using upcxx::global_ptr;
using upcxx::memory_kind;
using gp_device = global_ptr<double, memory_kind::cuda_device>;

static_assert(cuda_device::kind == memory_kind::cuda_device, "cuda_device::kind");
static_assert(std::is_same<cuda_device::id_type, int>::value, "cuda_device::id_type");
static_assert(std::is_same<cuda_device::pointer<double>, double*>::value, "cuda_device::pointer<T>");
static_assert(std::is_same<device_allocator<cuda_device>::device_type, cuda_device>::value, "device_type");
static_assert(std::is_same<decltype(std::declval<device_allocator<cuda_device>&>().allocate<double>(4)),
                           gp_device>::value,
              "allocate<T> returns global_ptr<T, Device::kind>");
static_assert(cuda_device::null_pointer<int>() == nullptr, "null_pointer<T>() is constexpr");
static_assert(std::is_default_constructible<cuda_device>::value && std::is_move_constructible<cuda_device>::value &&
                  !std::is_copy_constructible<cuda_device>::value,
              "cuda_device: DefaultConstructible, MoveConstructible, not copyable (spec 16.2.1 ¶2)");
static_assert(std::is_default_constructible<device_allocator<cuda_device>>::value &&
                  std::is_move_constructible<device_allocator<cuda_device>>::value,
              "device_allocator: DefaultConstructible, MoveConstructible (spec 16.2.2 ¶2)");

// Built before init(), as a global: a default-constructed device is inactive.
cuda_device g_unopened;
device_allocator<cuda_device> g_no_allocator;

constexpr std::size_t N = 256;

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();

  if (mode == "open-cuda") {
    cuda_device gpu(0);  // a host-only build has no device 0: the job ends here
    std::cout << "open-cuda: opened device " << gpu.device_id() << std::endl;
    gpu.destroy();
    upcxx::finalize();
    return 0;
  }

  COMPAT_CHECK(!g_unopened.is_active() && g_unopened.device_id() == cuda_device::invalid_device_id);
  COMPAT_CHECK(!g_no_allocator.is_active());

  std::size_t align = cuda_device::default_alignment<double>();
  COMPAT_CHECK(align >= alignof(double) && (align & (align - 1)) == 0);

  // The guide's pattern: a device on the processes that have one, invalid elsewhere.
#if UPCXX_KIND_CUDA
  cuda_device::id_type device_id = 0;
#else
  cuda_device::id_type device_id = cuda_device::invalid_device_id;
#endif
  cuda_device gpu(device_id);  // collective
  device_allocator<cuda_device> gpu_alloc(gpu, 4 * 1024 * 1024);
  COMPAT_CHECK(!gpu.is_active() && gpu.device_id() == cuda_device::invalid_device_id);
  COMPAT_CHECK(!gpu_alloc.is_active());

  global_ptr<double> host_array = upcxx::new_array<double>(N);
  double* h = host_array.local();
  for (std::size_t i = 0; i < N; ++i) h[i] = me * 1000.0 + static_cast<double>(i);

  // Every rank's array, fetched the way the GPU path fetches device pointers.
  upcxx::dist_object<global_ptr<double>> host_arrays(host_array);
  upcxx::dist_object<gp_device> device_arrays(gp_device{});
  global_ptr<double> host_of_next = host_arrays.fetch((me + 1) % n).wait();
  gp_device device_of_next = device_arrays.fetch((me + 1) % n).wait();
  COMPAT_CHECK(device_of_next.is_null());
  gp_device device_of_root = upcxx::broadcast(gp_device{}, 0).wait();
  COMPAT_CHECK(device_of_root.is_null() && device_of_root == nullptr);

  double* landing = new double[N];
  bool took_gpu_path = false;
  if (gpu_alloc.is_active()) {
    // The GPU path: stage the neighbour's data through device memory.
    took_gpu_path = true;
    gp_device staging = gpu_alloc.allocate<double>(N);
    upcxx::copy(host_of_next, staging, N).wait();
    upcxx::copy(staging, landing, N).wait();
    cuda_device::pointer<double> raw = gpu_alloc.local(staging);
    COMPAT_CHECK(raw != nullptr && gpu_alloc.to_global_ptr(raw) == staging);
    COMPAT_CHECK(device_allocator<cuda_device>::device_id(staging) == gpu.device_id());
    gpu_alloc.deallocate(staging);
  } else {
    // The host path.
    upcxx::copy(host_of_next, landing, N).wait();
  }
  COMPAT_CHECK(!took_gpu_path);
  const int next = (me + 1) % n;
  for (std::size_t i = 0; i < N; ++i) COMPAT_CHECK(landing[i] == next * 1000.0 + static_cast<double>(i));
  delete[] landing;

  // Null device pointers convert both ways and name no device.
  COMPAT_CHECK(gpu_alloc.local(gp_device{}) == cuda_device::null_pointer<double>());
  COMPAT_CHECK(gpu_alloc.to_global_ptr<double>(nullptr).is_null());
  COMPAT_CHECK(device_allocator<cuda_device>::device_id(gp_device{}) == cuda_device::invalid_device_id);
  gpu_alloc.deallocate(gp_device{});  // does nothing (spec 16.2.2 ¶30)

  // Kinds: a host pointer seen as any kind is host memory, not device memory.
  global_ptr<double, memory_kind::any> any = host_array;
  COMPAT_CHECK(any.dynamic_kind() == memory_kind::host);
  COMPAT_CHECK(upcxx::dynamic_kind_cast<memory_kind::cuda_device>(any).is_null());
  COMPAT_CHECK(upcxx::dynamic_kind_cast<memory_kind::host>(any) == host_array);
  COMPAT_CHECK(upcxx::static_kind_cast<memory_kind::host>(any) == host_array);
  global_ptr<double, memory_kind::any> any_device = gp_device{};
  COMPAT_CHECK(any_device.is_null());

  // Moving leaves both inactive.
  cuda_device moved(std::move(gpu));
  COMPAT_CHECK(!moved.is_active() && !gpu.is_active());
  device_allocator<cuda_device> moved_alloc(std::move(gpu_alloc));
  COMPAT_CHECK(!moved_alloc.is_active());

  upcxx::barrier();  // every rank has read its neighbour's array
  upcxx::delete_array(host_array);
  moved.destroy();                                   // collective, entry barrier user
  gpu.destroy(upcxx::entry_barrier::none);           // an inactive device: nothing to do
  if (me == 0) std::cout << "r2020_10_memory_kinds: OK" << std::endl;
  upcxx::finalize();
}
