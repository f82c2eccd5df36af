// <upcxx/lpc_dormant.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in persona::lpc and lpc_ff (docs/compatibility.md).
#pragma once

#include "upcxx/persona.hpp"
