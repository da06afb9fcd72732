"""The campaign's input data: random-looking, never zeros, bit-identical in
Kiln and NumPy, and made where it is used (nothing on disk).

Element i of an input with seed s comes from a hash of (i, s) in int64
arithmetic, which wraps identically in Kiln and NumPy:

    h1 = (1103515245 i + 12345 s + 1) mod p        p = 2^31 - 1
    h2 = h1^2 mod p                                (no overflow: h1 < 2^31)
    h3 = (48271 h2 + i) mod p
    u  = h3 * 2^-31                                in [0, 1), exact in float64

and from u an element of the input's dtype and range [lo, lo + span):

    bool      u < 0.5
    integers  floor(u * span) + lo
    floats    u * span + lo, rounded once to the dtype
    complex   real part from seed s, imaginary part from seed s + 7777777

The spans have few significant bits, so u * span is exact and a backend that
contracts it with the add into an FMA rounds the same way. The C++ side
(cpp(), pasted into each generated source so that kilnc fuses it into a
few kernels on the device that runs the program) computes the same
expressions.
"""
import numpy as np

from dtypes import CPP, KIND

MOD = 2147483647
IMAG_SEED = 7777777

UNIT_CPP = r"""
// The inputs (benchmarks/campaign/inputs.py): a hash of each element's index
// and the input's seed in int64 arithmetic; NumPy builds the same bits.
static kiln::array<double> campaign_unit(const kiln::shape &s, std::int64_t seed) {
  std::int64_t n = 1;
  for (auto d : s)
    n *= d;
  auto i = kiln::arange<std::int64_t>(n);
  auto h1 = (i * 1103515245 + (seed * 12345 + 1)) % 2147483647;
  auto h2 = (h1 * h1) % 2147483647;
  auto h3 = (h2 * 48271 + i) % 2147483647;
  kiln::array<double> u = h3.astype<double>() * 0x1p-31;
  return u.reshape(s);
}
"""

# One function per dtype (a template whose instantiations fuse differently
# is one kilnc cannot rewrite).
MAKE_CPP = {
    "b": "  return campaign_unit(s, seed) < 0.5;",
    "i": "  return (kiln::floor(campaign_unit(s, seed) * span) + lo).astype<{T}>();",
    "f": "  return (campaign_unit(s, seed) * span + lo).astype<{T}>();",
    "c": "  auto re = campaign_unit(s, seed) * span + lo;\n"
         "  auto im = campaign_unit(s, seed + %d) * span + lo;\n"
         "  return (re + im * std::complex<double>(0.0, 1.0)).astype<{T}>();" % IMAG_SEED,
}


def cpp(dtypes):
    """The C++ that makes inputs of `dtypes`: campaign_<dtype>(shape, seed, lo, span)."""
    out = [UNIT_CPP]
    for dt in sorted(set(dtypes)):
        body = MAKE_CPP[{"u": "i"}.get(KIND[dt], KIND[dt])].replace("{T}", CPP[dt])
        out.append("static kiln::array<%s> campaign_%s(const kiln::shape &s, std::int64_t seed, double lo, double span) {"
                   "\n%s\n}\n" % (CPP[dt], dt, body))
        if KIND[dt] == "b":
            out[-1] = out[-1].replace("double lo, double span", "double, double")
    return "\n".join(out)


def unit(n, seed, xp=np):
    """u for elements 0..n-1 of seed `seed` (float64, in [0, 1)); `xp` is
    the array module (NumPy, or CuPy for the peer: the same bits)."""
    i = xp.arange(n, dtype=np.int64)
    h = i * 1103515245
    h += seed * 12345 + 1
    h %= MOD
    xp.multiply(h, h, out=h)
    h %= MOD
    h *= 48271
    h += i
    h %= MOD
    del i
    u = h.astype(np.float64)
    u *= 2.0 ** -31
    return u


def make(dtype, shape, seed, lo, span, xp=np):
    """The input of `dtype` and `shape` (a C-contiguous array of `xp`)."""
    n = int(np.prod(shape, dtype=np.int64))
    kind = KIND[dtype]
    if kind == "b":
        v = unit(n, seed, xp) < 0.5
    elif kind in "iu":
        u = unit(n, seed, xp)
        u *= span
        xp.floor(u, out=u)
        u += lo
        v = u.astype(dtype)
    elif kind == "f":
        u = unit(n, seed, xp)
        u *= span
        u += lo
        v = u.astype(dtype)
    else:
        re = unit(n, seed, xp)
        re *= span
        re += lo
        im = unit(n, seed + IMAG_SEED, xp)
        im *= span
        im += lo
        v = xp.empty(n, dtype=dtype)
        v.real, v.imag = re, im
    return v.reshape(shape)
