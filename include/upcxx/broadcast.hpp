// <upcxx/broadcast.hpp>: a header name the UPC++ reference implementation installs and
// programs include directly. Here it brings in broadcast and broadcast_nontrivial
// (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/collectives.hpp"
