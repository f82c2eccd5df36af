// remote_cx::as_rpc with every completion that can carry it and every kind of function
// object, shared by spmd_as_rpc.cpp (ranks on one machine: the synchronous path) and
// unit/offnode_test.cpp (the off-node path, completed in progress).
//
// Each call (kind k, form f) runs once at the target and records there what it received:
// the count must end at exactly 1 and the value at value_for(k, f, source) + adjust[f]. When
// the target can read the put's destination directly, the call also checks that the put's
// data is there (remote completion: the data arrived first).
#pragma once

#include <string>

#include <upcxx/upcxx.hpp>

namespace as_rpc_matrix {

// Completion kinds: 0-2 rput of a value, 3-5 bulk rput of 4 ints; alone, then with an
// operation_cx future after it, then with a source_cx future before it (5: and both).
constexpr int n_kinds = 6;
// Function objects: function pointer, [] lambda, [=] and [&] lambdas capturing nothing,
// a lambda capturing an int, a plain functor, a functor with UPCXX_SERIALIZED_FIELDS.
constexpr int n_forms = 7;
constexpr int bulk_n = 4;
constexpr int adjust[n_forms] = {0, 0, 0, 0, 7, 0, 5};

inline int g_count[n_kinds][n_forms];
inline int g_value[n_kinds][n_forms];
inline int g_bad_data = 0;
inline bool g_check_data = true;

inline int value_for(int k, int f, int source) { return 1000 * (source + 1) + 10 * k + f; }

// What every form does at the target.
inline void record(upcxx::global_ptr<int> at, int expect, int k, int f, int v) {
  if (g_check_data && at.is_local()) {
    const int* p = at.local();
    bool ok = p[0] == expect && (k < 3 || p[bulk_n - 1] == expect + bulk_n - 1);
    if (!ok) ++g_bad_data;
  }
  g_count[k][f] += 1;
  g_value[k][f] = v;
}

inline void by_pointer(upcxx::global_ptr<int> at, int expect, int k, int f, int v) { record(at, expect, k, f, v); }

struct plain_functor {
  void operator()(upcxx::global_ptr<int> at, int expect, int k, int f, int v) const { record(at, expect, k, f, v); }
};

struct serializable_functor {
  std::string tag;  // not trivially copyable: serialized field by field
  int add = 0;
  UPCXX_SERIALIZED_FIELDS(tag, add)
  void operator()(upcxx::global_ptr<int> at, int expect, int k, int f, int v) const {
    if (tag != "ser") ++g_bad_data;
    record(at, expect, k, f, v + add);
  }
};

inline void reset() {
  for (auto& row : g_count)
    for (int& c : row) c = 0;
  for (auto& row : g_value)
    for (int& c : row) c = 0;
  g_bad_data = 0;
}

inline int total_count() {
  int t = 0;
  for (auto& row : g_count)
    for (int c : row) t += c;
  return t;
}

// Each kind's slot in the target's area: one int per (k, f) for value puts, bulk_n per
// (k, f) for bulk puts.
inline int slot_of(int k, int f) { return k < 3 ? (k * n_forms + f) : 3 * n_forms + ((k - 3) * n_forms + f) * bulk_n; }
constexpr int area_ints = 3 * n_forms + 3 * n_forms * bulk_n;

}  // namespace as_rpc_matrix

