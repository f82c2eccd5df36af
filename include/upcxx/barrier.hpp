// <upcxx/barrier.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in barrier and barrier_async (docs/compatibility.md).
#pragma once

#include "upcxx/team.hpp"
#include "upcxx/collectives.hpp"
