//===- runtime/array/printing.cpp - NumPy's str and repr of arrays --------===//
//
// A port of the layout of NumPy 2's numpy/_core/arrayprint.py (default,
// non-legacy mode): the elements shown (all, or `edgeitems` at each end of
// each axis past `threshold` elements) choose one format for the array
// (IntegerFormat, BoolFormat, FloatingFormat, ComplexFloatingFormat), and
// _formatArray lays them out, wrapping lines at `linewidth`. NumPy's Dragon4
// digit generation is std::to_chars here: its shortest round-trip form is
// Dragon4's "unique" digits, and its fixed-precision form rounds the exact
// binary value as Dragon4 does when it cuts digits off at `precision`.
// A 0-d array's str is its scalar's (positional between 1e-4 and 1e16,
// scientific outside, as numpy.float64.__str__).
//
//===----------------------------------------------------------------------===//
#include "kiln/print.hpp"

#include "kiln/error.hpp"
#include "kiln/stream.hpp"
#include "runtime/ops/host_loop.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

namespace kiln {
namespace {

std::mutex &options_mutex() {
  static std::mutex m;
  return m;
}
print_options &options() {
  static print_options o;
  return o;
}

// --- Digits ------------------------------------------------------------------

template <class F> std::string chars(F v, std::chars_format f) {
  char buf[400];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v, f).ptr);
}
template <class F> std::string chars(F v, std::chars_format f, int precision) {
  char buf[400];
  return std::string(buf,
                     std::to_chars(buf, buf + sizeof buf, v, f, precision).ptr);
}

/// A finite float in positional or scientific notation, split where NumPy
/// pads it: sign and integer digits, fraction digits, exponent digits.
struct float_text {
  std::string integer, fraction,
      exponent; ///< exponent: "-05" (empty when positional)
};

/// Dragon4's unique digits of v, at most `precision` of them after the point
/// (a value that needs more is rounded there), trailing zeros dropped.
/// "-1.25e-05" as {"-1", "25", "-05"}.
float_text split(const std::string &t) {
  float_text r;
  const std::size_t e = t.find('e');
  const std::string mantissa = e == std::string::npos ? t : t.substr(0, e);
  if (e != std::string::npos)
    r.exponent = t.substr(e + 1);
  const std::size_t dot = mantissa.find('.');
  r.integer = mantissa.substr(0, dot);
  if (dot != std::string::npos)
    r.fraction = mantissa.substr(dot + 1);
  return r;
}

template <class F>
float_text unique_digits(F v, bool scientific, int precision) {
  const std::chars_format f =
      scientific ? std::chars_format::scientific : std::chars_format::fixed;
  float_text r = split(chars(v, f));
  if (static_cast<int>(r.fraction.size()) > precision) {
    r = split(chars(v, f, precision));
    while (!r.fraction.empty() && r.fraction.back() == '0')
      r.fraction.pop_back();
  }
  return r;
}

/// The exponent's digits padded with zeros to `digits`, after its sign.
std::string exponent_text(const std::string &e, std::size_t digits) {
  const char sign = e.empty() ? '+' : e[0];
  std::string d = e.empty() ? "0" : e.substr(1);
  if (d.size() < digits)
    d.insert(0, digits - d.size(), '0');
  return std::string(1, sign) + d;
}

// --- Element formats (arrayprint.py's *Format classes)
// ------------------------

