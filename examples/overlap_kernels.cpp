// Four kernels written with blocking one-sided copies (gannet::overlap::memput/memget), as a
// UPC or MPI programmer would write them, and the same kernels with hand-written nonblocking
// upcxx::rput/rget and futures, to compare ("Automatic nonblocking communication for
// partitioned global address space programs", §4.4):
//
//   halo  a 2-D grid split into row blocks: each iteration puts its two boundary rows into the
//         neighbours' ghost rows (one memput per face), updates its interior meanwhile, and
//         finishes the rows next to the ghosts after a barrier.
//   cg    a gather of remote vector pieces whose pattern repeats every iteration (64 pieces of
//         1 KiB from the other ranks), then a local product: the prefetch history's case.
//   gups  RandomAccess with bulk puts: updates are generated into per-rank buckets of 64, each
//         full bucket is put into its owner's inbox, and owners apply them after a barrier.
//   bt    a burst of 256-byte gets with a stride of 850 bytes (BT's common pattern), inside a
//         gannet::overlap::aggregate scope: one non-contiguous transfer per target.
//   burst 64 puts of 1 KiB to the other ranks, then a barrier (no computation to hide them
//         behind: only the puts' latencies overlap each other).
//
// Usage: overlap_kernels <kernel> <variant> [iterations]
//   variant: blocking (the layer switched off: plain blocking copies), auto (the layer on),
//            manual (upcxx::rput/rget with futures, written by hand), compute (the
//            communication left out: the time the kernel would take on an ideal network).
// Prints the time per iteration (the slowest rank's) and a checksum that must not depend on
// the variant. With GANNET_OVERLAP_TIMING=1 it also prints the layer's conflict-check time.
#include <upcxx/upcxx.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gannet/overlap.hpp"

namespace ov = gannet::overlap;

namespace {

enum class variant { blocking, automatic, manual, compute };
variant g_variant = variant::automatic;
int me, P;
bool talks() { return g_variant != variant::compute; }  // the compute variant leaves communication out

template <typename T>
upcxx::global_ptr<T> from(const upcxx::dist_object<upcxx::global_ptr<T>>& d, int rank) {
  return d.fetch(rank).wait();
}

// ---- halo ----------------------------------------------------------------------------------

struct halo {
  static constexpr int N = 128;  // columns; rows per rank
  // Rows 0 and N+1 are ghosts, two copies (by iteration parity) so that a neighbour's put for
  // the next iteration never lands in rows still being read.
  upcxx::global_ptr<double> grid = upcxx::new_array<double>(static_cast<std::size_t>((N + 2) * N));
  upcxx::global_ptr<double> ghosts = upcxx::new_array<double>(static_cast<std::size_t>(4 * N));
  upcxx::dist_object<upcxx::global_ptr<double>> dir{ghosts};
  upcxx::global_ptr<double> up_ghosts, down_ghosts;
  std::vector<double> next = std::vector<double>(static_cast<std::size_t>((N + 2) * N));

  halo() {
    double* g = grid.local();
    for (int i = 0; i < (N + 2) * N; ++i) g[i] = std::sin(0.001 * (i + me * N * N));
    up_ghosts = from(dir, (me + P - 1) % P);
    down_ghosts = from(dir, (me + 1) % P);
    upcxx::barrier();
  }
  ~halo() {
    upcxx::delete_array(grid);
    upcxx::delete_array(ghosts);
  }

  void row_update(int r) {
    const double* g = grid.local();
    for (int c = 1; c < N - 1; ++c)
      next[static_cast<std::size_t>(r * N + c)] =
          0.25 * (g[(r - 1) * N + c] + g[(r + 1) * N + c] + g[r * N + c - 1] + g[r * N + c + 1]);
  }

