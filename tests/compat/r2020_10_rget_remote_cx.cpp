// Gets with remote completion: rget and rget_{irregular,regular,strided} accept
// remote_cx::as_rpc, as UPC++ does, and run the RPC at the owner of the source once the data
// has been read (a consumer tells the producer that it may overwrite its buffer). Each rank
// reads its successor's block by every kind of get; the RPC at the owner counts the reads
// and checks that they came from its predecessor.
#include <array>
#include <cstdio>
#include <utility>
#include <vector>

#include <upcxx/upcxx.hpp>

#include "compat_check.hpp"

namespace {
int g_reads = 0;      // gets of our block that have told us they are done
int g_wrong = 0;      // ... from a rank other than our predecessor
int g_detached = 0;   // the as_rpc-only get's notification

void read_done(int reader) {
  const int n = upcxx::rank_n();
  if (reader != (upcxx::rank_me() + n - 1) % n) ++g_wrong;
  ++g_reads;
}
}  // namespace

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  constexpr int len = 64;
  upcxx::global_ptr<int> block = upcxx::new_array<int>(len);
  for (int i = 0; i < len; ++i) block.local()[i] = 1000 * me + i;
  upcxx::dist_object<upcxx::global_ptr<int>> blocks(block);
  const int next = (me + 1) % n;
  upcxx::global_ptr<const int> src = blocks.fetch(next).wait();
  upcxx::barrier();

  const int base = 1000 * next;
  auto done = [] { return upcxx::remote_cx::as_rpc(read_done, upcxx::rank_me()); };
  auto fut = upcxx::operation_cx::as_future();

  // Scalar: the value comes back through the future.
  int v = upcxx::rget(src + 5, fut | done()).wait();
  COMPAT_CHECK(v == base + 5);
  // Bulk.
  std::vector<int> buf(len, -1);
  upcxx::rget(src, buf.data(), len, fut | done()).wait();
  for (int i = 0; i < len; ++i) COMPAT_CHECK(buf[i] == base + i);
  // Irregular: two runs.
  std::vector<int> a(8, -1), b(8, -1);
  std::vector<std::pair<upcxx::global_ptr<const int>, std::size_t>> sruns{{src + 8, 8}, {src + 32, 8}};
  std::vector<std::pair<int*, std::size_t>> druns{{a.data(), 8}, {b.data(), 8}};
  upcxx::rget_irregular(sruns.begin(), sruns.end(), druns.begin(), druns.end(), fut | done()).wait();
  for (int i = 0; i < 8; ++i) COMPAT_CHECK(a[i] == base + 8 + i && b[i] == base + 32 + i);
  // Regular: four runs of 4.
  std::vector<int> c(16, -1);
  std::vector<upcxx::global_ptr<const int>> sreg{src, src + 16, src + 32, src + 48};
  std::vector<int*> dreg{c.data(), c.data() + 4, c.data() + 8, c.data() + 12};
  upcxx::rget_regular(sreg.begin(), sreg.end(), 4, dreg.begin(), dreg.end(), 4, fut | done()).wait();
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 4; ++i) COMPAT_CHECK(c[4 * r + i] == base + 16 * r + i);
  // Strided: the first 2 of each 8 elements, 8 times.
  std::array<int, 16> d{};
  upcxx::rget_strided<2>(src, {{sizeof(int), 8 * sizeof(int)}}, d.data(), {{sizeof(int), 2 * sizeof(int)}}, {{2, 8}},
                         fut | done())
      .wait();
  for (int r = 0; r < 8; ++r)
    for (int i = 0; i < 2; ++i) COMPAT_CHECK(d[2 * r + i] == base + 8 * r + i);
  // With a promise, and with remote completion alone (nothing to wait for here: the owner
  // waits for its RPC).
  upcxx::promise<> p;
  upcxx::rget(src, buf.data(), len, upcxx::operation_cx::as_promise(p) | done());
  p.finalize().wait();
  upcxx::rget(src + 1, buf.data(), 1, upcxx::remote_cx::as_rpc([] { ++g_detached; }));

  while (g_reads < 6 || g_detached < 1) upcxx::progress();
  upcxx::barrier();
  COMPAT_CHECK(g_reads == 6 && g_detached == 1 && g_wrong == 0);
  COMPAT_CHECK(buf[0] == base + 1);
  upcxx::delete_array(block);
  if (me == 0) std::printf("r2020_10_rget_remote_cx: OK\n");
  upcxx::finalize();
}
