// <upcxx/future/fwd.hpp>: a header name the UPC++ reference implementation installs and
// programs include directly. Here it brings in future (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/future.hpp"
