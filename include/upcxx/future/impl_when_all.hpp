// <upcxx/future/impl_when_all.hpp>: a header name the UPC++ reference implementation installs
// and programs include directly. Here it brings in when_all (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/future.hpp"
