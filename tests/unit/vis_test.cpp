// Non-contiguous RMA (spec chapter 15) and upcxx::copy (spec 16.2.3) in one process. CTest
// runs this binary twice: as is (the segment is load/store addressable: the on-node copies),
// and with GANNET_LOOPBACK_ASYNC=1 (not addressable: one runtime message per operation,
// completed in progress). Every transfer is checked byte for byte against a reference built
// with plain loops over the same index space.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <list>
#include <numeric>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include <upcxx/upcxx.hpp>

namespace {

static_assert(std::is_same_v<upcxx::global_ptr<int, upcxx::memory_kind::host>, upcxx::global_ptr<int>>);
static_assert(upcxx::memory_kind::hip_device != upcxx::memory_kind::ze_device);

struct session {
  session() = default;
  ~session() {
    upcxx::delete_(probe);
    upcxx::finalize();
  }
  bool initialized = (upcxx::init(), true);  // before probe
  // Off-node mode: the segment is not addressable and completion waits for progress.
  bool offnode() const { return !probe.is_local(); }
  upcxx::global_ptr<int> probe = upcxx::new_<int>(0);
};

// The process's own address of shared memory, in both modes (loopback's owner addresses are
// this process's addresses): what an RPC body uses to look at the data.
template <typename T>
T* here(upcxx::global_ptr<T> g) {
  return const_cast<T*>(g.raw_);
}

int pattern(int i) { return static_cast<int>((static_cast<unsigned>(i) * 7919u + 13u) & 0x7fffffffu); }

// Reference strided copy: element by element over the index space, addresses in bytes.
void ref_strided(const char* src, const std::ptrdiff_t* ss, char* dst, const std::ptrdiff_t* ds,
                 const std::size_t* ext, std::size_t dim, std::size_t elem) {
  std::vector<std::size_t> idx(dim, 0);
  for (std::size_t k = 0; k < dim; ++k)
    if (ext[k] == 0) return;
  for (;;) {
    std::ptrdiff_t so = 0, d = 0;
    for (std::size_t k = 0; k < dim; ++k) {
      so += static_cast<std::ptrdiff_t>(idx[k]) * ss[k];
      d += static_cast<std::ptrdiff_t>(idx[k]) * ds[k];
    }
    std::memcpy(dst + d, src + so, elem);
    std::size_t k = 0;
    for (; k < dim; ++k) {
      if (++idx[k] < ext[k]) break;
      idx[k] = 0;
    }
    if (k == dim) return;
  }
}

constexpr std::size_t heap_ints = 1 << 16;

// One strided case: a section of `ext` ints with strides (in bytes) on each side, placed at
// offsets in a local buffer and in the shared array, put and then got back elsewhere.
template <std::size_t Dim>
void strided_case(session& s, const std::array<std::size_t, Dim>& ext, const std::array<std::ptrdiff_t, Dim>& ss,
                  const std::array<std::ptrdiff_t, Dim>& ds, std::ptrdiff_t src_off, std::ptrdiff_t dst_off,
                  bool array_form) {
  auto g = upcxx::new_array<int>(heap_ints);
  int* shared = here(g);
  std::fill(shared, shared + heap_ints, -1);
  std::vector<int> local(heap_ints);
  for (std::size_t i = 0; i < local.size(); ++i) local[i] = pattern(int(i));

  std::vector<int> expect(shared, shared + heap_ints);
  ref_strided(reinterpret_cast<const char*>(local.data() + src_off), ss.data(),
              reinterpret_cast<char*>(expect.data() + dst_off), ds.data(), ext.data(), Dim, sizeof(int));
  upcxx::future<> f = array_form ? upcxx::rput_strided(local.data() + src_off, ss, g + dst_off, ds, ext)
                                 : upcxx::rput_strided<Dim>(local.data() + src_off, ss.data(), g + dst_off, ds.data(),
                                                            ext.data());
  EXPECT_EQ(f.ready(), !s.offnode()) << "on-node eager completion is synchronous, off-node it comes in progress";
  f.wait();
  ASSERT_TRUE(std::equal(expect.begin(), expect.end(), shared)) << "rput_strided<" << Dim << ">";

  // Get the section back into a fresh buffer with the source strides swapped in.
  std::vector<int> back(heap_ints, -2), back_expect(heap_ints, -2);
  ref_strided(reinterpret_cast<const char*>(shared + dst_off), ds.data(),
              reinterpret_cast<char*>(back_expect.data() + src_off), ss.data(), ext.data(), Dim, sizeof(int));
  upcxx::future<> h = array_form ? upcxx::rget_strided(g + dst_off, ds, back.data() + src_off, ss, ext)
                                 : upcxx::rget_strided<Dim>(upcxx::global_ptr<const int>(g + dst_off), ds.data(),
                                                            back.data() + src_off, ss.data(), ext.data());
  EXPECT_EQ(h.ready(), !s.offnode());
  h.wait();
  ASSERT_EQ(back, back_expect) << "rget_strided<" << Dim << ">";
  upcxx::delete_array(g);
}

TEST(Vis, StridedEveryDimensionAndForm) {
  session s;
  for (bool array_form : {false, true}) {
    // 1-d: every third int to a dense run.
    strided_case<1>(s, {100}, {12}, {4}, 5, 7, array_form);
    // 2-d: rows of 10 ints with padding on both sides (the first dimension is dense).
    strided_case<2>(s, {10, 20}, {4, 64}, {4, 48}, 3, 100, array_form);
    // 2-d transposed: neither first dimension dense, so every element is its own run.
    strided_case<2>(s, {9, 11}, {4, 44}, {48, 4}, 0, 10, array_form);
    // 3-d with a negative stride (rows reversed at the destination).
    strided_case<3>(s, {4, 5, 6}, {4, 16, 80}, {4, 20, 120}, 0, 2000, array_form);
    strided_case<3>(s, {4, 5, 6}, {4, 16, 80}, {4, -20, 120}, 0, 2000, array_form);
    // An empty section moves nothing (and still completes).
    strided_case<2>(s, {0, 20}, {4, 64}, {4, 48}, 3, 100, array_form);
    // Dim 0: one element.
    strided_case<0>(s, {}, {}, {}, 42, 43, array_form);
  }
}

TEST(Vis, LargeStridedTransferIsByteExact) {
  // 4 MiB each way: off-node, the message is larger than any batch and travels in pieces.
  session s;
  constexpr std::size_t rows = 1024, cols = 1024;
  auto g = upcxx::new_array<int>(rows * cols + 16);
  std::vector<int> src(rows * (cols + 8));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern(int(i));
  std::array<std::ptrdiff_t, 2> ss{4, (cols + 8) * 4}, ds{4, cols * 4};
  std::array<std::size_t, 2> ext{cols, rows};
  upcxx::rput_strided(src.data(), ss, g, ds, ext).wait();
  std::vector<int> back(src.size(), 0);
  upcxx::rget_strided(g, ds, back.data(), ss, ext).wait();
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      ASSERT_EQ(here(g)[r * cols + c], src[r * (cols + 8) + c]) << r << "," << c;
      ASSERT_EQ(back[r * (cols + 8) + c], src[r * (cols + 8) + c]);
    }
  upcxx::delete_array(g);
}

