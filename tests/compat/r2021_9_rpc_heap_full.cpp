// UPC++ 2021.9: an rpc that meets an exhausted shared heap no longer crashes. Gannet sends it
// anyway (in pieces through the message ring), so the program here fills its heap, then
// sends large RPCs both ways and checks every byte arrived.
#include <upcxx/upcxx.hpp>

#include <cstdint>
#include <iostream>
#include <numeric>
#include <vector>

#include "compat_check.hpp"

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  // Fill this rank's shared heap in 64 KiB blocks until it refuses.
  std::vector<upcxx::global_ptr<char>> blocks;
  bool refused = false;
  try {
    for (;;) blocks.push_back(upcxx::new_array<char>(64 * 1024));
  } catch (const upcxx::bad_shared_alloc&) {
    refused = true;
  }
  COMPAT_CHECK(refused && !blocks.empty());
  upcxx::barrier();

  // A 1 MiB argument and a 1 MiB result, both far above the inline message size.
  std::vector<std::uint32_t> payload(256 * 1024);
  std::iota(payload.begin(), payload.end(), static_cast<std::uint32_t>(me) << 20);
  const int peer = (me + 1) % n;
  auto reply = upcxx::rpc(
                   peer,
                   [](const std::vector<std::uint32_t>& v, int from) {
                     COMPAT_CHECK(v.size() == 256 * 1024);
                     for (std::size_t i = 0; i < v.size(); ++i)
                       COMPAT_CHECK(v[i] == (static_cast<std::uint32_t>(from) << 20) + i);
                     std::vector<std::uint32_t> back(v.rbegin(), v.rend());
                     return back;
                   },
                   payload, me)
                   .wait();
  COMPAT_CHECK(reply.size() == payload.size());
  for (std::size_t i = 0; i < reply.size(); ++i) COMPAT_CHECK(reply[i] == payload[payload.size() - 1 - i]);
  upcxx::barrier();

  for (auto& b : blocks) upcxx::delete_array(b);
  upcxx::barrier();
  if (me == 0) std::cout << "r2021_9_rpc_heap_full: OK" << std::endl;
  upcxx::finalize();
}
