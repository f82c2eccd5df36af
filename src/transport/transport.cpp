// Transport selection: the only place that names concrete transports (STYLE rule 9).
#include "transport/transport.hpp"

#include <cstdlib>

#include "transport/smp/smp.hpp"

namespace gannet::transport {

std::unique_ptr<transport> make_transport(std::size_t heap_bytes) {
  if (smp_job_present()) return make_smp();
  loopback_options opts;
  opts.segment_bytes = heap_bytes + runtime_reserve_bytes;
  // Testing aid (docs/testing.md): run a one-rank job whose RMA takes the off-node paths.
  const char* async = std::getenv("GANNET_LOOPBACK_ASYNC");
  opts.async_rma = async && async[0] == '1';
  return make_loopback(opts);
}

}  // namespace gannet::transport
