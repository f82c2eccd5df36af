// rput/rget between ranks through gannet-run (2 and 4 ranks): every rank writes a block
// of every other rank's array with a different completion style, reads everything back,
// and checks values and notification counts.
#include <cstdint>
#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  constexpr int block = 256;
  auto mine = upcxx::new_array<std::int64_t>(static_cast<std::size_t>(block) * n);
  for (int i = 0; i < block * n; ++i) mine.local()[i] = -1;
  auto all = gannet::all_gather(mine);
  upcxx::barrier();

  auto value = [](int writer, int target, int i) -> std::int64_t { return writer * 1000000LL + target * 1000LL + i; };
  std::vector<std::int64_t> src(block);
  upcxx::promise<> prom;
  upcxx::future<> conj = upcxx::make_future();
  int lpcs = 0;
  for (int t = 0; t < n; ++t) {
    upcxx::global_ptr<std::int64_t> dst = all[t] + static_cast<std::ptrdiff_t>(block) * me;
    switch ((me + t) % 4) {
      case 0:  // scalar rputs conjoined with when_all
        for (int i = 0; i < block; ++i) conj = upcxx::when_all(conj, upcxx::rput(value(me, t, i), dst + i));
        break;
      case 1:  // scalar rputs tracked by one promise, deferred
        for (int i = 0; i < block; ++i)
          upcxx::rput(value(me, t, i), dst + i, upcxx::operation_cx::as_defer_promise(prom));
        break;
      case 2: {  // bulk with source and operation futures and an LPC
        for (int i = 0; i < block; ++i) src[i] = value(me, t, i);
        auto [s, o] = upcxx::rput(src.data(), dst, block,
                                  upcxx::source_cx::as_future() | upcxx::operation_cx::as_future() |
                                      upcxx::operation_cx::as_lpc(upcxx::current_persona(), [&] { ++lpcs; }));
        s.wait();
        conj = upcxx::when_all(conj, o);
        break;
      }
      default:  // bulk, blocking source, deferred operation future
        for (int i = 0; i < block; ++i) src[i] = value(me, t, i);
        conj = upcxx::when_all(conj, upcxx::rput(src.data(), dst, block,
                                                 upcxx::source_cx::as_blocking() | upcxx::operation_cx::as_defer_future()));
    }
  }
  upcxx::when_all(conj, prom.finalize()).wait();
  upcxx::barrier();

  // Every block of my array was written by its writer.
  for (int w = 0; w < n; ++w)
    for (int i = 0; i < block; ++i) SPMD_CHECK(mine.local()[w * block + i] == value(w, me, i));

  // Read every rank's array back, scalar and bulk, eager and deferred.
  std::vector<std::int64_t> back(static_cast<std::size_t>(block) * n);
  for (int t = 0; t < n; ++t) {
    upcxx::rget(all[t], back.data(), static_cast<std::size_t>(block) * n).wait();
    for (int w = 0; w < n; ++w)
      for (int i = 0; i < block; i += 37) SPMD_CHECK(back[w * block + i] == value(w, t, i));
    SPMD_CHECK(upcxx::rget(all[t] + 5).wait() == value(0, t, 5));
    SPMD_CHECK(upcxx::rget(all[t] + block + 6, upcxx::operation_cx::as_defer_future()).wait() == value(1, t, 6));
    upcxx::promise<std::int64_t> pv;
    upcxx::rget(all[t] + 7, upcxx::operation_cx::as_promise(pv));
    SPMD_CHECK(pv.finalize().wait() == value(0, t, 7));
  }
  upcxx::progress();
  int expected_lpcs = 0;
  for (int t = 0; t < n; ++t) expected_lpcs += ((me + t) % 4 == 2);
  SPMD_CHECK(lpcs == expected_lpcs);
  upcxx::barrier();
  upcxx::delete_array(mine);
  upcxx::say() << "spmd_rma OK";
  upcxx::finalize();
  return 0;
}
