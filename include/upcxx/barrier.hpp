// <upcxx/barrier.hpp>: a header name the UPC++ reference implementation installs and programs
// include directly. Here it brings in barrier and barrier_async (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/team.hpp"
#include "upcxx/collectives.hpp"
