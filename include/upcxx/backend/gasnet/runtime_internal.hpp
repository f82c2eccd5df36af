// <upcxx/backend/gasnet/runtime_internal.hpp>: a header name the UPC++ reference
// implementation installs and programs include directly. Here it brings in
// upcxx::backend::gasnet (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/upcxx.hpp"
