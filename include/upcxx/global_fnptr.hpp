// <upcxx/global_fnptr.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in function pointers that travel between ranks (used by rpc) (docs/compatibility.md).
#pragma once

#include "upcxx/rpc.hpp"