/// FloatingFormat, floatmode "maxprec": the same notation, integer width and
/// fraction width for every element of the array.
template <class F> class floating_format {
public:
  floating_format(const std::vector<F> &data, const print_options &o, bool plus)
      : o_(o), plus_(plus) {
    std::vector<F> finite;
    for (F v : data)
      if (std::isfinite(v))
        finite.push_back(v);
    // In F, as NumPy compares a float32 array's values with Python floats.
    F max_val = 0, min_val = 0;
    bool any = false;
    for (F v : finite)
      if (v != 0) {
        const F a = std::fabs(v);
        max_val = any ? std::max(max_val, a) : a;
        min_val = any ? std::min(min_val, a) : a;
        any = true;
      }
    // NumPy >= 2.3: the cutoff is 10^min(8, finfo(dtype).precision).
    const F exp_cutoff_max = std::is_same_v<F, float> ? F(1e6) : F(1e8);
    if (any &&
        (max_val >= exp_cutoff_max ||
         (!o.suppress && (min_val < F(0.0001) || max_val / min_val > F(1000)))))
      exp_format_ = true;
    if (finite.empty()) {
      pad_left_ = pad_right_ = 0;
    } else if (exp_format_) {
      std::size_t frac = 0, exp = 0;
      for (F v : finite) {
        const float_text t = unique_digits(v, true, o.precision);
        pad_left_ = std::max(pad_left_, signed_integer(v, t).size());
        frac = std::max(frac, t.fraction.size());
        exp = std::max(exp, t.exponent.size());
      }
      exp_size_ = exp - 1;
      precision_ = frac;
      pad_right_ = exp_size_ + 2 + precision_;
    } else {
      for (F v : finite) {
        const float_text t = unique_digits(v, false, o.precision);
        pad_left_ = std::max(pad_left_, signed_integer(v, t).size());
        pad_right_ = std::max(pad_right_, t.fraction.size());
      }
    }
    if (finite.size() != data.size()) {
      bool neginf = plus_;
      for (F v : data)
        neginf = neginf || (std::isinf(v) && v < 0);
      const std::int64_t offset = std::int64_t(pad_right_) + 1;
      const std::int64_t left = std::max<std::int64_t>(
          {std::int64_t(pad_left_), std::int64_t(o.nanstr.size()) - offset,
           std::int64_t(o.infstr.size()) + (neginf ? 1 : 0) - offset});
      pad_left_ = static_cast<std::size_t>(std::max<std::int64_t>(left, 0));
    }
  }

  std::string operator()(F v) const {
    if (!std::isfinite(v)) {
      std::string r = std::isnan(v) ? (plus_ ? "+" : "") + o_.nanstr
                                    : (v < 0   ? "-"
                                       : plus_ ? "+"
                                               : "") +
                                          o_.infstr;
      const std::size_t width = pad_left_ + pad_right_ + 1;
      return r.size() < width ? std::string(width - r.size(), ' ') + r : r;
    }
    // Scientific: every mantissa has the longest one's digits (Dragon4's
    // min_digits: the exact value's digits, rounded at the last).
    const float_text t =
        exp_format_
            ? split(chars(v, std::chars_format::scientific, int(precision_)))
            : unique_digits(v, false, o_.precision);
    std::string integer = signed_integer(v, t);
    if (integer.size() < pad_left_)
      integer.insert(0, pad_left_ - integer.size(), ' ');
    if (exp_format_)
      return integer +
             (t.fraction.empty() && precision_ == 0 ? "." : "." + t.fraction) +
             "e" + exponent_text(t.exponent, exp_size_);
    std::string fraction = t.fraction;
    fraction.append(pad_right_ - std::min(pad_right_, fraction.size()), ' ');
    return integer + "." + fraction;
  }

private:
  /// The integer digits with their sign ("-" for a negative value or -0.,
  /// "+" for the others when `plus_`).
  std::string signed_integer(F v, const float_text &t) const {
    std::string i = t.integer;
    if (plus_ && !std::signbit(v))
      i.insert(0, "+");
    return i;
  }

  const print_options &o_;
  bool plus_;
  bool exp_format_ = false;
  std::size_t pad_left_ = 0, pad_right_ = 0, exp_size_ = 0, precision_ = 0;
};

/// ComplexFloatingFormat: the real parts' format, then the imaginary parts'
/// (always signed) with the "j" before its padding.
template <class F> class complex_format {
public:
  complex_format(const std::vector<std::complex<F>> &data,
                 const print_options &o)
      : real_(parts(data, false), o, false), imag_(parts(data, true), o, true) {
  }
  std::string operator()(std::complex<F> v) const {
    std::string i = imag_(v.imag());
    const std::size_t end = i.find_last_not_of(' ') + 1;
    i.insert(end, "j");
    return real_(v.real()) + i;
  }

private:
  static std::vector<F> parts(const std::vector<std::complex<F>> &data,
                              bool imag) {
    std::vector<F> r;
    r.reserve(data.size());
    for (const auto &v : data)
      r.push_back(imag ? v.imag() : v.real());
    return r;
  }
  floating_format<F> real_, imag_;
};

