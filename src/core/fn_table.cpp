// Function shipping: every rank runs the same executable, but address-space layout
// randomisation loads it (and each shared library) at a different address in every
// process. A function address is therefore sent as (loaded object index, offset from that
// object's base); the objects are enumerated with dl_iterate_phdr in load order, which is
// the same in every rank of a job (same program, same libraries).
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

#include "upcxx/rpc_fwd.hpp"
#include "util/log.hpp"

namespace upcxx::detail {
namespace {

struct loaded_object {
  std::uintptr_t base;   // dlpi_addr: load bias
  std::uintptr_t begin;  // lowest address of its PT_LOAD segments
  std::uintptr_t end;
};

struct fn_table {
  std::vector<loaded_object> objects;  // in dl_iterate_phdr order
  fn_table() {
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* self) {
          loaded_object o{info->dlpi_addr, UINTPTR_MAX, 0};
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const auto& ph = info->dlpi_phdr[i];
            if (ph.p_type != PT_LOAD) continue;
            std::uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
            o.begin = std::min(o.begin, lo);
            o.end = std::max(o.end, lo + ph.p_memsz);
          }
          static_cast<fn_table*>(self)->objects.push_back(o);
          return 0;
        },
        this);
  }
};

const fn_table& table() {
  static const fn_table t;  // thread-safe initialisation
  return t;
}

}  // namespace

void prepare_function_table();

fn_token encode_function(const void* fn) {
  auto addr = reinterpret_cast<std::uintptr_t>(fn);
  const auto& objs = table().objects;
  for (std::size_t i = 0; i < objs.size(); ++i)
    if (addr >= objs[i].begin && addr < objs[i].end) {
      std::uint64_t offset = addr - objs[i].base;
      if (i >= (std::size_t{1} << (64 - fn_token::offset_bits)) || (offset >> fn_token::offset_bits) != 0)
        gannet::util::fatal("cannot ship function %p: its object (#%zu) or offset does not fit a token", fn, i);
      return fn_token{(std::uint64_t{i} << fn_token::offset_bits) | offset};
    }
  gannet::util::fatal("cannot ship function %p to another rank: it is not in any loaded object "
                      "(a function in a JIT buffer or a dlopen'ed plugin?)", fn);
}

// Load bases in a plain array for the receiving hot path (decode runs once per RPC).
const std::uintptr_t* g_bases = nullptr;
std::size_t g_base_count = 0;

void prepare_function_table() {
  const auto& objs = table().objects;
  static std::vector<std::uintptr_t> bases;
  bases.clear();
  for (const auto& o : objs) bases.push_back(o.base);
  g_bases = bases.data();
  g_base_count = bases.size();
}

const void* decode_function(fn_token t) {
  if (t.object() < g_base_count) [[likely]]
    return reinterpret_cast<const void*>(g_bases[t.object()] + t.offset());
  const auto& objs = table().objects;
  if (t.object() >= objs.size())
    gannet::util::fatal("received a function from an object (#%u) this process did not load: do all ranks run "
                        "the same program?", t.object());
  return reinterpret_cast<const void*>(objs[t.object()].base + t.offset());
}

}  // namespace upcxx::detail
