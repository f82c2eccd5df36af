// Promises (spec §5.8.2): the producer side of a future, with a dependency counter.
//
// A promise owns one cell from construction (one allocation); copies share it. The future
// from get_future() is ready when the counter reaches zero: fulfill_result() supplies the
// values and counts one, fulfill_anonymous(n) counts n, require_anonymous(n) adds n, and
// finalize() is fulfill_anonymous(1) followed by get_future(). Callbacks waiting on the
// future run inside the fulfilling call, on the calling thread.
#pragma once

#include "upcxx/version.hpp"

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "upcxx/detail/diagnostics.hpp"
#include "upcxx/future.hpp"

namespace upcxx {

template <typename... T>
class promise {
 public:
  explicit promise(std::intptr_t dependency_count = 1) : cell_(new detail::value_cell<T...>()) {
    UPCXX_ASSERT(dependency_count >= 1, "promise: the dependency count must be at least 1");
    cell_->deps = dependency_count;
  }
  promise(const promise& o) noexcept : cell_(o.cell_) { cell_->add_ref(); }
  // A moved-from promise may only be destroyed or assigned to. Moving keeps completion
  // objects (operation_cx::as_promise(p)) from touching the count twice per operation.
  promise(promise&& o) noexcept : cell_(o.cell_) { o.cell_ = nullptr; }
  promise& operator=(const promise& o) noexcept {
    o.cell_->add_ref();
    if (cell_) cell_->drop_ref();
    cell_ = o.cell_;
    return *this;
  }
  promise& operator=(promise&& o) noexcept {
    if (this != &o) {
      if (cell_) cell_->drop_ref();
      cell_ = o.cell_;
      o.cell_ = nullptr;
    }
    return *this;
  }
  ~promise() {
    if (cell_) cell_->drop_ref();
  }

  void require_anonymous(std::intptr_t count) const {
    UPCXX_ASSERT(count >= 0 && cell_->deps > 0, "promise::require_anonymous on a promise already fulfilled");
    cell_->deps += count;
  }

  // The values are constructed in place from results... (forwarded: an rvalue moves in), so
  // T need not be default-constructible, copyable or even movable (spec §5.8.2 ¶15).
  template <typename... U>
  void fulfill_result(U&&... results) const {
    static_assert(sizeof...(U) == sizeof...(T) && std::is_constructible_v<std::tuple<T...>, U&&...>,
                  "upcxx::promise<T...>::fulfill_result(u...): each T must be constructible from the "
                  "corresponding argument (spec 5.8.2 p15)");
    UPCXX_ASSERT(cell_->deps > 0, "promise::fulfill_result on a promise already fulfilled");
    if constexpr (sizeof...(T) > 0) {
      UPCXX_ASSERT(!cell_->has_values, "promise::fulfill_result called twice");
    }
    cell_->emplace(std::forward<U>(results)...);
    cell_->fulfill(1);
  }

  void fulfill_anonymous(std::intptr_t count) const {
    UPCXX_ASSERT(count >= 0 && cell_->deps >= count,
                 "promise::fulfill_anonymous(" << count << ") with only " << cell_->deps << " dependencies left");
    if constexpr (sizeof...(T) > 0) {
      UPCXX_ASSERT(cell_->deps != count || cell_->has_values,
                   "promise: the last dependency was fulfilled before fulfill_result supplied the values");
    }
    cell_->fulfill(count);
  }

  future<T...> get_future() const {
    cell_->add_ref();
    return future<T...>(detail::adopt_cell, cell_);
  }

  future<T...> finalize() const {
    fulfill_anonymous(1);
    return get_future();
  }

  // Internal (completions): the shared cell.
  detail::value_cell<T...>* cell() const noexcept { return cell_; }

 private:
  detail::value_cell<T...>* cell_;
};

}  // namespace upcxx
