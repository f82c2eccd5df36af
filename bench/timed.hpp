// Timing for benchmarks in which every rank takes part: `repeats` runs of body(iters), each
// started together after a barrier; min and median of the time per iteration over the runs.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include <upcxx/upcxx.hpp>

#include "limits.hpp"

namespace gannet::bench {

template <typename Body>
stats timed(int repeats, long iters, Body&& body) {
  std::vector<double> per;
  for (int r = 0; r < repeats; ++r) {
    upcxx::barrier();
    auto t0 = std::chrono::steady_clock::now();
    body(iters);
    per.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
                  static_cast<double>(iters));
  }
  stats s;
  s.min_ns = *std::min_element(per.begin(), per.end());
  s.median_ns = detail::median_of(per);
  s.repeats = repeats;
  s.ops = static_cast<std::uint64_t>(iters);
  return s;
}

// timed()'s body for an operation timed one call at a time: body() once per iteration.
template <typename Body>
auto each(Body body) {
  return [body](long iters) mutable {
    for (long i = 0; i < iters; ++i) body();
  };
}

}  // namespace gannet::bench
