// dist_object<T> of types that are not Serializable, reached only through rpc(..., dobj, ...)
// and *dobj / dobj->: a hash table with a user-written copy constructor (so neither
// TriviallySerializable nor given a serialization), a move-only std::unique_ptr, and a type
// without a default constructor. UPC++ compiles and runs these; fetch(), which would need to
// serialize T, is simply never called.
#include <upcxx/upcxx.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "compat_check.hpp"

// A distributed hash table's local part, in the style of the programmer's guide.
class local_table {
 public:
  local_table() = default;
  local_table(const local_table& other) : map_(other.map_), copies_(other.copies_ + 1) {}
  local_table& operator=(const local_table&) = delete;

  void insert(int key, std::string value) { map_[key] = std::move(value); }
  std::string find(int key) const {
    auto it = map_.find(key);
    return it == map_.end() ? std::string() : it->second;
  }
  std::size_t size() const { return map_.size(); }
  int copies() const { return copies_; }

 private:
  std::unordered_map<int, std::string> map_;
  int copies_ = 0;
};
static_assert(!upcxx::is_serializable<local_table>::value, "the test needs a type that is not Serializable");

// No default constructor, not Serializable (it holds a raw owning pointer).
struct counter_box {
  explicit counter_box(int start) : count(new long(start)) {}
  counter_box(counter_box&& o) noexcept : count(o.count) { o.count = nullptr; }
  counter_box(const counter_box&) = delete;
  ~counter_box() { delete count; }
  long* count;
  UPCXX_SERIALIZED_DELETE()
};
static_assert(!upcxx::is_serializable<counter_box>::value, "the test needs a type that is not Serializable");

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int right = (me + 1) % n;

  upcxx::dist_object<local_table> table({});
  upcxx::dist_object<std::unique_ptr<int>> cell(std::make_unique<int>(100 + me));
  upcxx::dist_object<counter_box> box(upcxx::world(), 10 * me);
  const int copies_at_start = table->copies();  // (the constructor took its argument by value)

  // Inserts into the right neighbour's table, then reads back through rpc.
  upcxx::future<> inserted = upcxx::make_future();
  for (int k = 0; k < 8; ++k) {
    inserted = upcxx::when_all(
        inserted, upcxx::rpc(
                      right,
                      [](upcxx::dist_object<local_table>& t, int key, const std::string& v) { t->insert(key, v); },
                      table, me * 100 + k, "from " + std::to_string(me)));
  }
  inserted.wait();
  upcxx::barrier();
  COMPAT_CHECK(table->size() == 8);
  const int left = (me + n - 1) % n;
  COMPAT_CHECK((*table).find(left * 100 + 3) == "from " + std::to_string(left));
  std::string got = upcxx::rpc(
                        right, [](upcxx::dist_object<local_table>& t, int key) { return t->find(key); }, table,
                        me * 100 + 5)
                        .wait();
  COMPAT_CHECK(got == "from " + std::to_string(me));
  std::size_t remote_size =
      upcxx::rpc(right, [](upcxx::dist_object<local_table>& t) { return t->size(); }, table).wait();
  COMPAT_CHECK(remote_size == 8);
  COMPAT_CHECK(table->copies() == copies_at_start);  // the table itself never travels

  // rpc_ff and remote_cx::as_rpc discard the function's result, which need not be
  // Serializable either: here a reference to the table itself (a fluent insert).
  for (int k = 0; k < 3; ++k)
    upcxx::rpc_ff(
        right,
        [](upcxx::dist_object<local_table>& t, int key) -> local_table& {
          t->insert(key, "ff");
          return *t;
        },
        table, 5000 + me * 10 + k);
  upcxx::global_ptr<int> slot = upcxx::new_<int>(0);
  upcxx::dist_object<upcxx::global_ptr<int>> slots(slot);
  upcxx::global_ptr<int> right_slot = slots.fetch(right).wait();
  upcxx::rput(7, right_slot,
              upcxx::remote_cx::as_rpc(
                  [](upcxx::dist_object<local_table>& t) -> local_table& {
                    t->insert(-1, "as_rpc");
                    return *t;
                  },
                  table) |
                  upcxx::operation_cx::as_future())
      .wait();
  while (table->size() < 12) upcxx::progress();
  COMPAT_CHECK(table->find(5000 + left * 10 + 2) == "ff" && table->find(-1) == "as_rpc");
  COMPAT_CHECK(upcxx::rget(slot).wait() == 7);
  upcxx::barrier();
  upcxx::delete_(slot);

  // A move-only value: read and replaced remotely.
  int remote = upcxx::rpc(right, [](upcxx::dist_object<std::unique_ptr<int>>& c) { return **c; }, cell).wait();
  COMPAT_CHECK(remote == 100 + right);
  upcxx::rpc(right, [](upcxx::dist_object<std::unique_ptr<int>>& c, int v) { *c = std::make_unique<int>(v); }, cell,
             200 + me)
      .wait();
  upcxx::barrier();
  COMPAT_CHECK(**cell == 200 + left);

  // No default constructor: counted up remotely, through the dist_id as well.
  upcxx::rpc(right, [](upcxx::dist_object<counter_box>& b) { ++*b->count; }, box).wait();
  upcxx::dist_id<counter_box> id = box.id();
  long seen = upcxx::rpc(right, [](upcxx::dist_id<counter_box> d) { return *d.here()->count; }, id).wait();
  upcxx::barrier();
  COMPAT_CHECK(*box->count == 10 * me + 1);
  COMPAT_CHECK(seen == 10 * right + 1);
  COMPAT_CHECK(&id.when_here().wait_reference() == &box);

  upcxx::barrier();
  if (me == 0) std::printf("r2020_10_dist_object_not_serializable: OK\n");
  upcxx::finalize();
  return 0;
}
