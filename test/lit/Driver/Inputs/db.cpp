// Compiles only with the flags of the test's compile_commands.json.
#include "Inputs/dep.h" // found through the database's -I.
#include <cstdio>

int main() {
  std::printf("from the database: %d, answer %d\n", FROM_DB, KILN_TEST_ANSWER);
}
