// <upcxx/future/promise.hpp>: a header name the UPC++ reference implementation installs and
// programs include directly. Here it brings in promise (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/promise.hpp"
