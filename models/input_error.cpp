// models/input_error.cpp — InputError is header-only; this file anchors it in the models library.
#include "models/input_error.h"
