// The reference implementation's utilities that are not templates: fatal_error
// (include/upcxx/diagnostic.hpp) and the GASNet backend's am_size_rdzv_cutover
// (include/upcxx/detail/backend_gasnet.hpp; rpc.cpp sets it when the RPC layer attaches to
// the transport).
#include <string>

#include "upcxx/detail/backend_gasnet.hpp"
#include "upcxx/diagnostic.hpp"
#include "util/log.hpp"

namespace upcxx {

namespace backend::gasnet {
std::size_t am_size_rdzv_cutover = 0;
}

void fatal_error(const char* msg, const char* title, const char* func, const char* file, int line) {
  std::string text = std::string(title ? title : "fatal error") + ": " + (msg ? msg : "");
  if (func && *func) text += std::string(" (in ") + func + ")";
  if (file && *file) gannet::util::fatal_at(file, line, "%s", text.c_str());
  gannet::util::fatal("%s", text.c_str());
}

void fatal_error(const char* msg, const char* title, const char* file, int line) {
  fatal_error(msg, title, nullptr, file, line);
}

}  // namespace upcxx
