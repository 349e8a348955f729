#include "tern/runtime/fork_job.hpp"
