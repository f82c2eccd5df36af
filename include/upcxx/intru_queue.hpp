// <upcxx/intru_queue.hpp>: a header name the UPC++ reference implementation installs and
// programs include directly. Here it brings in the queues behind personas
// (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/persona.hpp"
