// A value that cannot be copied can go to one completion only: an rpc returning a move-only
// value with both a future and a promise completion is refused at compile time.
// expect: values are not CopyConstructible, so only one of its completions
#include <string>

#include <upcxx/upcxx.hpp>

struct token {
  int v;
  explicit token(int x) : v(x) {}
  token(token&&) = default;
  token(const token&) = delete;
  UPCXX_SERIALIZED_VALUES(v)
};

int main() {
  upcxx::promise<token> p;
  auto f = upcxx::rpc(0, upcxx::operation_cx::as_future() | upcxx::operation_cx::as_promise(p),
                      [] { return token(1); });
  (void)f;
}
