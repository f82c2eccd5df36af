// <upcxx/rget.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in rget (docs/compatibility.md).
#pragma once

#include "upcxx/rma.hpp"
