// kilnc compiles and links like c++: a file without kernels, -c with and
// without -o, objects on the link line, pass-through flags, -save-temps, the
// dependency file (naming this file, not the rewritten copy), exit code 1 on
// a compile error.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %kilnc %s -I %S/Inputs -o %t/prog && %t/prog | FileCheck %s --check-prefix=RUN1
// RUN1: answer 42
//
// RUN: %kilnc -c %s -I%S/Inputs -DEXTRA=1 -o %t/a.o && %kilnc %t/a.o -o %t/prog2 && %t/prog2 | FileCheck %s --check-prefix=RUN2
// RUN2: answer 43
//
// Without -o, -c writes <stem>.o to the current directory.
// RUN: cd %t && %kilnc -c %s -I%S/Inputs && ls %t | FileCheck %s --check-prefix=STEM
// STEM: compile-link.o
//
// Unknown flags go to the host compiler (and link); -v shows the commands
// (c++, or clang++ with its sanitizer flags in the asan build).
// RUN: %kilnc -v %s -I%S/Inputs -Wall -fPIC -march=x86-64 -pthread -o %t/prog3 2>&1 | FileCheck %s --check-prefix=VERBOSE
// VERBOSE: kilnc: frontend: {{.*}}compile-link.cpp
// VERBOSE: {{(c|clang)\+\+(-[0-9]+)?( -f[^ ]+)*}} -std=c++20 {{.*}}-Wall -fPIC -march=x86-64 -pthread {{.*}}-c {{.*}}.kiln.cpp -o
// VERBOSE: kilnc: link
// VERBOSE: {{(c|clang)\+\+(-[0-9]+)?( -f[^ ]+)*}} {{.*}}-o {{.*}}prog3 {{.*}}libkiln_runtime.a -ldl -lpthread
//
// A given -std= replaces kilnc's default -std=c++20.
// RUN: %kilnc -v -c %s -I%S/Inputs -std=gnu++23 -o %t/b.o 2>&1 | FileCheck %s --check-prefix=STD
// STD-NOT: -std=c++20
// STD: -std=gnu++23
//
// RUN: %kilnc -c %s -I%S/Inputs -MD -MF %t/a.d -o %t/a.o && FileCheck %s --check-prefix=DEP < %t/a.d
// RUN: not grep -q kilnc- %t/a.d
// DEP: a.o:
// DEP: compile-link.cpp
// DEP: Inputs/dep.h
//
// RUN: cd %t && %kilnc -save-temps -c %s -I%S/Inputs -o %t/c.o && ls %t | FileCheck %s --check-prefix=TEMPS
// TEMPS: compile-link.kiln.cpp
//
// RUN: sh -c '%kilnc -c %s -o %t/d.o -DBREAK -I%S/Inputs; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=BROKEN
// BROKEN: compile-link.cpp:{{[0-9]+}}:{{[0-9]+}}: error:
// BROKEN: exit=1
#include "dep.h"
#include <cstdio>

#ifndef EXTRA
#define EXTRA 0
#endif

int main() {
#ifdef BREAK
  this is not C++;
#endif
  std::printf("answer %d\n", KILN_TEST_ANSWER + EXTRA);
  return 0;
}