  void iteration(int it) {
    double* g = grid.local();
    const int par = it % 2;
    // My first row goes to the upper neighbour's "below" ghost, my last to the lower one's
    // "above" ghost (slots: [par][0] above, [par][1] below).
    auto below_of_up = up_ghosts + (par * 2 + 1) * N;
    auto above_of_down = down_ghosts + (par * 2 + 0) * N;
    const double* first = g + 1 * N;
    const double* last = g + N * N;
    upcxx::future<> f = upcxx::make_future();
    if (g_variant == variant::manual) {
      f = upcxx::when_all(upcxx::rput(first, below_of_up, N), upcxx::rput(last, above_of_down, N));
    } else if (talks()) {
      ov::memput(below_of_up, first, N);
      ov::memput(above_of_down, last, N);
    }
    for (int r = 2; r < N; ++r) row_update(r);  // the interior needs no ghost
    f.wait();
    upcxx::barrier();
    const double* gh = ghosts.local() + par * 2 * N;
    std::memcpy(g, gh, N * sizeof(double));                // above
    std::memcpy(g + (N + 1) * N, gh + N, N * sizeof(double));  // below
    row_update(1);
    row_update(N);
    for (int r = 1; r <= N; ++r)
      std::memcpy(g + r * N + 1, next.data() + r * N + 1, (N - 2) * sizeof(double));
  }
  double checksum() {
    double s = 0;
    const double* g = grid.local();
    for (int i = N; i < (N + 1) * N; ++i) s += g[i];
    return upcxx::reduce_all(s, upcxx::op_fast_add).wait();
  }
};

// ---- cg: a repeating gather ----------------------------------------------------------------

struct cg {
  static constexpr int pieces = 64, piece = 128;  // 64 pieces of 1 KiB
  static constexpr int local_n = pieces * piece;
  upcxx::global_ptr<double> x = upcxx::new_array<double>(local_n);
  upcxx::dist_object<upcxx::global_ptr<double>> dir{x};
  std::vector<upcxx::global_ptr<double>> xs;
  std::vector<double> gathered = std::vector<double>(static_cast<std::size_t>(pieces * piece));

  cg() {
    for (int i = 0; i < local_n; ++i) x.local()[i] = 1.0 / (1 + i + me);
    for (int r = 0; r < P; ++r) xs.push_back(from(dir, r));
    upcxx::barrier();
  }
  ~cg() { upcxx::delete_array(x); }

  // Piece j comes from another rank, at an offset that is the same every iteration.
  upcxx::global_ptr<double> source(int j) const {
    const int r = P == 1 ? 0 : (me + 1 + j % (P - 1)) % P;
    return xs[static_cast<std::size_t>(r)] + ((j * 37) % pieces) * piece;
  }

  void iteration(int) {
    double* out = gathered.data();
    if (g_variant == variant::manual) {
      upcxx::promise<> done;
      for (int j = 0; j < pieces; ++j)
        upcxx::rget(source(j), out + j * piece, piece, upcxx::operation_cx::as_promise(done));
      done.finalize().wait();
    } else if (talks()) {
      for (int j = 0; j < pieces; ++j) ov::memget(out + j * piece, source(j), piece);
    }
    // The local product: a few flops per gathered element.
    double dot = 0;
    const double* mine = x.local();
    for (int i = 0; i < local_n; ++i) dot += out[i] * mine[i] * (1.0 + 1e-9 * i);
    upcxx::barrier();  // everyone has read x: it may change
    double* w = x.local();
    for (int i = 0; i < local_n; ++i) w[i] = 0.5 * w[i] + 0.5 / (1 + i) + 1e-6 * dot;
    upcxx::barrier();  // x is new everywhere: the next gather may read it
  }
  double checksum() {
    double s = 0;
    for (int i = 0; i < local_n; ++i) s += x.local()[i];
    return upcxx::reduce_all(s, upcxx::op_fast_add).wait();
  }
};

// ---- gups with bulk puts -------------------------------------------------------------------

struct gups {
  static constexpr int table_bits = 16, bucket = 64, updates = 4096;
  static constexpr std::size_t table_n = std::size_t{1} << table_bits;
  upcxx::global_ptr<std::uint64_t> table = upcxx::new_array<std::uint64_t>(table_n);
  // Inbox: for each sender, room for every update it can send in one iteration.
  upcxx::global_ptr<std::uint64_t> inbox;
  upcxx::global_ptr<int> counts;  // updates each sender put, per sender
  upcxx::dist_object<upcxx::global_ptr<std::uint64_t>> inbox_dir;
  upcxx::dist_object<upcxx::global_ptr<int>> counts_dir;
  std::vector<upcxx::global_ptr<std::uint64_t>> inboxes;
  std::vector<upcxx::global_ptr<int>> all_counts;
  std::uint64_t rng = 0;

  gups()
      : inbox(upcxx::new_array<std::uint64_t>(static_cast<std::size_t>(P * updates))),
        counts(upcxx::new_array<int>(static_cast<std::size_t>(P))),
        inbox_dir(inbox),
        counts_dir(counts) {
    for (std::size_t i = 0; i < table_n; ++i) table.local()[i] = i + static_cast<std::uint64_t>(me) * table_n;
    for (int r = 0; r < P; ++r) counts.local()[r] = 0;
    for (int r = 0; r < P; ++r) {
      inboxes.push_back(from(inbox_dir, r));
      all_counts.push_back(from(counts_dir, r));
    }
    rng = 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(me + 1);
    upcxx::barrier();
  }
  ~gups() {
    upcxx::delete_array(table);
    upcxx::delete_array(inbox);
    upcxx::delete_array(counts);
  }

  std::uint64_t next() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  }
  void apply(std::uint64_t u) { table.local()[u & (table_n - 1)] ^= u; }

