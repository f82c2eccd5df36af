// <upcxx/future/make_future.hpp>: a header name the UPC++ reference implementation installs
// and programs include directly. Here it brings in make_future and to_future
// (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/future.hpp"
