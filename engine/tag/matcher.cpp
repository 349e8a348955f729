#include "tag/matcher.hpp"
