// <upcxx/upcxx_internal.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in the whole library (docs/compatibility.md).
#pragma once

#include "upcxx/upcxx.hpp"
