# many_kernels.py N: N KILN_FUSE kernels in one file (f_i(x) = x * i + 1) and
# a main that runs the first, the middle and the last on the host.
import sys
n=int(sys.argv[1])
print('#include <kiln/kiln.hpp>\n#include <cstdio>')
for i in range(n):
    print('KILN_FUSE kiln::array<float> f%d(const kiln::array<float> &x) { return x * %d.0f + 1.0f; }' % (i, i))
print('int main() {\n  kiln::array<float> a = kiln::ones<float>({4});\n  float v[4];')
for i in (0, n//2, n-1):
    print('  f%d(a).copy_to_host(v); if (v[2] != %d.0f) return 1;' % (i, i+1))
print('  std::puts("ok");\n  return 0;\n}')
