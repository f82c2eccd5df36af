// <upcxx/backend.hpp>: a header name the UPC++ reference implementation installs and programs
// include directly. Here it brings in init/finalize, ranks, progress and personas (UPC++'s
// runtime interface) (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/backend_fwd.hpp"
#include "upcxx/init.hpp"
#include "upcxx/persona.hpp"
