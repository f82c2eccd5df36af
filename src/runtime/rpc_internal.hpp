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

// Runs calls and replies that arrived while they could not run; returns whether any did.
bool rpc_run_backlog();

}  // namespace gannet::runtime