// Splits [0, n) into runs of random length (zero included), in random order.
std::vector<std::pair<std::size_t, std::size_t>> random_runs(std::size_t n, std::mt19937& rng, std::size_t max_len) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  std::uniform_int_distribution<std::size_t> len(0, max_len);
  for (std::size_t at = 0; at < n;) {
    std::size_t l = std::min(len(rng), n - at);
    runs.emplace_back(at, l);
    at += l;
  }
  std::shuffle(runs.begin(), runs.end(), rng);
  return runs;
}

// The expanded index sequence of a run list.
std::vector<std::size_t> expand(const std::vector<std::pair<std::size_t, std::size_t>>& runs) {
  std::vector<std::size_t> out;
  for (auto [at, l] : runs)
    for (std::size_t i = 0; i < l; ++i) out.push_back(at + i);
  return out;
}

TEST(Vis, IrregularRandomRunsBothWays) {
  session s;
  std::mt19937 rng(12345);
  auto g = upcxx::new_array<int>(heap_ints);
  int* shared = here(g);
  for (int round = 0; round < 20; ++round) {
    const std::size_t total = 500 + round * 37;
    std::vector<int> local(total);
    for (std::size_t i = 0; i < total; ++i) local[i] = pattern(int(i + round * 1000));
    // Destination runs: every other piece of a random split of twice the space, so the runs
    // leave gaps; source runs: a different random split of the local buffer.
    auto pieces = random_runs(2 * total, rng, 23);
    std::vector<std::pair<std::size_t, std::size_t>> dst_runs;
    std::size_t dst_total = 0;
    for (std::size_t i = 0; i < pieces.size() && dst_total < total; i += 2) {
      auto [at, l] = pieces[i];
      l = std::min(l, total - dst_total);
      dst_runs.emplace_back(at, l);
      dst_total += l;
    }
    if (dst_total < total) {  // top up from the odd pieces
      for (std::size_t i = 1; i < pieces.size() && dst_total < total; i += 2) {
        auto [at, l] = pieces[i];
        l = std::min(l, total - dst_total);
        dst_runs.emplace_back(at, l);
        dst_total += l;
      }
    }
    ASSERT_EQ(dst_total, total);
    auto src_runs = random_runs(total, rng, 31);
    auto src_seq = expand(src_runs), dst_seq = expand(dst_runs);

    std::fill(shared, shared + heap_ints, -1);
    std::vector<int> expect(shared, shared + heap_ints);
    for (std::size_t i = 0; i < total; ++i) expect[dst_seq[i]] = local[src_seq[i]];

    // Put: pairs on one side, tuples on the other, from a list (not random access).
    std::list<std::pair<const int*, std::size_t>> src_list;
    for (auto [at, l] : src_runs) src_list.emplace_back(local.data() + at, l);
    std::vector<std::tuple<upcxx::global_ptr<int>, int>> dst_vec;
    for (auto [at, l] : dst_runs) dst_vec.emplace_back(g + at, int(l));
    upcxx::rput_irregular(src_list.begin(), src_list.end(), dst_vec.begin(), dst_vec.end()).wait();
    ASSERT_TRUE(std::equal(expect.begin(), expect.end(), shared)) << "rput_irregular round " << round;

    // Get the same elements back through the reversed correspondence.
    std::vector<int> back(total, -3);
    std::vector<std::pair<upcxx::global_ptr<const int>, std::size_t>> gsrc;
    for (auto [at, l] : dst_runs) gsrc.emplace_back(g + at, l);
    std::vector<std::pair<int*, std::size_t>> ldst;
    for (auto [at, l] : src_runs) ldst.emplace_back(back.data() + at, l);
    upcxx::rget_irregular(gsrc.begin(), gsrc.end(), ldst.begin(), ldst.end()).wait();
    ASSERT_EQ(back, local) << "rget_irregular round " << round;
  }
  upcxx::delete_array(g);
}

