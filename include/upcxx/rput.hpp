// <upcxx/rput.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in rput (docs/compatibility.md).
#pragma once

#include "upcxx/rma.hpp"
