// GUPS, the HPC Challenge RandomAccess benchmark, in the variants of "Optimization of
// Asynchronous Communication Operations through Eager Notifications" §IV-B:
//   raw          raw C++ on downcast pointers to every rank's table (the upper bound)
//   raw_two_pass raw C++ in the RMA variants' batch shape: a pass of reads, then a pass of writes
//   manual       per update: if (gp.is_local()) *gp.local() ^= v; else RMA
//   rma_promise  batches of rgets tracked by one promise, then rputs tracked by one promise
//   rma_futures  the same batches, conjoining the operations' futures with when_all
//   amo_promise  one atomic bit_xor per update (atomic_domain), batches tracked by a promise
//   amo_futures  the same, conjoining the atomics' futures with when_all
// each RMA and atomic variant with eager and with deferred notification. Updates are unsynchronized
// (some lost updates are allowed, as in HPCC). Prints GUP/s and the ratio to raw.
//   gannet-run -n 2 --shared-heap 64MB gannet-bench-gups [log2_words_per_rank] [repeats]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

namespace {

using u64 = std::uint64_t;
constexpr u64 poly = 0x0000000000000007ull;
constexpr int batch = 1024;

u64 next_random(u64 r) { return (r << 1) ^ (static_cast<std::int64_t>(r) < 0 ? poly : 0); }

struct table {
  std::vector<upcxx::global_ptr<u64>> parts;  // one per rank
  u64 words_per_rank;
  int log_words_per_rank;
  upcxx::global_ptr<u64> where(u64 ran) const {
    u64 idx = ran & (words_per_rank * parts.size() - 1);
    return parts[idx >> log_words_per_rank] + static_cast<std::ptrdiff_t>(idx & (words_per_rank - 1));
  }
};

void run_raw(const table& t, u64 ran, u64 updates) {
  std::vector<u64*> raw;
  for (auto& p : t.parts) raw.push_back(p.local());
  const u64 mask = t.words_per_rank * t.parts.size() - 1;
  for (u64 i = 0; i < updates; ++i) {
    ran = next_random(ran);
    u64 idx = ran & mask;
    raw[idx >> t.log_words_per_rank][idx & (t.words_per_rank - 1)] ^= ran;
  }
}

// raw C++ in the batch shape of the RMA variants: a pass of reads, then a pass of writes. What
// the two-pass structure itself costs (lost temporal locality), with no library call at all.
void run_raw_two_pass(const table& t, u64 ran, u64 updates) {
  std::vector<u64*> raw;
  for (auto& p : t.parts) raw.push_back(p.local());
  const u64 mask = t.words_per_rank * t.parts.size() - 1;
  u64 vals[batch], rans[batch];
  u64* where[batch];
  for (u64 done = 0; done < updates; done += batch) {
    for (int i = 0; i < batch; ++i) {
      ran = next_random(ran);
      u64 idx = ran & mask;
      rans[i] = ran;
      where[i] = &raw[idx >> t.log_words_per_rank][idx & (t.words_per_rank - 1)];
      vals[i] = *where[i];
    }
    for (int i = 0; i < batch; ++i) *where[i] = vals[i] ^ rans[i];
  }
}

void run_manual(const table& t, u64 ran, u64 updates) {
  for (u64 i = 0; i < updates; ++i) {
    ran = next_random(ran);
    upcxx::global_ptr<u64> gp = t.where(ran);
    if (gp.is_local()) *gp.local() ^= ran;
    else upcxx::rput(upcxx::rget(gp).wait() ^ ran, gp).wait();
  }
}

template <bool Eager>
void run_rma_promise(const table& t, u64 ran, u64 updates) {
  u64 vals[batch], rans[batch];
  upcxx::global_ptr<u64> gps[batch];
  auto cx = [](upcxx::promise<>& p) {
    if constexpr (Eager) return upcxx::operation_cx::as_eager_promise(p);
    else return upcxx::operation_cx::as_defer_promise(p);
  };
  for (u64 done = 0; done < updates; done += batch) {
    upcxx::promise<> got;
    for (int i = 0; i < batch; ++i) {
      ran = next_random(ran);
      rans[i] = ran;
      gps[i] = t.where(ran);
      upcxx::rget(gps[i], &vals[i], 1, cx(got));
    }
    got.finalize().wait();
    upcxx::promise<> put;
    for (int i = 0; i < batch; ++i) upcxx::rput(vals[i] ^ rans[i], gps[i], cx(put));
    put.finalize().wait();
  }
}

template <bool Eager>
void run_rma_futures(const table& t, u64 ran, u64 updates) {
  u64 vals[batch], rans[batch];
  upcxx::global_ptr<u64> gps[batch];
  auto cx = [] {
    if constexpr (Eager) return upcxx::operation_cx::as_eager_future();
    else return upcxx::operation_cx::as_defer_future();
  };
  for (u64 done = 0; done < updates; done += batch) {
    upcxx::future<> got = upcxx::make_future();
    for (int i = 0; i < batch; ++i) {
      ran = next_random(ran);
      rans[i] = ran;
      gps[i] = t.where(ran);
      got = upcxx::when_all(got, upcxx::rget(gps[i], &vals[i], 1, cx()));
    }
    got.wait();
    upcxx::future<> put = upcxx::make_future();
    for (int i = 0; i < batch; ++i) put = upcxx::when_all(put, upcxx::rput(vals[i] ^ rans[i], gps[i], cx()));
    put.wait();
  }
}

upcxx::atomic_domain<u64>* g_ad = nullptr;

template <bool Eager>
void run_amo_promise(const table& t, u64 ran, u64 updates) {
  const upcxx::atomic_domain<u64>& ad = *g_ad;
  for (u64 done = 0; done < updates; done += batch) {
    upcxx::promise<> p;
    for (int i = 0; i < batch; ++i) {
      ran = next_random(ran);
      if constexpr (Eager) ad.bit_xor(t.where(ran), ran, std::memory_order_relaxed, upcxx::operation_cx::as_eager_promise(p));
      else ad.bit_xor(t.where(ran), ran, std::memory_order_relaxed, upcxx::operation_cx::as_defer_promise(p));
    }
    p.finalize().wait();
  }
}

template <bool Eager>
void run_amo_futures(const table& t, u64 ran, u64 updates) {
  const upcxx::atomic_domain<u64>& ad = *g_ad;
  auto cx = [] {
    if constexpr (Eager) return upcxx::operation_cx::as_eager_future();
    else return upcxx::operation_cx::as_defer_future();
  };
  for (u64 done = 0; done < updates; done += batch) {
    upcxx::future<> f = upcxx::make_future();
    for (int i = 0; i < batch; ++i) {
      ran = next_random(ran);
      f = upcxx::when_all(f, ad.bit_xor(t.where(ran), ran, std::memory_order_relaxed, cx()));
    }
    f.wait();
  }
}

}  // namespace