/// IntegerFormat: right-aligned to the widest of the largest and smallest.
template <class I> class integer_format {
public:
  explicit integer_format(const std::vector<I> &data) {
    if (data.empty())
      return;
    const auto [lo, hi] = std::minmax_element(data.begin(), data.end());
    width_ = std::max(text(*lo).size(), text(*hi).size());
  }
  std::string operator()(I v) const {
    std::string s = text(v);
    return s.size() < width_ ? std::string(width_ - s.size(), ' ') + s : s;
  }

private:
  static std::string text(I v) {
    return std::to_string(
        static_cast<std::conditional_t<std::is_signed_v<I>, long long,
                                       unsigned long long>>(v));
  }
  std::size_t width_ = 0;
};

// --- Scalars (0-d str)
// --------------------------------------------------------

/// numpy.floating.__str__: positional from 1e-4 up to 1e16 for float64,
/// 1e6 for float32 (and 0), else scientific; `leave_one_zero`: "1.0"
/// (float), else "1" (a complex part).
template <class F>
std::string scalar_text(F v, bool leave_one_zero, bool plus,
                        const print_options &o) {
  if (std::isnan(v))
    return (plus ? "+" : "") + o.nanstr;
  if (std::isinf(v))
    return (v < 0 ? "-" : plus ? "+" : "") + o.infstr;
  const double a = std::fabs(double(v));
  const double cutoff = std::is_same_v<F, float> ? 1e6 : 1e16;
  const bool positional = a == 0 || (a < cutoff && a >= 1e-4);
  std::string s = positional ? chars(v, std::chars_format::fixed)
                             : chars(v, std::chars_format::scientific);
  if (positional && s.find('.') == std::string::npos && leave_one_zero)
    s += ".0";
  if (plus && !std::signbit(v))
    s.insert(0, "+");
  return s;
}

std::string scalar_str(const array_base &h, const print_options &o) {
  return detail::host::dispatch(h.dtype(), [&]<class T>() -> std::string {
    const T v = *static_cast<const T *>(h.data());
    if constexpr (std::is_same_v<T, bool>) {
      return v ? "True" : "False";
    } else if constexpr (std::is_integral_v<T>) {
      return integer_format<T>({v})(v);
    } else if constexpr (std::is_floating_point_v<T>) {
      return scalar_text(v, true, false, o);
    } else {
      using F = typename T::value_type;
      const std::string imag = scalar_text<F>(v.imag(), false, false, o) + "j";
      if (v.real() == 0 && !std::signbit(v.real()))
        return imag;
      return "(" + scalar_text<F>(v.real(), false, false, o) +
             scalar_text<F>(v.imag(), false, true, o) + "j)";
    }
  });
}

// --- Layout (_formatArray)
// ------------------------------------------------------

class layout {
public:
  layout(const shape &s, std::function<std::string(std::int64_t)> element,
         const print_options &o, bool summarize, std::string separator)
      : shape_(s), element_(std::move(element)), o_(o), summarize_(summarize),
        separator_(std::move(separator)) {
    strides_.assign(s.size(), 1);
    for (std::int64_t d = std::int64_t(s.size()) - 2; d >= 0; --d)
      strides_[d] = strides_[d + 1] * s[d + 1];
  }

  std::string format(std::size_t prefix_len, int line_width) {
    return recurse(0, 0, std::string(1 + prefix_len, ' '), line_width);
  }

private:
  static std::string rstrip(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n'))
      s.pop_back();
    return s;
  }

  /// _extendLine: `word` on this line, or on a new one when it would pass
  /// `width` (and a new line would help).
  void extend(std::string &s, std::string &line, const std::string &word,
              std::int64_t width, const std::string &indent) const {
    bool wrap = std::int64_t(line.size() + word.size()) > width;
    if (line.size() <= indent.size())
      wrap = false;
    if (wrap) {
      s += rstrip(line) + "\n";
      line = indent;
    }
    line += word;
  }