TEST(Vis, RegularDifferentRunLengths) {
  session s;
  std::mt19937 rng(7);
  auto g = upcxx::new_array<int>(heap_ints);
  int* shared = here(g);
  std::fill(shared, shared + heap_ints, -1);
  // 12 source runs of 10 ints -> 8 destination runs of 15 ints, both in shuffled slots.
  std::vector<int> local(12 * 16);
  for (std::size_t i = 0; i < local.size(); ++i) local[i] = pattern(int(i));
  std::vector<std::size_t> src_slots(12), dst_slots(8);
  std::iota(src_slots.begin(), src_slots.end(), 0);
  std::iota(dst_slots.begin(), dst_slots.end(), 0);
  std::shuffle(src_slots.begin(), src_slots.end(), rng);
  std::shuffle(dst_slots.begin(), dst_slots.end(), rng);
  std::vector<const int*> src;
  for (auto slot : src_slots) src.push_back(local.data() + slot * 16);
  std::vector<upcxx::global_ptr<int>> dst;
  for (auto slot : dst_slots) dst.push_back(g + slot * 20);
  std::vector<int> expect(shared, shared + heap_ints);
  std::vector<int> seq;
  for (auto slot : src_slots)
    for (int i = 0; i < 10; ++i) seq.push_back(local[slot * 16 + i]);
  for (std::size_t r = 0; r < dst_slots.size(); ++r)
    for (int i = 0; i < 15; ++i) expect[dst_slots[r] * 20 + i] = seq[r * 15 + i];
  upcxx::rput_regular(src.begin(), src.end(), 10, dst.begin(), dst.end(), 15).wait();
  ASSERT_TRUE(std::equal(expect.begin(), expect.end(), shared));

  std::vector<int> back(local.size(), -5), back_expect(local.size(), -5);
  for (auto slot : src_slots)
    for (int i = 0; i < 10; ++i) back_expect[slot * 16 + i] = local[slot * 16 + i];
  std::vector<upcxx::global_ptr<const int>> gsrc(dst.begin(), dst.end());
  std::vector<int*> ldst;
  for (auto slot : src_slots) ldst.push_back(back.data() + slot * 16);
  upcxx::rget_regular(gsrc.begin(), gsrc.end(), 15, ldst.begin(), ldst.end(), 10).wait();
  ASSERT_EQ(back, back_expect);
  upcxx::delete_array(g);
}

