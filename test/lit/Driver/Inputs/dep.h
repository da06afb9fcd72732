// Included by compile-link.cpp with "..." from this directory (-I) to check
// that quoted includes still resolve after kilnc rewrites the source.
#define KILN_TEST_ANSWER 42