  std::string recurse(std::size_t axis, std::int64_t offset,
                      const std::string &indent, std::int64_t width) {
    if (axis == shape_.size())
      return element_(offset);
    const std::string next_indent = indent + " ";
    const std::int64_t next_width = width - 1; // len("]")
    const std::int64_t n = shape_[axis];
    const bool summary = summarize_ && 2 * std::int64_t(o_.edgeitems) < n;
    const std::int64_t leading = summary ? o_.edgeitems : 0,
                       trailing = summary ? o_.edgeitems : n;
    auto at = [&](std::int64_t i) {
      return offset + (i < 0 ? n + i : i) * strides_[axis];
    };
    std::string s;
    const std::size_t left = shape_.size() - axis;
    if (left == 1) {
      std::string sep_r = rstrip(separator_);
      const std::int64_t elem_width =
          width - std::int64_t(std::max<std::size_t>(sep_r.size(), 1));
      std::string line = indent;
      for (std::int64_t i = 0; i < leading; ++i) {
        extend(s, line, recurse(axis + 1, at(i), next_indent, next_width),
               elem_width, indent);
        line += separator_;
      }
      if (summary) {
        extend(s, line, "...", elem_width, indent);
        line += separator_;
      }
      for (std::int64_t i = trailing; i > 1; --i) {
        extend(s, line, recurse(axis + 1, at(-i), next_indent, next_width),
               elem_width, indent);
        line += separator_;
      }
      if (n > 0)
        extend(s, line, recurse(axis + 1, at(-1), next_indent, next_width),
               elem_width, indent);
      s += line;
    } else {
      const std::string line_sep =
          rstrip(separator_) + std::string(left - 1, '\n');
      for (std::int64_t i = 0; i < leading; ++i)
        s += indent + recurse(axis + 1, at(i), next_indent, next_width) +
             line_sep;
      if (summary)
        s += indent + "..." + line_sep;
      for (std::int64_t i = trailing; i > 1; --i)
        s += indent + recurse(axis + 1, at(-i), next_indent, next_width) +
             line_sep;
      if (n > 0)
        s += indent + recurse(axis + 1, at(-1), next_indent, next_width);
    }
    return "[" + s.substr(std::min(indent.size(), s.size())) + "]";
  }

  shape shape_;
  std::vector<std::int64_t> strides_;
  std::function<std::string(std::int64_t)> element_;
  const print_options &o_;
  bool summarize_;
  std::string separator_;
};

/// The flat indices of the elements a summarized print shows
/// (_leading_trailing), or all of them.
std::vector<std::int64_t> shown(const shape &s, bool summarize,
                                std::int64_t edge) {
  std::vector<std::int64_t> out{0};
  for (std::size_t d = 0; d < s.size(); ++d) {
    const std::int64_t n = s[d];
    std::vector<std::int64_t> idx;
    // (NumPy's _leading_trailing takes [:0] and [-0:], all of it, when
    // edgeitems is 0: the format then fits the whole axis.)
    if (summarize && edge > 0 && n > 2 * edge) {
      for (std::int64_t i = 0; i < edge; ++i)
        idx.push_back(i);
      for (std::int64_t i = n - edge; i < n; ++i)
        idx.push_back(i);
    } else {
      for (std::int64_t i = 0; i < n; ++i)
        idx.push_back(i);
    }
    std::vector<std::int64_t> next;
    next.reserve(out.size() * idx.size());
    for (std::int64_t base : out)
      for (std::int64_t i : idx)
        next.push_back(base * n + i);
    out = std::move(next);
  }
  return out;
}

/// array2string(x, separator, prefix) of a C-contiguous host array.
std::string to_string(const array_base &h, const print_options &o,
                      const std::string &separator, std::size_t prefix_len,
                      int line_width) {
  if (h.size() == 0) // any axis of length 0
    return "[]";
  const bool summarize = h.size() > o.threshold;
  const std::vector<std::int64_t> flat =
      shown(h.shape(), summarize, o.edgeitems);
  return detail::host::dispatch(h.dtype(), [&]<class T>() -> std::string {
    const T *p = static_cast<const T *>(h.data());
    std::vector<T> data;
    data.reserve(flat.size());
    if (h.size() > 0)
      for (std::int64_t i : flat)
        data.push_back(p[i]);
    std::function<std::string(std::int64_t)> element;
    if constexpr (std::is_same_v<T, bool>) {
      const std::string truestr = h.ndim() > 0 ? " True" : "True";
      element = [p, truestr](std::int64_t i) {
        return p[i] ? truestr : std::string("False");
      };
    } else if constexpr (std::is_integral_v<T>) {
      element = [p, f = integer_format<T>(data)](std::int64_t i) {
        return f(p[i]);
      };
    } else if constexpr (std::is_floating_point_v<T>) {
      auto f = std::make_shared<floating_format<T>>(data, o, false);
      element = [p, f](std::int64_t i) { return (*f)(p[i]); };
    } else {
      auto f =
          std::make_shared<complex_format<typename T::value_type>>(data, o);
      element = [p, f](std::int64_t i) { return (*f)(p[i]); };
    }
    return layout(h.shape(), element, o, summarize, separator)
        .format(prefix_len, line_width);
  });
}

