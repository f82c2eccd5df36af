// result() and wait() of an lvalue future return a copy (spec 5.8.1 ¶19): a move-only value
// cannot be copied; the error names the alternatives.
// expect: this value type is not CopyConstructible .*result_reference
#include <memory>

#include <upcxx/upcxx.hpp>

int main() {
  upcxx::future<std::unique_ptr<int>> f = upcxx::make_future(std::make_unique<int>(1));
  std::unique_ptr<int> p = f.result();
}
