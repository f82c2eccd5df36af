// Factory of the smp transport (processes on one machine started by gannet-run).
#pragma once

#include <memory>

namespace gannet::transport {
class transport;
std::unique_ptr<transport> make_smp();
// True when this process was started by gannet-run (the job's descriptor is in the environment).
bool smp_job_present();
}  // namespace gannet::transport
