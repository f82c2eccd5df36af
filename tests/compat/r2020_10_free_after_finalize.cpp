// RAII wrappers that own shared memory are often destroyed after upcxx::finalize(): objects
// local to main() outlive the call (a spectral FFT code keeps its distributed arrays that
// way). Freeing then is harmless on UPC++, so it is here: delete_, delete_array and
// deallocate after finalize() do nothing, and the job ends with status 0. So do the other
// calls that are harmless late: destroying a dist_object or a team, comparing, hashing and
// printing global pointers, and futures and promises that outlive the library.
#include <cstdio>
#include <functional>
#include <sstream>
#include <vector>

#include <upcxx/upcxx.hpp>

#include "compat_check.hpp"

namespace {
// A distributed array that frees its block in its destructor, as such codes write it.
template <typename T>
class shared_array {
 public:
  explicit shared_array(std::size_t n) : block_(upcxx::new_array<T>(n)), one_(upcxx::new_<T>()) {
    raw_ = upcxx::allocate(64);
    typed_ = upcxx::allocate<T>(4);
  }
  ~shared_array() {
    upcxx::delete_array(block_);
    upcxx::delete_(one_);
    upcxx::deallocate(raw_);
    upcxx::deallocate(typed_);
  }
  upcxx::global_ptr<T> block() const { return block_; }

 private:
  upcxx::global_ptr<T> block_;
  upcxx::global_ptr<T> one_;
  void* raw_;
  upcxx::global_ptr<T> typed_;
};

struct counted {
  static int live;
  counted() { ++live; }
  ~counted() { --live; }
};
int counted::live = 0;

// Says OK once main()'s locals are gone: static objects are destroyed after them, so the
// line appears only if every late destructor returned.
int g_me = -1;
struct report_at_exit {
  ~report_at_exit() {
    if (g_me == 0 && counted::live == 9) std::printf("r2020_10_free_after_finalize: OK\n");
  }
} g_report;
}  // namespace

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  shared_array<double> a(1024);
  shared_array<counted> c(8);
  upcxx::dist_object<int> d(me);
  upcxx::team half = upcxx::world().split(me % 2, me);
  upcxx::global_ptr<double> p = a.block(), q = p + 1;
  upcxx::promise<int> pr;
  pr.fulfill_result(7);
  upcxx::future<int> f = pr.get_future();
  COMPAT_CHECK(d.fetch((me + 1) % n).wait() == (me + 1) % n);
  COMPAT_CHECK(half.rank_n() == (n + 1 - me % 2) / 2);
  upcxx::barrier();
  const int live_before = counted::live;  // 8 array elements and one new_
  COMPAT_CHECK(live_before == 9);
  upcxx::finalize();

  // After finalize(): comparisons, hashing and printing of global pointers still work.
  COMPAT_CHECK(p < q && p != q && q - p == 1 && !(p == q));
  COMPAT_CHECK(std::hash<upcxx::global_ptr<double>>()(p) == std::hash<upcxx::global_ptr<double>>()(p));
  std::ostringstream os;
  os << p;
  COMPAT_CHECK(!os.str().empty());
  COMPAT_CHECK(f.is_ready() && f.result() == 7);
  COMPAT_CHECK(!upcxx::initialized());
  g_me = me;
  // Leaving main: half, d, c and a are destroyed now, after finalize(). Freeing does nothing:
  // the shared heap went with finalize(), so the elements' destructors do not run either
  // (counted::live stays 9); g_report then says OK.
}
