// Internal hooks of the RPC machinery (rpc.cpp) for init and progress.
#pragma once

namespace gannet::transport {
class transport;
}

namespace gannet::runtime {

// Registers the RPC active-message handlers with the transport (at init).
void rpc_attach(transport::transport& tp);

// While alive, incoming calls may run in place (user-level progress of the master persona).
class rpc_direct_scope {
 public:
  explicit rpc_direct_scope(bool allow);
  ~rpc_direct_scope();
  rpc_direct_scope(const rpc_direct_scope&) = delete;
  rpc_direct_scope& operator=(const rpc_direct_scope&) = delete;

 private:
  bool previous_;
};

// Runs calls that arrived while they could not run; returns whether any did.
bool rpc_run_backlog();

// Sends every outgoing batch (with the runtime lock held); returns whether any was waiting.
bool rpc_flush();
// Whether outgoing records wait in batches (any thread may ask, without the lock).
bool rpc_batched();

}  // namespace gannet::runtime
