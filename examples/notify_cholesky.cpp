// Tiled Cholesky factorization as a task DAG with notified access ("Notified Access:
// Extending Remote Memory Access Programming Models for Producer-Consumer Synchronization"
// §VI-C).
//
// A symmetric positive-definite n x n matrix A is cut into T x T tiles of b x b; the lower
// triangle's tiles are dealt out cyclically (tile (i, j) belongs to rank (i(i+1)/2 + j) % P).
// Every rank keeps a copy of the whole lower triangle in its shared heap, at the same
// offsets everywhere. The right-looking algorithm runs step k = 0 .. T-1:
//   POTRF  L(k,k)  = chol(A(k,k))
//   TRSM   L(i,k)  = A(i,k) L(k,k)^-T                 for i > k
//   SYRK / GEMM    A(i,j) -= L(i,k) L(j,k)^T          for k < j <= i
// Each rank runs the tasks of its tiles in that order. A tile becomes final after its POTRF
// or TRSM; its owner then broadcasts it along a binary tree rooted at itself, and each rank
// forwards what it receives to its children in that tree as soon as it sees it. A task whose
// input tile has not arrived yet waits for arrivals; the ranks cannot know which tile comes
// next, so arrivals are told apart by the tile index:
//   notified  gannet::rput_notify of the tile with tag = tile index; the rank waits with
//             one persistent notify_request(any_source, any_tag) and reads the tag
//   rpc       upcxx::rput of the tile with remote_cx::as_rpc queueing the tile index at
//             the target, which polls the queue with progress()
// Both check L L^T = A (every rank holds all of L at the end) and report the time.
//   gannet-run -n 4 notify_cholesky [n] [b]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <vector>

#include <gannet/notify.hpp>
#include <upcxx/upcxx.hpp>

namespace {

enum class variant { notified, rpc };
const char* name_of(variant v) { return v == variant::notified ? "notified" : "rpc"; }

int g_tiles = 0;  // T
int g_b = 0;      // tile edge
int tile_id(int i, int j) { return i * (i + 1) / 2 + j; }
int owner_of(int id) { return id % upcxx::rank_n(); }
std::size_t tile_elems() { return static_cast<std::size_t>(g_b) * static_cast<std::size_t>(g_b); }

double a_entry(long r, long c, long n) { return r == c ? static_cast<double>(n) : 1.0 / static_cast<double>(1 + std::labs(r - c)); }

// ---- tile kernels (row-major b x b) ----
void potrf(double* a, int b) {
  for (int j = 0; j < b; ++j) {
    double d = a[j * b + j];
    for (int k = 0; k < j; ++k) d -= a[j * b + k] * a[j * b + k];
    d = std::sqrt(d);
    a[j * b + j] = d;
    for (int i = j + 1; i < b; ++i) {
      double s = a[i * b + j];
      for (int k = 0; k < j; ++k) s -= a[i * b + k] * a[j * b + k];
      a[i * b + j] = s / d;
    }
    for (int i = 0; i < j; ++i) a[i * b + j] = 0.0;  // L only
  }
}
// x := x l^-T (l lower triangular)
void trsm(const double* l, double* x, int b) {
  for (int r = 0; r < b; ++r)
    for (int j = 0; j < b; ++j) {
      double s = x[r * b + j];
      for (int m = 0; m < j; ++m) s -= x[r * b + m] * l[j * b + m];
      x[r * b + j] = s / l[j * b + j];
    }
}
// c -= a b^T
void gemm_nt(const double* a, const double* bt, double* c, int b) {
  for (int r = 0; r < b; ++r)
    for (int col = 0; col < b; ++col) {
      double s = 0;
      for (int m = 0; m < b; ++m) s += a[r * b + m] * bt[col * b + m];
      c[r * b + col] -= s;
    }
}

// ---- one factorization ----
struct factorization {
  variant v;
  upcxx::global_ptr<double> mine;                 // my copy of the lower triangle's tiles
  std::vector<upcxx::global_ptr<double>> copies;  // everyone's
  std::vector<char> final_;                       // per tile: final here
  int finals = 0;
  gannet::notify_request any{gannet::any_source, gannet::any_tag};
  upcxx::promise<> sent;  // every put we made, complete
};
std::deque<int> g_rpc_arrivals;  // rpc variant: tile indices, in arrival order

double* tile(factorization& f, int id) { return f.mine.local() + static_cast<std::size_t>(id) * tile_elems(); }

// Sends final tile `id` to this rank's children in the tile's broadcast tree.
void forward(factorization& f, int id) {
  const int n = upcxx::rank_n(), me = upcxx::rank_me(), root = owner_of(id);
  const int rel = (me - root + n) % n;
  for (int c = 2 * rel + 1; c <= 2 * rel + 2 && c < n; ++c) {
    const int to = (c + root) % n;
    const upcxx::global_ptr<double> dst = f.copies[static_cast<std::size_t>(to)] + static_cast<std::ptrdiff_t>(id) * static_cast<std::ptrdiff_t>(tile_elems());
    const double* src = tile(f, id);  // final: never written again, so no copy is needed
    if (f.v == variant::notified) {
      gannet::rput_notify(src, dst, tile_elems(), id, upcxx::operation_cx::as_promise(f.sent));
    } else {
      upcxx::rput(src, dst, tile_elems(),
                  upcxx::remote_cx::as_rpc([](int t) { g_rpc_arrivals.push_back(t); }, id) |
                      upcxx::operation_cx::as_promise(f.sent));
    }
  }
}

void made_final(factorization& f, int id) {
  f.final_[static_cast<std::size_t>(id)] = 1;
  ++f.finals;
  forward(f, id);
}

// Takes one arrival (waiting for it) and forwards it.
void take_one(factorization& f) {
  int id;
  if (f.v == variant::notified) {
    f.any.start();
    id = f.any.wait().tag;
  } else {
    while (g_rpc_arrivals.empty()) upcxx::progress();
    id = g_rpc_arrivals.front();
    g_rpc_arrivals.pop_front();
  }
  made_final(f, id);
}

void need(factorization& f, int id) {
  while (!f.final_[static_cast<std::size_t>(id)]) take_one(f);
}

double run(factorization& f, long n) {
  const int me = upcxx::rank_me(), T = g_tiles, b = g_b;
  // A, everywhere (only the owner's tiles are read before they are final).
  for (int i = 0; i < T; ++i)
    for (int j = 0; j <= i; ++j) {
      double* t = tile(f, tile_id(i, j));
      for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c) t[r * b + c] = a_entry(static_cast<long>(i) * b + r, static_cast<long>(j) * b + c, n);
    }
  std::fill(f.final_.begin(), f.final_.end(), 0);
  f.finals = 0;
  f.sent = upcxx::promise<>();
  upcxx::barrier();
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < T; ++k) {
    const int kk = tile_id(k, k);
    if (owner_of(kk) == me) {
      potrf(tile(f, kk), b);
      made_final(f, kk);
    }
    for (int i = k + 1; i < T; ++i) {
      const int ik = tile_id(i, k);
      if (owner_of(ik) != me) continue;
      need(f, kk);
      trsm(tile(f, kk), tile(f, ik), b);
      made_final(f, ik);
    }
    for (int i = k + 1; i < T; ++i)
      for (int j = k + 1; j <= i; ++j) {
        const int ij = tile_id(i, j);
        if (owner_of(ij) != me) continue;
        need(f, tile_id(i, k));
        need(f, tile_id(j, k));
        gemm_nt(tile(f, tile_id(i, k)), tile(f, tile_id(j, k)), tile(f, ij), b);
      }
  }
  // Every tile reaches every rank: keep taking (and forwarding) until all are here.
  const int all = T * (T + 1) / 2;
  while (f.finals < all) take_one(f);
  f.sent.finalize().wait();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  upcxx::barrier();  // nobody still writes into our copy
  return s;
}

