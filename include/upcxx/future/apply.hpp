// <upcxx/future/apply.hpp>: a header name the UPC++ reference implementation installs and
// programs include directly. Here it brings in future machinery (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/future.hpp"
