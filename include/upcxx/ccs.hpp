// <upcxx/ccs.hpp>: a header name the UPC++ reference implementation installs and programs
// include directly. Here it brings in function identity across ranks for rpc
// (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/rpc.hpp"
