// <upcxx/broadcast.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in broadcast and broadcast_nontrivial (docs/compatibility.md).
#pragma once

#include "upcxx/collectives.hpp"
