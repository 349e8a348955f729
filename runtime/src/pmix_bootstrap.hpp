// The PMIx client side of the bootstrap. Only bootstrap.cpp creates one, so
// <pmix.h> stays out of every other translation unit.
#pragma once

#include <memory>
#include <string>

#include "tern/runtime/bootstrap.hpp"

namespace tern::runtime {

// PMIx_Init and the job facts every rank needs (size, rank, local peers,
// node). On failure `error` names the PMIx call and its status string, and
// PMIx is finalized again. `init_timeout_seconds`: see create_bootstrap.
[[nodiscard]] Status create_pmix_bootstrap(std::unique_ptr<Bootstrap>& out, std::string& error,
                                           unsigned init_timeout_seconds);

}  // namespace tern::runtime
