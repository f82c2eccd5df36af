// Names of the 2020.10 specification that programs use less often, each used the way the
// specification describes: getenv_console, the std comparators on global_ptr,
// future::wait_reference, the member types and reverse iterators of view,
// deserializing_iterator, progress_level::user and entry_barrier::user spelled out,
// dist_object::id and operator->, and dist_id.
#include <upcxx/upcxx.hpp>

#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "compat_check.hpp"

struct point {
  int x, y;
};

int main() {
  setenv("COMPAT_CONSOLE", "console value", 1);
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n(), peer = (me + 1) % n;

  const char* console = upcxx::getenv_console("COMPAT_CONSOLE");
  COMPAT_CHECK(console != nullptr && std::string(console) == "console value");

  upcxx::global_ptr<int> a = upcxx::new_array<int>(4), b = a + 1;
  COMPAT_CHECK(std::less_equal<upcxx::global_ptr<int>>()(a, b));
  COMPAT_CHECK(std::less_equal<upcxx::global_ptr<int>>()(a, a));
  COMPAT_CHECK(std::greater<upcxx::global_ptr<int>>()(b, a));
  COMPAT_CHECK(!std::greater<upcxx::global_ptr<int>>()(a, a));
  upcxx::delete_array(a);

  upcxx::future<std::vector<int>> fv = upcxx::make_future(std::vector<int>{1, 2, 3});
  const std::vector<int>& ref = fv.wait_reference();
  COMPAT_CHECK(ref.size() == 3 && &ref == &fv.wait_reference());

  std::vector<int> numbers{5, 6, 7, 8};
  int checked = upcxx::rpc(
                    peer,
                    [](upcxx::view<int> v) {
                      using V = upcxx::view<int>;
                      V::size_type count = v.size();
                      V::difference_type span = std::distance(v.cbegin(), v.cend());
                      V::const_iterator first = v.cbegin();
                      V::const_reference front = *first;
                      V::value_type copy = front;
                      V::const_pointer raw = &*first;
                      V::pointer mutable_raw = nullptr;
                      V::reference (*deref)(V::pointer) = [](V::pointer p) -> V::reference { return *p; };
                      int last_value = copy;
                      V::reverse_iterator rit = v.rbegin();
                      V::const_reverse_iterator crit = v.crbegin();
                      COMPAT_CHECK(*rit == 8 && *crit == 8 && std::distance(v.rbegin(), v.rend()) == 4 &&
                                   std::distance(v.crbegin(), v.crend()) == 4);
                      COMPAT_CHECK(mutable_raw == nullptr && deref != nullptr && raw == &*v.begin());
                      return static_cast<int>(count) * 100 + static_cast<int>(span) * 10 + last_value;
                    },
                    upcxx::make_view(numbers))
                    .wait();
  COMPAT_CHECK(checked == 445);

  std::vector<std::string> words{"alpha", "beta"};
  std::size_t letters = upcxx::rpc(
                            peer,
                            [](upcxx::view<std::string> v) {
                              using It = upcxx::deserializing_iterator<std::string>;
                              It unset;  // default-constructible
                              (void)unset;
                              It::difference_type count = std::distance(v.begin(), v.end());
                              It::reference word = *v.begin();
                              It::pointer none = nullptr;
                              COMPAT_CHECK(count == 2 && word == "alpha" && none == nullptr);
                              std::size_t total = 0;
                              for (It it = v.begin(); it != v.end(); ++it) total += (*it).size();
                              return total;
                            },
                            upcxx::make_view(words))
                            .wait();
  COMPAT_CHECK(letters == 9);

  upcxx::progress(upcxx::progress_level::user);
  upcxx::dist_object<point> here(point{me, 2 * me});
  upcxx::dist_id<point> id = here.id();
  COMPAT_CHECK(&id.here() == &here && here->x == me && here->y == 2 * me);
  COMPAT_CHECK(&id.when_here().wait() == &here);
  upcxx::dist_id<point> unset_id;  // default-constructible
  COMPAT_CHECK(!(unset_id == id));
  // The peer may not have built its object yet: when_here() waits for it (an RPC that
  // returns a future replies when the future is ready).
  int theirs = upcxx::rpc(
                   peer,
                   [](upcxx::dist_id<point> i) {
                     return i.when_here().then([](upcxx::dist_object<point>& d) { return d->y; });
                   },
                   id)
                   .wait();
  COMPAT_CHECK(theirs == 2 * peer);

  upcxx::team odd_even = upcxx::world().split(me % 2, me);
  odd_even.destroy(upcxx::entry_barrier::user);
  upcxx::barrier();
  if (me == 0) std::cout << "r2020_10_less_used_names: OK" << std::endl;
  upcxx::finalize();
}