// Every completion kind on a put, counted: source and operation futures and promises, LPCs,
// and remote_cx::as_rpc, whose body checks that the data is in place before it runs.
int g_rpc_runs = 0;
int g_rpc_saw_data = 0;

template <typename Put>
void all_completions_put(session& s, upcxx::global_ptr<int> g, Put put) {
  int* shared = here(g);
  std::fill(shared, shared + 64, 0);
  g_rpc_runs = g_rpc_saw_data = 0;
  upcxx::promise<> src_pro, op_pro;
  int src_lpcs = 0, op_lpcs = 0;
  auto cx = upcxx::source_cx::as_future() | upcxx::operation_cx::as_future() | upcxx::source_cx::as_promise(src_pro) |
            upcxx::operation_cx::as_promise(op_pro) |
            upcxx::source_cx::as_lpc(upcxx::current_persona(), [&] { ++src_lpcs; }) |
            upcxx::operation_cx::as_lpc(upcxx::current_persona(), [&] { ++op_lpcs; }) |
            upcxx::remote_cx::as_rpc(
                [](std::uintptr_t addr) {
                  ++g_rpc_runs;
                  const int* d = reinterpret_cast<const int*>(addr);
                  bool ok = true;
                  for (int i = 0; i < 16; ++i) ok = ok && d[2 * i] == 100 + i;
                  if (ok) ++g_rpc_saw_data;
                },
                reinterpret_cast<std::uintptr_t>(shared));
  auto [src_f, op_f] = put(cx);
  if (s.offnode()) {
    EXPECT_FALSE(op_f.ready());
  }
  upcxx::when_all(src_f, op_f, src_pro.finalize(), op_pro.finalize()).wait();
  for (int i = 0; i < 16; ++i) ASSERT_EQ(shared[2 * i], 100 + i);
  for (int i = 0; i < 100 && (g_rpc_runs == 0 || op_lpcs == 0); ++i) upcxx::progress();
  EXPECT_EQ(src_lpcs, 1);
  EXPECT_EQ(op_lpcs, 1);
  EXPECT_EQ(g_rpc_runs, 1);
  EXPECT_EQ(g_rpc_saw_data, 1) << "the as_rpc ran before the data was in place";
  // Nothing more arrives later.
  for (int i = 0; i < 10; ++i) upcxx::progress();
  EXPECT_EQ(g_rpc_runs, 1);
  EXPECT_EQ(op_lpcs, 1);
}

