# sum_of_terms.py N fuse|plain|chain NAME_LENGTH: a C++ source whose array
# expression is the sum of N copies of one array, in a KILN_FUSE function, in
# a plain statement of main(), or (chain) in three plain statements of main()
# that each add N - 1 more copies to the previous one's local; main prints
# the first element.
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
elif where == "chain":
    more = " + ".join([name] * (n - 1))
    print("int main() {\n  kiln::array<float> %s = kiln::ones<float>({3});" % name)
    print("  auto t0 = %s;" % expr)
    print("  auto t1 = t0 + %s;" % more)
    print("  kiln::array<float> r = t1 + %s;" % more)
else:
    print("int main() {\n  kiln::array<float> %s = kiln::ones<float>({3});" % name)
    print("  kiln::array<float> r = %s;" % expr)
print("  std::printf(\"%g\\n\", r.to_vector()[2]);\n  return 0;\n}")