  void iteration(int) {
    std::vector<std::vector<std::uint64_t>> buckets(static_cast<std::size_t>(P));
    std::vector<int> sent(static_cast<std::size_t>(P), 0);
    std::vector<upcxx::future<>> pending;
    for (int i = 0; i < updates; ++i) {
      const std::uint64_t u = next();
      const int owner = static_cast<int>((u >> table_bits) % static_cast<std::uint64_t>(P));
      if (owner == me) {
        apply(u);
        continue;
      }
      auto& b = buckets[static_cast<std::size_t>(owner)];
      b.push_back(u);
      if (static_cast<int>(b.size()) == bucket) {
        auto dst = inboxes[static_cast<std::size_t>(owner)] + me * updates + sent[static_cast<std::size_t>(owner)];
        if (g_variant == variant::manual) {
          // The bucket must live until source completion: hand it to the future's callback.
          auto* keep = new std::vector<std::uint64_t>(std::move(b));
          pending.push_back(upcxx::rput(keep->data(), dst, keep->size()).then([keep] { delete keep; }));
        } else if (talks()) {
          ov::memput(dst, b.data(), b.size());
        }
        sent[static_cast<std::size_t>(owner)] += bucket;
        b.clear();
      }
    }
    for (int r = 0; r < P; ++r) {  // partial buckets and the counts
      if (r == me) continue;
      auto& b = buckets[static_cast<std::size_t>(r)];
      auto dst = inboxes[static_cast<std::size_t>(r)] + me * updates + sent[static_cast<std::size_t>(r)];
      sent[static_cast<std::size_t>(r)] += static_cast<int>(b.size());
      if (g_variant == variant::manual) {
        if (!b.empty()) pending.push_back(upcxx::rput(b.data(), dst, b.size()));
        pending.push_back(upcxx::rput(sent[static_cast<std::size_t>(r)], all_counts[static_cast<std::size_t>(r)] + me));
      } else if (talks()) {
        if (!b.empty()) ov::memput(dst, b.data(), b.size());
        ov::memput(all_counts[static_cast<std::size_t>(r)] + me, &sent[static_cast<std::size_t>(r)], 1);
      }
    }
    for (auto& f : pending) f.wait();
    upcxx::barrier();
    for (int s = 0; s < P; ++s) {
      if (s == me) continue;
      const std::uint64_t* in = inbox.local() + s * updates;
      for (int i = 0; i < counts.local()[s]; ++i) apply(in[i]);
    }
    upcxx::barrier();  // inboxes free for the next iteration
  }
  double checksum() {
    std::uint64_t s = 0;
    for (std::size_t i = 0; i < table_n; ++i) s += table.local()[i] * (i | 1);
    return static_cast<double>(upcxx::reduce_all(s % 1000000007u, upcxx::op_fast_add).wait());
  }
};

// ---- bt: a burst of strided 256-byte gets --------------------------------------------------

struct bt {
  static constexpr int elems = 64, elem = 256, stride = 850;
  static constexpr int bytes = elems * stride;
  upcxx::global_ptr<char> field = upcxx::new_array<char>(bytes);
  upcxx::dist_object<upcxx::global_ptr<char>> dir{field};
  upcxx::global_ptr<char> right;
  std::vector<char> local = std::vector<char>(static_cast<std::size_t>(bytes));
  double acc = 0;

  bt() {
    for (int i = 0; i < bytes; ++i) field.local()[i] = static_cast<char>((i * 7 + me) & 0x7f);
    right = from(dir, (me + 1) % P);
    upcxx::barrier();
  }
  ~bt() { upcxx::delete_array(field); }

  void iteration(int it) {
    char* dst = local.data();
    if (g_variant == variant::manual) {
      upcxx::promise<> done;
      for (int e = 0; e < elems; ++e)
        upcxx::rget(right + e * stride, dst + e * stride, elem, upcxx::operation_cx::as_promise(done));
      done.finalize().wait();
    } else if (talks()) {
      ov::aggregate burst;  // the gets leave as one transfer; dst is valid when it ends
      for (int e = 0; e < elems; ++e) ov::memget(dst + e * stride, right + e * stride, elem);
    }
    long sum = 0;
    for (int e = 0; e < elems; ++e)
      for (int b = 0; b < elem; ++b) sum += dst[e * stride + b];
    acc += static_cast<double>(sum);
    upcxx::barrier();  // everyone has read: the field may change
    char* f = field.local();
    for (int e = 0; e < elems; ++e) f[e * stride + (it % elem)] = static_cast<char>((it + me) & 0x7f);
    upcxx::barrier();
  }
  double checksum() { return upcxx::reduce_all(acc, upcxx::op_fast_add).wait(); }
};

// ---- burst: puts then a barrier -------------------------------------------------------------

