// device_allocator<Device> (spec §16.2.2) and its device-independent base heap_allocator
// (UPC++ 2022.3): the allocator of a device segment, the memory of one GPU that global
// pointers of kind Device::kind name.
//
// An allocator is active when it was built over an active device; it is inactive when
// default-constructed, built over an inactive device (what a program gets where there is no
// GPU: `make_gpu_allocator(size)`, `device_allocator<cuda_device>(inactive_device, size)`),
// moved from or destroyed. In this build of Gannet (host memory only) every allocator is
// inactive: is_active() is false, segment_size() and segment_used() are 0, device_id() is
// invalid_device_id, and the null pointer converts both ways. Allocating from an inactive
// allocator, or handing it a non-null device pointer, is a precondition violation in UPC++;
// here it ends the job with a message that names the build, in every codemode.
//
// Collective and progress rules: construction over a device and destroy() are collective
// over world() (master persona); destroy() runs its entry barrier. The rest is local,
// progress level none.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstdint>

#include "upcxx/detail/source_loc.hpp"
#include "upcxx/device_fwd.hpp"
#include "upcxx/global_ptr.hpp"
#include "upcxx/memory_kind.hpp"
#include "upcxx/team.hpp"

namespace upcxx {

// The allocators of every device kind, used through a reference to this base.
class heap_allocator {
 public:
  memory_kind kind() const noexcept { return kind_; }
  virtual ~heap_allocator() = default;

  virtual void destroy(entry_barrier lev = entry_barrier::user) = 0;
  virtual bool is_active() const = 0;
  virtual std::int64_t segment_size() const = 0;
  virtual std::int64_t segment_used() const = 0;

  // align 0: the device kind's default alignment for T.
  template <typename T>
  [[nodiscard]] global_ptr<T, memory_kind::any> allocate(std::size_t n = 1, std::size_t align = 0,
                                                         detail::source_loc loc = detail::source_loc::current()) {
    (void)n, (void)align;
    detail::fail_inactive_allocator("allocate", kind_, loc);
  }

  template <typename T, memory_kind K>
  void deallocate(global_ptr<T, K> p, detail::source_loc loc = detail::source_loc::current()) {
    if (!p.is_null())
      detail::fail_inactive_allocator("deallocate(non-null pointer)", kind_, loc);
  }

 protected:
  explicit heap_allocator(memory_kind kind) noexcept : kind_(kind) {}
  heap_allocator(const heap_allocator&) = default;
  heap_allocator& operator=(const heap_allocator&) = default;

 private:
  memory_kind kind_;
};

template <typename Device>
class device_allocator final : public heap_allocator {
 public:
  using device_type = Device;
  static constexpr memory_kind kind = Device::kind;

  // An inactive allocator; may be built before init() (spec §16.2.2 ¶5).
  device_allocator() noexcept : heap_allocator(Device::kind) {}

  // Collective over world(). Over an inactive device the allocator is inactive (UPC++
  // 2022.3); an active device cannot exist in this build.
  device_allocator(Device& device, std::size_t size,
                   typename Device::template pointer<void> base = Device::template null_pointer<void>())
      : heap_allocator(Device::kind) {
    (void)device, (void)size, (void)base;
  }
  // The 2020.10 argument order, deprecated since UPC++ 2022.3.
  [[deprecated("device_allocator(device, base, size) is deprecated since UPC++ 2022.3: use "
               "device_allocator(device, size, base) or upcxx::make_gpu_allocator()")]]
  device_allocator(Device& device, typename Device::template pointer<void> base, std::size_t size)
      : device_allocator(device, size, base) {}

  device_allocator(device_allocator&&) noexcept = default;
  device_allocator& operator=(device_allocator&&) noexcept = default;
  device_allocator(const device_allocator&) = delete;
  device_allocator& operator=(const device_allocator&) = delete;
  ~device_allocator() override = default;

  // Collective over world(): the entry barrier, then the allocator (and its device) inactive.
  void destroy(entry_barrier lev = entry_barrier::user) override { detail::device_destroy_inactive(lev); }

  bool is_active() const override { return false; }
  std::int64_t segment_size() const override { return 0; }
  std::int64_t segment_used() const override { return 0; }

  typename Device::id_type device_id() const noexcept { return Device::invalid_device_id; }

  template <typename T>
  [[nodiscard]] global_ptr<T, Device::kind> allocate(std::size_t n = 1,
                                                     std::size_t align = Device::template default_alignment<T>(),
                                                     detail::source_loc loc = detail::source_loc::current()) {
    (void)n, (void)align;
    detail::fail_inactive_allocator("allocate", Device::kind, loc);
  }

  template <typename T>
  void deallocate(global_ptr<T, Device::kind> p, detail::source_loc loc = detail::source_loc::current()) {
    if (!p.is_null())
      detail::fail_inactive_allocator("deallocate(non-null pointer)", Device::kind, loc);
  }
  template <typename T>
  void deallocate(global_ptr<T, memory_kind::any> p, detail::source_loc loc = detail::source_loc::current()) {
    if (!p.is_null())
      detail::fail_inactive_allocator("deallocate(non-null pointer)", Device::kind, loc);
  }

  // A raw device pointer of this allocator's segment as a global pointer; null stays null.
  template <typename T>
  global_ptr<T, Device::kind> to_global_ptr(typename Device::template pointer<T> p,
                                            detail::source_loc loc = detail::source_loc::current()) const {
    if (p != Device::template null_pointer<T>())
      detail::fail_inactive_allocator("to_global_ptr(non-null pointer)", Device::kind, loc);
    return nullptr;
  }

  // The device a pointer of this kind refers to; invalid_device_id for null.
  template <typename T>
  static typename Device::id_type device_id(global_ptr<T, Device::kind> p,
                                            detail::source_loc loc = detail::source_loc::current()) {
    if (!p.is_null())
      detail::fail_inactive_allocator("device_id(non-null pointer)", Device::kind, loc);
    return Device::invalid_device_id;
  }

  // The raw device pointer of a global pointer of this kind; null_pointer<T>() for null.
  template <typename T>
  static typename Device::template pointer<T> local(global_ptr<T, Device::kind> p,
                                                    detail::source_loc loc = detail::source_loc::current()) {
    if (!p.is_null())
      detail::fail_inactive_allocator("local(non-null pointer)", Device::kind, loc);
    return Device::template null_pointer<T>();
  }
};

}  // namespace upcxx
