# sum_of_terms.py N fuse|plain NAME_LENGTH: a C++ source whose array
# expression is the sum of N copies of one array, in a KILN_FUSE function or
# in a plain statement of main(); main prints the first element.
import sys

n, where, length = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
name = ("operand_" + "x" * length)[:max(length, 1)]
expr = " + ".join([name] * n)
print("#include <kiln/kiln.hpp>\n#include <cstdio>")
if where == "fuse":
    print("KILN_FUSE kiln::array<float> f(const kiln::array<float> &%s) {" % name)
    print("  return %s;" % expr)
    print("}")
    print("int main() {\n  kiln::array<float> r = f(kiln::ones<float>({3}));")
else:
    print("int main() {\n  kiln::array<float> %s = kiln::ones<float>({3});" % name)
    print("  kiln::array<float> r = %s;" % expr)
print("  std::printf(\"%g\\n\", r.to_vector()[2]);\n  return 0;\n}")
