// tern_agent: the progress agent of a host in a Tern job over several
// hosts (engine/include/tern/engine/progress_agent.hpp). The host's first
// rank starts it; it is not meant to be run by hand.
#include "tern/engine/progress_agent.hpp"

int main() { return tern::engine::run_progress_agent(); }
