// <upcxx/exceptions.hpp>: a header name the UPC++ reference implementation installs and
// programs include directly. Here it brings in bad_shared_alloc and experimental::network_busy
// (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/allocate.hpp"
#include "upcxx/rpc.hpp"
