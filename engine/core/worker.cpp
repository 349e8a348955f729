#include "tern/engine/worker.hpp"
