// <upcxx/future/impl_when_all.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in when_all (docs/compatibility.md).
#pragma once

#include "upcxx/future.hpp"
