// UPC++ 2021.3 moved the reference implementation's utilities into upcxx::experimental
// (os_env, say, destroy_heap/restore_heap, the *_nontrivial collectives, the non-fast op_*).
// A program of that era uses the new spellings; one written for 2020.10 the old ones. Both work.
#include <upcxx/upcxx.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include "compat_check.hpp"

int main() {
  setenv("COMPAT_ITERS", "25", 1);
  setenv("COMPAT_FLAG", "Yes", 1);
  setenv("COMPAT_NAME", "two words", 1);
  setenv("COMPAT_BUF", "64MB", 1);
  setenv("COMPAT_BUF_KB", "16", 1);
  setenv("COMPAT_BAD", "12abc", 1);
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();

  // os_env, both spellings.
  COMPAT_CHECK(upcxx::experimental::os_env<int>("COMPAT_ITERS", 1) == 25);
  COMPAT_CHECK(upcxx::os_env<int>("COMPAT_UNSET_VARIABLE", 7) == 7);
  COMPAT_CHECK(upcxx::experimental::os_env<int>("COMPAT_BAD", 3) == 3);
  COMPAT_CHECK(upcxx::experimental::os_env<bool>("COMPAT_FLAG", false));
  COMPAT_CHECK(upcxx::experimental::os_env<std::string>("COMPAT_NAME", "x") == "two words");
  COMPAT_CHECK(upcxx::experimental::os_env<int>("COMPAT_ITERS") == 25);
  COMPAT_CHECK(upcxx::experimental::os_env("COMPAT_BUF", std::int64_t{0}, 1024) == std::int64_t{64} << 20);
  COMPAT_CHECK(upcxx::experimental::os_env("COMPAT_BUF_KB", std::int64_t{0}, 1024) == 16 * 1024);
  COMPAT_CHECK(upcxx::os_env("COMPAT_UNSET_VARIABLE", std::int64_t{5}, 1024) == 5);

  // say, both spellings, with a rank in the prefix and another stream.
  std::ostringstream captured;
  upcxx::experimental::say(captured, "rank %d of the job: ") << "x=" << 42;
  COMPAT_CHECK(captured.str() == "rank " + std::to_string(me) + " of the job: x=42\n");
  if (me == 0) upcxx::say() << "say works";

  // The non-trivial collectives and operators under experimental.
  std::string word = upcxx::experimental::broadcast_nontrivial(std::string(me == 0 ? "root" : ""), 0).wait();
  COMPAT_CHECK(word == "root");
  long sum = upcxx::reduce_all(static_cast<long>(me), upcxx::experimental::op_add).wait();
  COMPAT_CHECK(sum == static_cast<long>(n) * (n - 1) / 2);

  // destroy_heap / restore_heap: everything in the heap goes at once; allocation fails until
  // the heap is restored.
  auto leftover = upcxx::new_array<double>(1000);
  COMPAT_CHECK(leftover);
  // Large RPCs in flight across destroy_heap (their bodies travel through the sender's heap),
  // and bodies that answer with large RPCs of their own while ranks are inside it.
  constexpr int k = 4;
  static int large_received = 0;
  for (int i = 0; i < k; ++i)
    upcxx::rpc_ff(
        (me + 1) % n,
        [](const std::string& s, bool answer, int from) {
          COMPAT_CHECK(s.size() == 300000 && s[299999] == 'q');
          ++large_received;
          if (answer) upcxx::rpc_ff(from, [](const std::string& t) { COMPAT_CHECK(t.size() == 300000); ++large_received; }, s);
        },
        std::string(300000, 'q'), true, me);
  upcxx::experimental::destroy_heap();
  bool refused = false;
  try {
    upcxx::new_<int>(1);
  } catch (const upcxx::bad_shared_alloc& e) {
    refused = std::string(e.what()).find("destroy_heap") != std::string::npos;
  }
  COMPAT_CHECK(refused);
  // RPCs keep working without the heap, large ones included.
  std::string big(200000, 'g');
  auto len = upcxx::rpc((me + 1) % n, [](const std::string& s) { return s.size(); }, big).wait();
  COMPAT_CHECK(len == big.size());
  upcxx::restore_heap();  // the 2020.10 spelling
  while (large_received < 2 * k) upcxx::progress();
  auto fresh = upcxx::new_array<double>(1000);
  COMPAT_CHECK(fresh);
  fresh.local()[999] = 1.5;
  upcxx::delete_array(fresh);
  upcxx::barrier();
  if (me == 0) std::cout << "r2021_3_experimental: OK" << std::endl;
  upcxx::finalize();
}
