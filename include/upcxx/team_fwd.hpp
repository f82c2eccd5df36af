// <upcxx/team_fwd.hpp>: a header name the UPC++ reference implementation installs and programs
// include directly. Here it brings in team, team_id, world and local_team
// (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/team.hpp"
