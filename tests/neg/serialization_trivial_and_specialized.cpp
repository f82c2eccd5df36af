// expect: may not both specialize upcxx::serialization<T> and have is_trivially_serializable<T> true
// An explicit serialization<T> and is_trivially_serializable<T> true conflict (spec 6.2 ¶4).
#include <upcxx/serialization.hpp>
struct P {
  int a;
};
template <>
struct upcxx::is_trivially_serializable<P> : std::true_type {};
template <>
struct upcxx::serialization<P> {
  template <typename W>
  static void serialize(W& w, const P& p) { w.write(p.a); }
  template <typename R>
  static P* deserialize(R& r, void* s) { return ::new (s) P{r.template read<int>()}; }
};
void f(upcxx::detail::serial_writer& w) { w.write(P{1}); }
