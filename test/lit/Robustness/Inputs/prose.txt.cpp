Kiln is an ahead-of-time kernel-fusion compiler for C++ array code. This file,
though, is prose: a paragraph of English that happens to end in .cpp, given to
kilnc by mistake. It must get a diagnostic, not a crash.
