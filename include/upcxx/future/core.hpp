// <upcxx/future/core.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in future machinery (docs/compatibility.md).
#pragma once

#include "upcxx/future.hpp"
