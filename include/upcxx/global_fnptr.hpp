// <upcxx/global_fnptr.hpp>: a header name the UPC++ reference implementation installs and
// programs include directly. Here it brings in function pointers that travel between ranks
// (used by rpc) (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/rpc.hpp"
