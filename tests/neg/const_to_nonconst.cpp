// expect: conversion from .*global_ptr<const int.* to non-scalar type .*global_ptr<int
// A pointer to const does not convert to a pointer to non-const (spec 3.2 ¶5).
#include <upcxx/upcxx.hpp>
void f(upcxx::global_ptr<const int> c) { upcxx::global_ptr<int> g = c; (void)g; }
