// 2-D Jacobi iteration (5-point stencil) on an NY x NX grid decomposed into blocks of rows.
// Each rank keeps two arrays (current and next) with one ghost row above and below in its
// shared segment; neighbours' global pointers come from a dist_object. Every iteration a
// rank rputs its first and last rows into its neighbours' ghost rows, waits, enters the
// barrier, and computes. Every 10 iterations the ranks agree on the largest change with
// reduce_all(op_fast_max).
//
//   stencil [NY NX iterations]
//
// The result is compared bit for bit with a serial run of the same arithmetic, and rank 0
// prints "stencil: OK".
#include <upcxx/upcxx.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace std;

int NY = 240, NX = 200, ITERS = 2000;

// the update, shared by the serial and the parallel code
inline double relax(const double* up, const double* row, const double* down, int j) {
  return 0.25 * (up[j] + down[j] + row[j - 1] + row[j + 1]);
}

double initial(int gi, int j) {
  if (gi == 0) return 1.0;                     // hot top edge
  if (gi == NY + 1) return 0.0;                // cold bottom edge
  if (j == 0) return 0.5;                      // warm left edge
  if (j == NX - 1) return 0.0;
  return double((gi * 31 + j * 17) % 11) / 11.0;  // something to smooth out
}

// one sweep over rows 1..rows of a (rows+2) x NX array; returns the largest change
double sweep(const double* cur, double* next, int rows) {
  double maxdiff = 0;
  for (int i = 1; i <= rows; i++) {
    const double* up = cur + (i - 1) * NX;
    const double* row = cur + i * NX;
    const double* down = cur + (i + 1) * NX;
    double* out = next + i * NX;
    out[0] = row[0];
    out[NX - 1] = row[NX - 1];
    for (int j = 1; j < NX - 1; j++) {
      out[j] = relax(up, row, down, j);
      maxdiff = max(maxdiff, fabs(out[j] - row[j]));
    }
  }
  return maxdiff;
}

int rows_of(int r, int P) { return NY / P + (r < NY % P ? 1 : 0); }
int first_row_of(int r, int P) {  // global index of the first interior row
  int f = 1;
  for (int q = 0; q < r; q++) f += rows_of(q, P);
  return f;
}

int main(int argc, char** argv) {
  upcxx::init();
  if (argc > 3) {
    NY = atoi(argv[1]);
    NX = atoi(argv[2]);
    ITERS = atoi(argv[3]);
  }
  int me = upcxx::rank_me(), P = upcxx::rank_n();
  int rows = rows_of(me, P), g0 = first_row_of(me, P);
  int up = me - 1, down = me + 1;  // neighbours; -1 / P mean none

  // two arrays in the shared segment, (rows + 2) x NX each
  upcxx::global_ptr<double> A = upcxx::new_array<double>((rows + 2) * NX);
  upcxx::global_ptr<double> B = upcxx::new_array<double>((rows + 2) * NX);
  upcxx::dist_object<array<upcxx::global_ptr<double>, 2>> grids({A, B});
  array<upcxx::global_ptr<double>, 2> up_grids, down_grids;
  if (up >= 0) up_grids = grids.fetch(up).wait();
  if (down < P) down_grids = grids.fetch(down).wait();
  int up_rows = up >= 0 ? rows_of(up, P) : 0;

  double* a = A.local();
  double* b = B.local();
  for (int i = 0; i < rows + 2; i++)
    for (int j = 0; j < NX; j++) a[i * NX + j] = b[i * NX + j] = initial(g0 - 1 + i, j);
  upcxx::barrier();

  vector<double> residuals;
  int cur = 0;
  for (int it = 0; it < ITERS; it++) {
    double* c = cur == 0 ? a : b;
    double* n = cur == 0 ? b : a;
    // push my boundary rows into the neighbours' ghost rows of the current array
    if (it % 2 == 0) {
      upcxx::future<> f = upcxx::make_future();
      if (up >= 0) f = upcxx::when_all(f, upcxx::rput(c + NX, up_grids[cur] + (up_rows + 1) * NX, NX));
      if (down < P) f = upcxx::when_all(f, upcxx::rput(c + rows * NX, down_grids[cur], NX));
      f.wait();
    } else {
      upcxx::promise<> p;
      if (up >= 0) upcxx::rput(c + NX, up_grids[cur] + (up_rows + 1) * NX, NX, upcxx::operation_cx::as_promise(p));
      if (down < P) upcxx::rput(c + rows * NX, down_grids[cur], NX, upcxx::operation_cx::as_promise(p));
      p.finalize().wait();
    }
    upcxx::barrier();

    double diff = sweep(c, n, rows);
    cur = 1 - cur;
    if (it % 10 == 9) residuals.push_back(upcxx::reduce_all(diff, upcxx::op_fast_max).wait());
  }
  upcxx::barrier();

  // serial run, same arithmetic
  vector<double> s0((NY + 2) * NX), s1((NY + 2) * NX);
  for (int i = 0; i < NY + 2; i++)
    for (int j = 0; j < NX; j++) s0[i * NX + j] = s1[i * NX + j] = initial(i, j);
  vector<double> serial_res;
  for (int it = 0; it < ITERS; it++) {
    double diff = sweep(s0.data(), s1.data(), NY);
    swap(s0, s1);
    if (it % 10 == 9) serial_res.push_back(diff);
  }

  int errors = 0;
  double* result = cur == 0 ? a : b;
  for (int i = 1; i <= rows; i++) {
    if (memcmp(result + i * NX, s0.data() + (g0 - 1 + i) * NX, NX * sizeof(double)) != 0) {
      if (errors++ < 3) fprintf(stderr, "rank %d: check failed: row %d differs from the serial run\n", me, g0 - 1 + i);
    }
  }
  if (residuals != serial_res) {
    errors++;
    fprintf(stderr, "rank %d: check failed: residuals differ from the serial run\n", me);
  }

  int all_errors = upcxx::reduce_all(errors, upcxx::op_fast_add).wait();
  if (me == 0) {
    if (all_errors)
      printf("stencil: check failed (%d errors)\n", all_errors);
    else
      printf("stencil: OK (residual %g after %d iterations)\n", residuals.empty() ? 0.0 : residuals.back(), ITERS);
  }
  upcxx::barrier();
  upcxx::delete_array(A);
  upcxx::delete_array(B);
  upcxx::finalize();
  return all_errors ? 1 : 0;
}
