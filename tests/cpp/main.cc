// tests/cpp/main.cc -- doctest entry point of the C++ layer suite.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
