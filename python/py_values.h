// python/py_values.h — Python values checked as a user's input: integers (int and numpy integers, never bool or
// numpy.bool_), finite numbers, keyword arguments in a range and paths without NUL characters. Failures are
// InputError naming the keyword and the value (docs/python.md).
#pragma once

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include <pybind11/pybind11.h>

#include "models/input_error.h"

namespace ringsched::python {

namespace py = pybind11;

// A Python bool or a numpy bool (numpy.bool_, numpy.bool in numpy 2), which numpy still lets pass as an index.
inline bool python_bool(const py::handle& h) {
  if (PyBool_Check(h.ptr()) != 0) return true;
  for (PyTypeObject* t = Py_TYPE(h.ptr()); t != nullptr; t = t->tp_base) {
    if (std::strcmp(t->tp_name, "numpy.bool_") == 0 || std::strcmp(t->tp_name, "numpy.bool") == 0) return true;
  }
  return false;
}

// An integer from Python (int, or anything with __index__ such as numpy integers; not bool, not float): true and
// `out` (clamped to long long's range when it overflows), or false.
inline bool python_int(const py::handle& h, long long& out) {
  if (python_bool(h) || PyIndex_Check(h.ptr()) == 0) return false;
  int overflow = 0;
  const py::object idx = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!idx) {
    PyErr_Clear();
    return false;
  }
  const long long v = PyLong_AsLongLongAndOverflow(idx.ptr(), &overflow);
  if (overflow != 0 || (v == -1 && PyErr_Occurred() != nullptr)) {
    PyErr_Clear();
    out = overflow < 0 ? std::numeric_limits<long long>::min() : std::numeric_limits<long long>::max();
    return true;
  }
  out = v;
  return true;
}

// A number from Python (int of any size, float, numpy numbers; not bool, not str): true and `out` (an int too large
// for a double gives +-inf), or false.
inline bool python_number(const py::handle& h, double& out) {
  if (python_bool(h)) return false;
  const PyNumberMethods* nb = Py_TYPE(h.ptr())->tp_as_number;
  if (PyFloat_Check(h.ptr()) == 0 && PyIndex_Check(h.ptr()) == 0 && (nb == nullptr || nb->nb_float == nullptr)) {
    return false;
  }
  if (PyIndex_Check(h.ptr()) != 0 && PyFloat_Check(h.ptr()) == 0) {
    const py::object idx = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
    if (!idx) {
      PyErr_Clear();
      return false;
    }
    const double v = PyLong_AsDouble(idx.ptr());
    if (v == -1.0 && PyErr_Occurred() != nullptr) {  // OverflowError: more than a double holds
      PyErr_Clear();
      out = PyObject_RichCompareBool(idx.ptr(), py::int_(0).ptr(), Py_LT) == 1
                ? -std::numeric_limits<double>::infinity()
                : std::numeric_limits<double>::infinity();
      return true;
    }
    out = v;
    return true;
  }
  const double v = PyFloat_AsDouble(h.ptr());
  if (v == -1.0 && PyErr_Occurred() != nullptr) {
    PyErr_Clear();
    return false;
  }
  out = v;
  return true;
}

// repr(h), cut to 60 characters.
inline std::string short_repr(const py::handle& h) {
  std::string r = py::repr(h).cast<std::string>();
  if (r.size() > 60) r = r.substr(0, 57) + "...";
  return r;
}

// Keyword `key` as an int in lo..hi; InputError "key: must be an int, got ..." or "key: must be lo..hi, got ...".
inline long long int_keyword(const py::handle& h, const std::string& key, long long lo, long long hi,
                             const std::string& what = "") {
  long long v = 0;
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi) + what;
  if (!python_int(h, v)) throw InputError(key + ": must be an int (" + range + "), got " + short_repr(h));
  if (v < lo || v > hi) throw InputError(key + ": must be " + range + ", got " + short_repr(h));
  return v;
}

// Keyword `key` as a finite number in lo..hi (`range` says it in messages).
inline double number_keyword(const py::handle& h, const std::string& key, double lo, double hi,
                             const std::string& range) {
  double v = 0.0;
  if (!python_number(h, v)) throw InputError(key + ": must be a number (" + range + "), got " + short_repr(h));
  if (!(v >= lo && v <= hi)) throw InputError(key + ": must be " + range + ", got " + short_repr(h));
  return v;
}

// A path given as keyword `key`: refused when it holds a NUL character (the operating system would read it only up
// to the NUL, a different file).
inline const std::string& path_keyword(const std::string& path, const std::string& key) {
  if (path.find('\0') != std::string::npos) {
    throw InputError(key + ": the path holds a NUL character (\\0): " + path.substr(0, path.find('\0')) + "\\0...");
  }
  return path;
}

}  // namespace ringsched::python
