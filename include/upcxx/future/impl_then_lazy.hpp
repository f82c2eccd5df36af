// <upcxx/future/impl_then_lazy.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in future::then (docs/compatibility.md).
#pragma once

#include "upcxx/future.hpp"
