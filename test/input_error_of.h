// test/input_error_of.h — the message an action throws as InputError ("" if it does not throw), for bad-input tests.
#pragma once

#include <string>

#include "models/input_error.h"

namespace ringsched::test {

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace ringsched::test