struct burst {
  static constexpr int puts = 64, piece = 1024;
  upcxx::global_ptr<char> inbox = upcxx::new_array<char>(static_cast<std::size_t>(puts * piece));
  upcxx::dist_object<upcxx::global_ptr<char>> dir{inbox};
  std::vector<upcxx::global_ptr<char>> boxes;
  std::vector<char> data = std::vector<char>(static_cast<std::size_t>(puts * piece));
  double acc = 0;

  burst() {
    for (int r = 0; r < P; ++r) boxes.push_back(from(dir, r));
    upcxx::barrier();
  }
  ~burst() { upcxx::delete_array(inbox); }

  void iteration(int it) {
    for (int j = 0; j < puts; ++j) data[static_cast<std::size_t>(j * piece)] = static_cast<char>((it + j + me) & 0x7f);
    if (g_variant == variant::manual) {
      upcxx::promise<> done;
      for (int j = 0; j < puts; ++j) {
        const int r = P == 1 ? 0 : (me + 1 + j % (P - 1)) % P;
        upcxx::rput(data.data() + j * piece, boxes[static_cast<std::size_t>(r)] + j * piece, piece,
                    upcxx::operation_cx::as_promise(done));
      }
      done.finalize().wait();
    } else if (talks()) {
      for (int j = 0; j < puts; ++j) {
        const int r = P == 1 ? 0 : (me + 1 + j % (P - 1)) % P;
        ov::memput(boxes[static_cast<std::size_t>(r)] + j * piece, data.data() + j * piece, piece);
      }
    }
    upcxx::barrier();
    // What arrived (the senders' first bytes of each piece), then free for the next round.
    for (int j = 0; j < puts; ++j) acc += inbox.local()[j * piece];
    upcxx::barrier();
  }
  double checksum() { return upcxx::reduce_all(acc, upcxx::op_fast_add).wait(); }
};

template <typename K>
void run(const char* name, int iterations) {
  K k;
  const int warm = iterations / 10 + 1;
  for (int i = 0; i < warm; ++i) k.iteration(i);
  const auto before = ov::stats();
  upcxx::barrier();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = warm; i < warm + iterations; ++i) k.iteration(i);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  const double slowest = upcxx::reduce_all(us, upcxx::op_fast_max).wait();
  const double sum = k.checksum();
  const auto st = ov::stats();
  if (me == 0) {
    const char* v = g_variant == variant::blocking    ? "blocking"
                    : g_variant == variant::automatic ? "auto"
                    : g_variant == variant::manual    ? "manual"
                                                      : "compute";
    std::printf("overlap_kernels %s %s ranks %d: %.3f us per iteration, checksum %.10g\n", name, v, P,
                slowest / iterations, sum);
    if (std::getenv("GANNET_OVERLAP_TIMING"))
      std::printf("overlap_kernels %s %s: conflict checks %.3f us per iteration; puts %llu deferred %llu, "
                  "prefetch hits %llu, aggregated %llu\n",
                  name, v, static_cast<double>(st.check_ns - before.check_ns) / 1000.0 / iterations,
                  static_cast<unsigned long long>(st.puts - before.puts),
                  static_cast<unsigned long long>(st.puts_deferred - before.puts_deferred),
                  static_cast<unsigned long long>(st.prefetch_hits - before.prefetch_hits),
                  static_cast<unsigned long long>(st.aggregated - before.aggregated));
  }
}

}  // namespace

int main(int argc, char** argv) {
  upcxx::init();
  me = upcxx::rank_me();
  P = upcxx::rank_n();
  const std::string kernel = argc > 1 ? argv[1] : "cg";
  const std::string v = argc > 2 ? argv[2] : "auto";
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 200;
  if (v == "blocking") {
    g_variant = variant::blocking;
    ov::set_enabled(false);
  } else if (v == "manual") {
    g_variant = variant::manual;
  } else if (v == "compute") {
    g_variant = variant::compute;
  } else if (v != "auto") {
    if (me == 0)
      std::fprintf(stderr, "overlap_kernels: variant %s: expected blocking, auto, manual or compute\n", v.c_str());
    upcxx::finalize();
    return 2;
  }
  if (kernel == "halo") {
    run<halo>("halo", iterations);
  } else if (kernel == "cg") {
    run<cg>("cg", iterations);
  } else if (kernel == "gups") {
    run<gups>("gups", iterations);
  } else if (kernel == "bt") {
    run<bt>("bt", iterations);
  } else if (kernel == "burst") {
    run<burst>("burst", iterations);
  } else {
    if (me == 0) std::fprintf(stderr, "overlap_kernels: kernel %s: expected halo, cg, gups, bt or burst\n", kernel.c_str());
    upcxx::finalize();
    return 2;
  }
  upcxx::finalize();
  return 0;
}
