// The distributed hash table ("Case 1") of the poster "UPC++ and GASNet-EX: PGAS Support
// for Exascale Apps and Runtimes": an RPC inserts the key's metadata at its owner and
// allocates room for the value there; the future of that RPC chains a one-sided rput of the
// value into the room. find() asks the owner where the value is, then fetches it with rget.
//   gannet-run -n 4 dht [keys_per_rank]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include <upcxx/upcxx.hpp>

namespace {

struct entry {
  upcxx::global_ptr<char> data;
  std::size_t size;
};
// C++ globals are rank-local state: this rank's partition of the table.
std::unordered_map<std::uint64_t, entry> local_map;

upcxx::intrank_t owner_of(std::uint64_t key) { return static_cast<upcxx::intrank_t>(key % upcxx::rank_n()); }

upcxx::future<> dht_insert(std::uint64_t key, const std::string& value) {
  const std::size_t size = value.size();
  return upcxx::rpc(owner_of(key),
                    [key, size]() -> upcxx::global_ptr<char> {
                      upcxx::global_ptr<char> room = upcxx::new_array<char>(size);
                      local_map[key] = entry{room, size};
                      return room;
                    })
      .then([value](upcxx::global_ptr<char> room) { return upcxx::rput(value.data(), room, value.size()); });
}

upcxx::future<std::string> dht_find(std::uint64_t key) {
  return upcxx::rpc(owner_of(key),
                    [key]() -> entry {
                      auto it = local_map.find(key);
                      return it == local_map.end() ? entry{nullptr, 0} : it->second;
                    })
      .then([](entry e) -> upcxx::future<std::string> {
        if (e.data.is_null()) return upcxx::make_future(std::string());
        auto* buf = new std::string(e.size, '\0');
        return upcxx::rget(e.data, buf->data(), e.size).then([buf] {
          std::string s = std::move(*buf);
          delete buf;
          return s;
        });
      });
}

std::string value_for(std::uint64_t key) { return "value-of-" + std::to_string(key) + std::string(key % 37, '*'); }

}  // namespace

int main(int argc, char** argv) {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int keys = argc > 1 ? std::atoi(argv[1]) : 1000;

  // Every rank inserts its keys, all in flight at once.
  upcxx::future<> inserted = upcxx::make_future();
  for (int i = 0; i < keys; ++i) {
    std::uint64_t key = static_cast<std::uint64_t>(i) * n + me;
    inserted = upcxx::when_all(inserted, dht_insert(key, value_for(key)));
  }
  inserted.wait();
  upcxx::barrier();  // every insert is complete everywhere

  // Every rank looks up keys inserted by its neighbour, and a key nobody inserted.
  int wrong = 0;
  const int other = (me + 1) % n;
  for (int i = 0; i < keys; ++i) {
    std::uint64_t key = static_cast<std::uint64_t>(i) * n + other;
    if (dht_find(key).wait() != value_for(key)) ++wrong;
  }
  if (!dht_find(static_cast<std::uint64_t>(keys) * n * 10 + 1).wait().empty()) ++wrong;
  upcxx::barrier();

  std::size_t mine = local_map.size();
  for (auto& [key, e] : local_map) upcxx::delete_array(e.data);
  local_map.clear();
  upcxx::say() << "dht: holds " << mine << " keys, " << keys << " lookups, " << wrong << " wrong";
  upcxx::barrier();
  if (me == 0) std::printf("dht: %s\n", wrong ? "FAILED" : "OK");
  upcxx::finalize();
  return wrong ? 1 : 0;
}