// Sends all six kinds to `area` (the target's area of area_ints ints) from rank `me` with
// the function object written out as __VA_ARGS__ at every call: each as_rpc receives a fresh
// prvalue, as a program writing `as_rpc([=]() {...})` does. Waits for the futures it asks
// for.
#define AS_RPC_SEND_ALL_KINDS(area, me, f, ...)                                                              \
  do {                                                                                                       \
    using namespace as_rpc_matrix;                                                                           \
    for (int k_ = 0; k_ < n_kinds; ++k_) {                                                                   \
      const int v_ = value_for(k_, (f), (me));                                                               \
      upcxx::global_ptr<int> at_ = (area) + slot_of(k_, (f));                                                \
      const int bulk_[bulk_n] = {v_, v_ + 1, v_ + 2, v_ + 3};                                                \
      switch (k_) {                                                                                          \
        case 0:                                                                                              \
          upcxx::rput(v_, at_, upcxx::remote_cx::as_rpc(__VA_ARGS__, at_, v_, k_, (f), v_));                  \
          break;                                                                                             \
        case 1:                                                                                              \
          upcxx::rput(v_, at_,                                                                               \
                      upcxx::remote_cx::as_rpc(__VA_ARGS__, at_, v_, k_, (f), v_) | upcxx::operation_cx::as_future()) \
              .wait();                                                                                       \
          break;                                                                                             \
        case 2:                                                                                              \
          upcxx::rput(v_, at_,                                                                               \
                      upcxx::source_cx::as_future() | upcxx::remote_cx::as_rpc(__VA_ARGS__, at_, v_, k_, (f), v_)) \
              .wait();                                                                                       \
          break;                                                                                             \
        case 3:                                                                                              \
          upcxx::rput(bulk_, at_, bulk_n, upcxx::remote_cx::as_rpc(__VA_ARGS__, at_, v_, k_, (f), v_));       \
          break;                                                                                             \
        case 4:                                                                                              \
          upcxx::rput(bulk_, at_, bulk_n,                                                                    \
                      upcxx::remote_cx::as_rpc(__VA_ARGS__, at_, v_, k_, (f), v_) | upcxx::operation_cx::as_future()) \
              .wait();                                                                                       \
          break;                                                                                             \
        default: {                                                                                           \
          auto futs_ = upcxx::rput(bulk_, at_, bulk_n,                                                       \
                                   upcxx::source_cx::as_future() |                                           \
                                       upcxx::remote_cx::as_rpc(__VA_ARGS__, at_, v_, k_, (f), v_) |         \
                                       upcxx::operation_cx::as_future());                                    \
          std::get<0>(futs_).wait();                                                                         \
          std::get<1>(futs_).wait();                                                                         \
        }                                                                                                    \
      }                                                                                                      \
    }                                                                                                        \
  } while (0)

// Every form, in the order of as_rpc_matrix's form numbers. `base` is captured by the
// capturing lambda; `unused` is a local the [=] and [&] lambdas could capture but do not.
#define AS_RPC_SEND_ALL_FORMS(area, me)                                                                    \
  do {                                                                                                     \
    using upcxx::global_ptr;                                                                               \
    int base = 7;                                                                                          \
    int unused = 0;                                                                                        \
    (void)unused;                                                                                          \
    AS_RPC_SEND_ALL_KINDS(area, me, 0, as_rpc_matrix::by_pointer);                                         \
    AS_RPC_SEND_ALL_KINDS(area, me, 1, [](global_ptr<int> at, int e, int k, int f, int v) {                \
      as_rpc_matrix::record(at, e, k, f, v);                                                               \
    });                                                                                                    \
    AS_RPC_SEND_ALL_KINDS(area, me, 2, [=](global_ptr<int> at, int e, int k, int f, int v) {               \
      as_rpc_matrix::record(at, e, k, f, v);                                                               \
    });                                                                                                    \
    AS_RPC_SEND_ALL_KINDS(area, me, 3, [&](global_ptr<int> at, int e, int k, int f, int v) {               \
      as_rpc_matrix::record(at, e, k, f, v);                                                               \
    });                                                                                                    \
    AS_RPC_SEND_ALL_KINDS(area, me, 4, [base](global_ptr<int> at, int e, int k, int f, int v) {            \
      as_rpc_matrix::record(at, e, k, f, v + base);                                                        \
    });                                                                                                    \
    AS_RPC_SEND_ALL_KINDS(area, me, 5, as_rpc_matrix::plain_functor{});                                    \
    AS_RPC_SEND_ALL_KINDS(area, me, 6, as_rpc_matrix::serializable_functor{"ser", 5});                     \
  } while (0)