int main(int argc, char** argv) {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int log_words = argc > 1 ? std::atoi(argv[1]) : 22;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  if ((n & (n - 1)) != 0) {
    if (me == 0) std::fprintf(stderr, "gups: the rank count must be a power of two\n");
    upcxx::finalize();
    return 1;
  }
  table t;
  t.log_words_per_rank = log_words;
  t.words_per_rank = u64{1} << log_words;
  auto mine = upcxx::new_array<u64>(t.words_per_rank);
  for (u64 i = 0; i < t.words_per_rank; ++i) mine.local()[i] = i + t.words_per_rank * me;
  t.parts = gannet::all_gather(mine);
  const u64 updates = 4 * t.words_per_rank;  // per rank: 4 updates per word of the table

  struct variant {
    const char* name;
    void (*fn)(const table&, u64, u64);
  };
  const variant variants[] = {
      {"raw", run_raw},
      {"manual", run_manual},
      {"raw_two_pass", run_raw_two_pass},
      {"rma_promise_eager", run_rma_promise<true>},
      {"rma_promise_defer", run_rma_promise<false>},
      {"rma_futures_eager", run_rma_futures<true>},
      {"rma_futures_defer", run_rma_futures<false>},
      {"amo_promise_eager", run_amo_promise<true>},
      {"amo_promise_defer", run_amo_promise<false>},
      {"amo_futures_eager", run_amo_futures<true>},
      {"amo_futures_defer", run_amo_futures<false>},
  };
  upcxx::atomic_domain<u64> ad({upcxx::atomic_op::bit_xor});
  g_ad = &ad;
  double best[std::size(variants)];
  if (me == 0)
    std::printf("# gups ranks=%d words_per_rank=2^%d updates_total=%llu batch=%d repeats=%d\n", n, log_words,
                static_cast<unsigned long long>(updates * n), batch, repeats);
  // GUPS_VARIANTS=name,name limits the run (raw and manual always run: the ratios need them).
  const char* only = std::getenv("GUPS_VARIANTS");
  for (std::size_t v = 0; v < std::size(variants); ++v) {
    best[v] = 1e300;
    if (v >= 2 && only && !std::strstr(only, variants[v].name)) continue;
    for (int r = 0; r < repeats; ++r) {
      upcxx::barrier();
      auto t0 = std::chrono::steady_clock::now();
      variants[v].fn(t, 0x1234567ull * (me + 1) + static_cast<u64>(r), updates);
      upcxx::barrier();
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (secs < best[v]) best[v] = secs;
    }
    if (me == 0) {
      double gups = static_cast<double>(updates * n) / best[v] / 1e9;
      double raw = static_cast<double>(updates * n) / best[0] / 1e9;
      double manual = v >= 1 ? static_cast<double>(updates * n) / best[1] / 1e9 : 0;
      std::printf("gannet gups_%s gups=%.4f ratio_to_raw=%.3f", variants[v].name, gups, gups / raw);
      if (v >= 1) std::printf(" ratio_to_manual=%.3f", gups / manual);
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  upcxx::barrier();
  ad.destroy();
  upcxx::delete_array(mine);
  upcxx::finalize();
  return 0;
}
