// Nothing to fuse here: the launcher runs the compiler unchanged.
int value = VALUE;
