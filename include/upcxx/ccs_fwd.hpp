// <upcxx/ccs_fwd.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in function identity across ranks for rpc (docs/compatibility.md).
#pragma once

#include "upcxx/rpc.hpp"
