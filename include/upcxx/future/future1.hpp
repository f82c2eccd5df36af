// <upcxx/future/future1.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in future (docs/compatibility.md).
#pragma once

#include "upcxx/future.hpp"