TEST(Vis, EveryCompletionOnEveryPut) {
  session s;
  auto g = upcxx::new_array<int>(64);
  int src[16];
  for (int i = 0; i < 16; ++i) src[i] = 100 + i;
  // The same 16 ints, to every other int of g, through each form.
  all_completions_put(s, g, [&](auto cx) {
    return upcxx::rput_strided<1>(src, std::array<std::ptrdiff_t, 1>{4}.data(), g,
                                  std::array<std::ptrdiff_t, 1>{8}.data(), std::array<std::size_t, 1>{16}.data(), cx);
  });
  all_completions_put(s, g, [&](auto cx) {
    return upcxx::rput_strided(src, std::array<std::ptrdiff_t, 1>{4}, g, std::array<std::ptrdiff_t, 1>{8},
                               std::array<std::size_t, 1>{16}, cx);
  });
  std::vector<std::pair<const int*, std::size_t>> sruns{{src, 16}};
  std::vector<std::pair<upcxx::global_ptr<int>, std::size_t>> druns;
  for (int i = 0; i < 16; ++i) druns.emplace_back(g + 2 * i, 1);
  all_completions_put(s, g, [&](auto cx) {
    return upcxx::rput_irregular(sruns.begin(), sruns.end(), druns.begin(), druns.end(), cx);
  });
  std::vector<const int*> sptrs{src, src + 8};
  std::vector<upcxx::global_ptr<int>> dptrs;
  for (int i = 0; i < 16; ++i) dptrs.push_back(g + 2 * i);
  all_completions_put(s, g, [&](auto cx) {
    return upcxx::rput_regular(sptrs.begin(), sptrs.end(), 8, dptrs.begin(), dptrs.end(), 1, cx);
  });
  upcxx::delete_array(g);
}

TEST(Vis, GetCompletionsAndDeferredFutures) {
  session s;
  auto g = upcxx::new_array<int>(64);
  for (int i = 0; i < 64; ++i) here(g)[i] = i * 3;
  int out[32] = {};
  upcxx::promise<> pro;
  int lpcs = 0;
  std::array<std::ptrdiff_t, 1> two{8}, one{4};
  std::array<std::size_t, 1> n{32};
  upcxx::future<> f = upcxx::rget_strided(
      g, two, out, one, n,
      upcxx::operation_cx::as_future() | upcxx::operation_cx::as_promise(pro) |
          upcxx::operation_cx::as_lpc(upcxx::current_persona(), [&] { ++lpcs; }));
  upcxx::when_all(f, pro.finalize()).wait();
  for (int i = 0; i < 32; ++i) ASSERT_EQ(out[i], i * 6);
  for (int i = 0; i < 100 && lpcs == 0; ++i) upcxx::progress();
  EXPECT_EQ(lpcs, 1);

  // Deferred futures are never ready at return, in either mode; eager ones are on-node.
  std::fill(out, out + 32, 0);
  upcxx::future<> d = upcxx::rget_strided(g, two, out, one, n, upcxx::operation_cx::as_defer_future());
  EXPECT_FALSE(d.ready());
  d.wait();
  EXPECT_EQ(out[31], 31 * 6);
  upcxx::future<> e = upcxx::rput_strided(out, one, g, two, n, upcxx::operation_cx::as_eager_future());
  EXPECT_EQ(e.ready(), !s.offnode());
  e.wait();
  upcxx::delete_array(g);
}

TEST(Vis, EmptyIrregularPutCompletesAndRunsRpcHere) {
  session s;
  std::vector<std::pair<const int*, std::size_t>> none_src;
  std::vector<std::pair<upcxx::global_ptr<int>, std::size_t>> none_dst;
  g_rpc_runs = 0;
  upcxx::future<> f = upcxx::rput_irregular(
      none_src.begin(), none_src.end(), none_dst.begin(), none_dst.end(),
      upcxx::operation_cx::as_future() | upcxx::remote_cx::as_rpc([] { ++g_rpc_runs; }));
  f.wait();
  for (int i = 0; i < 100 && g_rpc_runs == 0; ++i) upcxx::progress();
  EXPECT_EQ(g_rpc_runs, 1);
}

