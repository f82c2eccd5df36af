// <upcxx/upcxx_internal.hpp>: a header name the UPC++ reference implementation installs and
// programs include directly. Here it brings in the whole library (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/upcxx.hpp"
