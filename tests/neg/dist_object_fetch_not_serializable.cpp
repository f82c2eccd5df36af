// dist_object<T>::fetch copies T across processes, so T must be Serializable (spec 14.4); the
// dist_object itself is fine (reached through rpc), only the call to fetch is refused.
// expect: dist_object<T>::fetch: T must be Serializable
// first: yes
#include <unordered_map>

#include <upcxx/upcxx.hpp>

struct table {
  std::unordered_map<int, int> m;
  table() = default;
  table(const table& o) : m(o.m) {}
};

int main() {
  upcxx::dist_object<table> d({});
  d.fetch(0).wait_reference();
}