TEST(Vis, CopyEveryVariantAndCompletion) {
  session s;
  auto a = upcxx::new_array<long>(256);
  auto b = upcxx::new_array<long>(256);
  std::vector<long> src(256), dst(256, 0);
  for (int i = 0; i < 256; ++i) src[i] = 1000000 + i;

  // private -> global, with source and operation futures and an RPC that sees the data.
  g_rpc_runs = g_rpc_saw_data = 0;
  auto [sf, of] = upcxx::copy(src.data(), a, 256,
                              upcxx::source_cx::as_future() | upcxx::operation_cx::as_future() |
                                  upcxx::remote_cx::as_rpc(
                                      [](std::uintptr_t p) {
                                        ++g_rpc_runs;
                                        if (reinterpret_cast<const long*>(p)[255] == 1000255) ++g_rpc_saw_data;
                                      },
                                      reinterpret_cast<std::uintptr_t>(here(a))));
  upcxx::when_all(sf, of).wait();
  EXPECT_TRUE(std::equal(src.begin(), src.end(), here(a)));
  for (int i = 0; i < 100 && g_rpc_runs == 0; ++i) upcxx::progress();
  EXPECT_EQ(g_rpc_runs, 1);
  EXPECT_EQ(g_rpc_saw_data, 1);

  // global -> global (off-node: both ends unaddressable, the relay), with a promise and
  // memory_kind::any on one side.
  upcxx::promise<> pro;
  upcxx::global_ptr<long, upcxx::memory_kind::any> b_any = b;
  upcxx::copy(a, b_any, 256, upcxx::operation_cx::as_promise(pro));
  pro.finalize().wait();
  EXPECT_TRUE(std::equal(src.begin(), src.end(), here(b)));

  // global -> private with an LPC and an RPC that runs here (spec 16.2.3 ¶4).
  int lpcs = 0;
  g_rpc_runs = 0;
  upcxx::future<> f =
      upcxx::copy(upcxx::global_ptr<const long>(b) + 128, dst.data(), 128,
                  upcxx::operation_cx::as_future() |
                      upcxx::operation_cx::as_lpc(upcxx::current_persona(), [&] { ++lpcs; }) |
                      upcxx::remote_cx::as_rpc([] { ++g_rpc_runs; }));
  EXPECT_EQ(f.ready(), !s.offnode());
  f.wait();
  for (int i = 0; i < 128; ++i) ASSERT_EQ(dst[i], 1000128 + i);
  for (int i = 0; i < 100 && (g_rpc_runs == 0 || lpcs == 0); ++i) upcxx::progress();
  EXPECT_EQ(lpcs, 1);
  EXPECT_EQ(g_rpc_runs, 1);

  // The default completion, and a large relay (4 MiB).
  auto big_a = upcxx::new_array<char>(4 << 20), big_b = upcxx::new_array<char>(4 << 20);
  for (int i = 0; i < (4 << 20); ++i) here(big_a)[i] = char(i * 31);
  upcxx::copy(big_a, big_b, 4 << 20).wait();
  EXPECT_EQ(std::memcmp(here(big_a), here(big_b), 4 << 20), 0);
  upcxx::delete_array(big_a);
  upcxx::delete_array(big_b);
  upcxx::delete_array(a);
  upcxx::delete_array(b);
}

void mismatched_regular_put() {
  upcxx::init();
  auto g = upcxx::new_array<int>(8);
  int src[8] = {};
  std::vector<const int*> s{src};
  std::vector<upcxx::global_ptr<int>> d{g};
  upcxx::rput_regular(s.begin(), s.end(), 4, d.begin(), d.end(), 5).wait();
}

void null_run_put() {
  upcxx::init();
  auto g = upcxx::new_array<int>(8);
  std::vector<std::pair<const int*, std::size_t>> s{{nullptr, 0}};
  std::vector<std::pair<upcxx::global_ptr<int>, std::size_t>> d{{g, 0}};
  upcxx::rput_irregular(s.begin(), s.end(), d.begin(), d.end()).wait();
}

TEST(VisDeath, MismatchedLengthsAreReportedWithTheCallersLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      mismatched_regular_put(),
      "vis_test.cpp:[0-9]+: upcxx::rput_regular: the source runs hold 16 bytes and the destination runs 20");
}

TEST(VisDeath, NullRunIsReportedInDebugCodemode) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      null_run_put(),
      "vis_test.cpp:[0-9]+: upcxx::rput_irregular with a null pointer");
}

}  // namespace
