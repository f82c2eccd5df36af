// UPC++ 2021.3: "Arguments to rpc, rpc_ff and remote_cx::as_rpc are now serialized
// synchronously before return from the communication-injection call, regardless of
// asynchronous source_cx completions." Programs written since then reuse or overwrite an
// argument the moment the call returns, without waiting for source completion; the callee
// must see the value as it was at the call.
#include <upcxx/upcxx.hpp>

#include <string>
#include <vector>

#include "compat_check.hpp"

int received_ff = 0;  // rpc_ff and as_rpc arrivals at this rank

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int right = (me + 1) % n;
  const std::string original(4096, 'a');  // large enough to leave the inline buffer

  // rpc: the lvalue argument is serialized from the object itself; overwrite it at once.
  std::string arg = original;
  std::vector<int> numbers(1000, 7);
  auto fut = upcxx::rpc(
      right,
      [](const std::string& s, const std::vector<int>& v) {
        return s == std::string(4096, 'a') && v.size() == 1000 && v[999] == 7;
      },
      arg, numbers);
  arg.assign(4096, 'z');
  numbers.assign(3, -1);
  COMPAT_CHECK(fut.wait());

  // rpc with an asynchronous source completion (deprecated for rpc since 2021.3, still
  // accepted): the argument is free as soon as the call returns, not only when the source
  // future is ready.
  arg = original;
  auto [src, op] = upcxx::rpc(right, upcxx::source_cx::as_future() | upcxx::operation_cx::as_future(),
                              [](const std::string& s) { return s == std::string(4096, 'a'); }, arg);
  arg.assign(10, 'y');
  COMPAT_CHECK(op.wait());
  src.wait();

  // rpc_ff: nothing to wait for at all, so serialization must have happened already.
  for (int i = 0; i < 5; ++i) {
    std::string msg = original + std::to_string(i);
    upcxx::rpc_ff(
        right,
        [](const std::string& s, int k) {
          COMPAT_CHECK(s == std::string(4096, 'a') + std::to_string(k));
          ++received_ff;
        },
        msg, i);
    msg.assign(4097, 'x');  // the sender reuses the buffer immediately
  }

  // remote_cx::as_rpc: its arguments are captured when the put is initiated.
  upcxx::global_ptr<int> cell = upcxx::new_<int>(0);
  upcxx::dist_object<upcxx::global_ptr<int>> cells(cell);
  upcxx::global_ptr<int> target = cells.fetch(right).wait();
  std::string note = original;
  upcxx::rput(
      me + 1, target,
      upcxx::remote_cx::as_rpc(
          [](const std::string& s) {
            COMPAT_CHECK(s == std::string(4096, 'a'));
            ++received_ff;
          },
          note));
  note.assign(5, 'q');

  // Every rank gets 5 rpc_ff and one as_rpc from its left neighbour.
  while (received_ff < 6) upcxx::progress();
  upcxx::barrier();
  COMPAT_CHECK(received_ff == 6);
  COMPAT_CHECK(upcxx::rget(cell).wait() == (me + n - 1) % n + 1);
  upcxx::delete_(cell);

  upcxx::barrier();
  if (me == 0) std::printf("r2021_3_rpc_args_serialized_at_return: OK\n");
  upcxx::finalize();
}
