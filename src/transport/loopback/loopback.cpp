// The loopback transport: a one-rank job in one process. It backs `./prog` run without a
// launcher and the unit tests. With async_rma it defers every put/get to the next poll() and
// reports its segment as not load/store addressable, so the runtime's off-node code paths
// (completion sinks, deferred notification) can be tested without a second process.
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <vector>

#include "transport/transport.hpp"
#include "util/log.hpp"
#include "util/observe.hpp"
#include "util/traffic.hpp"

namespace gannet::transport {
namespace {

class loopback_transport final : public transport {
 public:
  explicit loopback_transport(const loopback_options& opts) : async_(opts.async_rma) {
    bytes_ = opts.segment_bytes ? opts.segment_bytes : 4096;
    // MAP_NORESERVE: pages are committed on first touch, like the smp segments.
    base_ = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base_ == MAP_FAILED)
      util::fatal("cannot reserve a shared heap of %zu bytes: %s", bytes_, std::strerror(errno));
  }
  ~loopback_transport() override { ::munmap(base_, bytes_); }

  const char* name() const override { return "loopback"; }
  capabilities caps() const override {
    capabilities c;
    c.active_messages = true;
    c.rma = true;
    c.am_max_medium = 64 * 1024;
    return c;
  }

  rank_t rank_me() const override { return 0; }
  rank_t rank_n() const override { return 1; }
  std::span<const rank_t> local_ranks() const override { return {&self_, 1}; }

  segment_info segment(rank_t) const override {
    return {reinterpret_cast<std::uintptr_t>(base_), bytes_};
  }
  void* local_address(rank_t, std::uintptr_t owner_addr) const override {
    return async_ ? nullptr : reinterpret_cast<void*>(owner_addr);
  }

  op_result put(rank_t, std::uintptr_t owner_addr, const void* src, std::size_t n,
                completion_sink* sink, std::uint32_t) override {
    if (!async_) {
      std::memcpy(reinterpret_cast<void*>(owner_addr), src, n);
      return {status::ok, cx_all};
    }
    // The source is captured now, so source completion is synchronous; the remote effect
    // happens at the next poll().
    pending_.push_back({reinterpret_cast<std::byte*>(owner_addr),
                        std::vector<std::byte>(static_cast<const std::byte*>(src),
                                               static_cast<const std::byte*>(src) + n),
                        nullptr, sink, cx_remote});
    return {status::ok, cx_source};
  }

  op_result get(rank_t, std::uintptr_t owner_addr, void* dst, std::size_t n,
                completion_sink* sink, std::uint32_t) override {
    if (!async_) {
      std::memcpy(dst, reinterpret_cast<void*>(owner_addr), n);
      return {status::ok, cx_all};
    }
    pending_.push_back({static_cast<std::byte*>(dst), {}, reinterpret_cast<std::byte*>(owner_addr),
                        sink, cx_all});
    pending_.back().get_bytes = n;
    return {status::ok, cx_none};
  }

  void am_register(am_handler_id id, am_handler fn) override {
    if (id >= max_am_handlers) util::fatal("active-message handler id %u out of range", id);
    handlers_[id] = fn;
  }

  status am_send(rank_t, am_handler_id id, std::span<const std::byte> header,
                 std::span<const std::byte> payload, std::uint32_t) override {
    if (header.size() + payload.size() > caps().am_max_medium) return status::unsupported;
    util::count_message(header.size() + payload.size());
    am_queue_.push_back({id, std::vector<std::byte>(header.begin(), header.end()),
                         std::vector<std::byte>(payload.begin(), payload.end())});
    return status::ok;
  }

  void barrier_arrive() override {}
  bool barrier_test() override { return true; }

  bool poll() override {
    bool did = false;
    // Take the current batch first: completions may start new operations.
    std::deque<pending_rma> batch;
    batch.swap(pending_);
    for (auto& op : batch) {
      if (op.get_from)
        std::memcpy(op.dst, op.get_from, op.get_bytes);
      else
        std::memcpy(op.dst, op.data.data(), op.data.size());
      if (op.sink) op.sink->complete(op.bits);
      did = true;
    }
    std::deque<queued_am> msgs;
    msgs.swap(am_queue_);
    for (auto& m : msgs) {
      am_handler fn = handlers_[m.id];
      if (!fn) util::fatal("active message for unregistered handler %u", m.id);
      if (observe::on()) [[unlikely]] observe::received(m.header.size() + m.payload.size());
      fn(am_message{0, m.header, m.payload});
      did = true;
    }
    return did;
  }

  // One process: a message is in our own queue as soon as it is sent; a pass handles every
  // message queued before it.
  bool delivered() override { return true; }
  bool one_queue() const override { return true; }
  void exit_arrive() override {}
  bool exit_test() override { return true; }
  bool drain_arrived() override { return !am_queue_.empty() && poll(); }

  bool progress_required() const override { return !pending_.empty() || !am_queue_.empty(); }
  bool job_aborting() const override { return false; }
  void attach() override {}
  void detach() override {}

 private:
  struct pending_rma {
    std::byte* dst;
    std::vector<std::byte> data;  // put payload
    std::byte* get_from;          // get source
    completion_sink* sink;
    cx_bits bits;
    std::size_t get_bytes = 0;
  };
  struct queued_am {
    am_handler_id id;
    std::vector<std::byte> header, payload;
  };

  bool async_;
  rank_t self_ = 0;
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  std::deque<pending_rma> pending_;
  std::deque<queued_am> am_queue_;
  am_handler handlers_[max_am_handlers] = {};
};

}  // namespace

std::unique_ptr<transport> make_loopback(const loopback_options& opts) {
  return std::make_unique<loopback_transport>(opts);
}

}  // namespace gannet::transport