/// `x` as a C-contiguous host array.
array_base host_copy(const array_base &x) {
  const array_base h =
      x.device().is_host()
          ? x
          : detail::to_device(x, device::host(), stream::current(x.device()));
  return h.is_contiguous() ? h : detail::copy(h, h.dtype());
}

std::string shape_text(const shape &s) {
  std::string r = "(";
  for (std::size_t i = 0; i < s.size(); ++i)
    r += (i ? ", " : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

} // namespace

void set_printoptions(const printoptions &c) {
  if (c.precision && *c.precision < 0)
    throw value_error("precision must be >= 0");
  if (c.threshold && *c.threshold < 0)
    throw value_error("threshold must be non-NAN, try sys.maxsize for "
                      "untruncated representation");
  if (c.edgeitems && *c.edgeitems < 0)
    throw value_error("edgeitems must be >= 0");
  if (c.linewidth && *c.linewidth < 1)
    throw value_error("linewidth must be >= 1");
  std::lock_guard<std::mutex> lock(options_mutex());
  print_options &o = options();
  if (c.precision)
    o.precision = *c.precision;
  if (c.threshold)
    o.threshold = *c.threshold;
  if (c.edgeitems)
    o.edgeitems = *c.edgeitems;
  if (c.linewidth)
    o.linewidth = *c.linewidth;
  if (c.suppress)
    o.suppress = *c.suppress;
  if (c.nanstr)
    o.nanstr = *c.nanstr;
  if (c.infstr)
    o.infstr = *c.infstr;
}

print_options get_printoptions() {
  std::lock_guard<std::mutex> lock(options_mutex());
  return options();
}

std::string array_str(const array_base &x) {
  const print_options o = get_printoptions();
  const array_base h = host_copy(x);
  if (h.ndim() == 0)
    return scalar_str(h, o);
  return to_string(h, o, " ", 0, o.linewidth);
}

std::string array_repr(const array_base &x) {
  const print_options o = get_printoptions();
  const array_base h = host_copy(x);
  const std::string prefix = "array(";
  const std::string body =
      to_string(h, o, ", ", prefix.size(), o.linewidth - 1); // - len(")")
  const dtype t = h.dtype();
  const bool implied = t == dtype::bool_ || t == dtype::int64 ||
                       t == dtype::float64 || t == dtype::complex128;
  // The extras (NumPy >= 2.2): the shape of an empty array other than (0,)
  // and of a summarized one; the dtype unless implied.
  std::vector<std::string> extras;
  if ((h.size() == 0 && h.shape() != shape{0}) || h.size() > o.threshold)
    extras.push_back("shape=" + shape_text(h.shape()));
  if (!implied || h.size() == 0)
    extras.push_back("dtype=" + std::string(name(t)));
  if (extras.empty())
    return prefix + body + ")";
  std::string extra;
  for (const std::string &e : extras)
    extra += (extra.empty() ? "" : ", ") + e;
  extra += ")";
  const std::string head = prefix + body + ",";
  const std::size_t nl = head.rfind('\n');
  const std::size_t last_line =
      head.size() - (nl == std::string::npos ? 0 : nl + 1);
  const bool wrap =
      std::int64_t(last_line + extra.size() + 1) > std::int64_t(o.linewidth);
  return head +
         (wrap ? "\n" + std::string(prefix.size(), ' ') : std::string(" ")) +
         extra;
}

std::ostream &operator<<(std::ostream &os, const array_base &x) {
  return os << array_str(x);
}

} // namespace kiln
