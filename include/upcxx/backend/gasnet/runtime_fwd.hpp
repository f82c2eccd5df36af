// <upcxx/backend/gasnet/runtime_fwd.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in upcxx::backend::gasnet (docs/compatibility.md).
#pragma once

#include "upcxx/upcxx.hpp"
