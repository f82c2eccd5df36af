// <upcxx/reduce.hpp>: a header name the UPC++ reference implementation installs and programs
// include directly. Here it brings in reduce_one, reduce_all and the op_* function objects
// (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/collectives.hpp"