// max |(L L^T - A)(r, c)| / |A(r, c)| over the lower triangle, on this rank's copy of L.
double residual(factorization& f, long n) {
  const int b = g_b;
  auto l = [&](long r, long c) {
    return tile(f, tile_id(static_cast<int>(r / b), static_cast<int>(c / b)))[(r % b) * b + (c % b)];
  };
  double worst = 0;
  for (long r = 0; r < n; ++r)
    for (long c = 0; c <= r; ++c) {
      double s = 0;
      for (long m = 0; m <= c; ++m) s += l(r, m) * l(c, m);
      worst = std::max(worst, std::abs(s - a_entry(r, c, n)) / std::abs(a_entry(r, c, n)));
    }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  upcxx::init();
  const int me = upcxx::rank_me(), p = upcxx::rank_n();
  const long n = argc > 1 ? std::atol(argv[1]) : 512;
  g_b = argc > 2 ? std::atoi(argv[2]) : 32;
  if (g_b < 1 || n < g_b || n % g_b != 0) {
    if (me == 0) std::fprintf(stderr, "notify_cholesky [n] [b]: b must divide n\n");
    upcxx::finalize();
    return 1;
  }
  g_tiles = static_cast<int>(n / g_b);
  const int all = g_tiles * (g_tiles + 1) / 2;
  if (me == 0)
    std::printf("notify_cholesky: %d ranks, n = %ld, %d x %d tiles of %d x %d (%d in the lower triangle)\n", p, n, g_tiles,
                g_tiles, g_b, g_b, all);

  bool ok = true;
  double best[2] = {1e30, 1e30};
  for (int round = 0; round < 3; ++round) {  // alternate the variants: a noisy machine
    for (variant v : {variant::notified, variant::rpc}) {
      factorization f;
      f.v = v;
      f.mine = upcxx::new_array<double>(static_cast<std::size_t>(all) * tile_elems());
      upcxx::dist_object<upcxx::global_ptr<double>> d(f.mine);
      for (int r = 0; r < p; ++r) f.copies.push_back(d.fetch(r).wait());
      f.final_.assign(static_cast<std::size_t>(all), 0);
      const double s = run(f, n);
      best[static_cast<int>(v)] = std::min(best[static_cast<int>(v)], upcxx::reduce_all(s, upcxx::op_fast_max).wait());
      if (round == 0) {
        // Every rank checks its own copy of L (all of it arrived by the broadcasts).
        const double res = residual(f, n);
        if (!(res < 1e-10)) {
          std::printf("notify_cholesky %s: rank %d: max relative residual of L L^T - A is %.3g\n", name_of(v), me, res);
          ok = false;
        }
      }
      upcxx::barrier();
      upcxx::delete_array(f.mine);
    }
  }
  ok = upcxx::reduce_all(ok ? 1 : 0, upcxx::op_fast_min).wait() == 1;
  if (me == 0) {
    const double flops = static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / 3.0;
    for (variant v : {variant::notified, variant::rpc})
      std::printf("%-9s %8.3f ms  %7.3f GFLOP/s\n", name_of(v), best[static_cast<int>(v)] * 1e3,
                  flops / best[static_cast<int>(v)] / 1e9);
    std::printf("ratio notified/rpc speed %.2f\n", best[1] / best[0]);
    std::printf("%s\n", ok ? "notify_cholesky: L L^T = A verified" : "notify_cholesky: WRONG RESULTS");
  }
  upcxx::barrier();
  upcxx::finalize();
  return ok ? 0 : 1;
}
