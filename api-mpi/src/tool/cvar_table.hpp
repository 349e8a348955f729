// The control variables of the tool interface: one per TERN_* variable of
// runtime::config_variables(), typed by what its value is, and the
// enumerations of the switches and modes.
#pragma once

#include <string>
#include <vector>

#include "mpi.h"
#include "tern/runtime/config.hpp"

namespace tern::mpi::tool {

enum class CvarKind {
  Size,     // MPI_UNSIGNED_LONG: bytes, counts
  Seconds,  // MPI_UNSIGNED
  Text,     // MPI_CHAR: lists, names
  Choice,   // MPI_INT, one of an enumeration's values
};

struct CvarValue {
  unsigned long number = 0;  // Size, Seconds, Choice
  std::string text;          // Text
};

struct Enumeration {
  const char* name;
  std::vector<std::pair<int, const char*>> items;  // value, name
};

struct Cvar {
  const runtime::ConfigVariable* variable;
  CvarKind kind;
  MPI_T_enum enumeration;  // for Choice; MPI_T_ENUM_NULL otherwise
  const char* category;
  int verbosity;
  std::string description;  // the meaning, the accepted values and the default
  CvarValue (*read)(const runtime::Config& config);
};

// In config_variables() order.
[[nodiscard]] const std::vector<Cvar>& cvars();
// The enumeration an MPI_T_enum names, or null.
[[nodiscard]] const Enumeration* find_enumeration(MPI_T_enum handle);
[[nodiscard]] MPI_Datatype datatype_of(CvarKind kind);
// The value in effect in this process (the configuration read at start).
[[nodiscard]] CvarValue read_cvar(const Cvar& cvar);

}  // namespace tern::mpi::tool
