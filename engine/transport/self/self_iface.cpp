#include "transport/iface_params.hpp"
