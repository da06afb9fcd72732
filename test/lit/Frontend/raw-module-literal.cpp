// kiln::raw_module::from_source with a string literal is compiled by kilnc
// at build time (NVRTC, PTX for compute_80): the call becomes
// raw_module_from_image of a static image in the kernel table, holding the
// PTX and the name expressions with NVRTC's lowered names; the lines after
// the call keep their numbers. Sources known only at run time, and options
// that are not literals, are left to NVRTC at run time.
// REQUIRES: nvrtc
// RUN: %kilnc --emit=cpp %s -o - 2>%t.err | grep -v '^// ' | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// With --cuda-host-only there is no GPU code at build time: each literal is
// compiled for the host, and its image keeps the source for NVRTC at the
// first GPU launch (no PTX); what is not a literal stays a run-time call.
// RUN: %kilnc --cuda-host-only --emit=cpp %s -o - | grep -v '^// ' | FileCheck %s --check-prefix=HOST
#include <kiln/raw_module.hpp>

#include <string>
#include <vector>

constexpr const char *kConstSource = "extern \"C\" __global__ void from_const(int *p) { p[0] = 7; }\n";

kiln::raw_module raw_literal() {
  return kiln::raw_module::from_source(R"(
extern "C" __global__ void saxpy(float a, const float *x, float *y, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
template <class T> __global__ void scale(T *x, T a, long long n) { x[0] *= a; }
)", {"-std=c++17", "-DUNUSED=1"}, {"scale<float>", "scale<double>"});
}
int after_raw_literal() { return __LINE__; }

kiln::raw_module concatenated() {
  return kiln::raw_module::from_source("extern \"C\" __global__ "
                                       "void joined(float *x) { x[0] = 1.0f; }\n");
}

kiln::raw_module from_const() { return kiln::raw_module::from_source(kConstSource); }

kiln::raw_module at_run_time(const std::string &source) { return kiln::raw_module::from_source(source); }

kiln::raw_module options_at_run_time(const std::vector<std::string> &options) {
  return kiln::raw_module::from_source("extern \"C\" __global__ void later(int *p) { p[0] = 1; }", options);
}

// (The output is read without its line comments, these lines among them.)
// Each compiled call has an accessor, declared before the user's code.
// CHECK: const ::kiln::detail::raw_module_image &[[M0:__kiln_m_[0-9a-f]+_0]]() noexcept;
// CHECK: const ::kiln::detail::raw_module_image &[[M1:__kiln_m_[0-9a-f]+_1]]() noexcept;
// CHECK: const ::kiln::detail::raw_module_image &[[M2:__kiln_m_[0-9a-f]+_2]]() noexcept;
// CHECK: #line 1 "{{.*}}raw-module-literal.cpp"
// The raw literal's call, padded so that the next line keeps its number.
// CHECK: return ::kiln::detail::raw_module_from_image(::[[M0]]())
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT: ;
// CHECK-NEXT: }
// CHECK-NEXT: int after_raw_literal() { return __LINE__; }
// CHECK: return ::kiln::detail::raw_module_from_image(::[[M1]]())
// CHECK-NEXT: ;
// CHECK-NEXT: }
// CHECK: kiln::raw_module from_const() { return ::kiln::detail::raw_module_from_image(::[[M2]]()); }
// CHECK: at_run_time(const std::string &source) { return kiln::raw_module::from_source(source); }
// CHECK: return kiln::raw_module::from_source("extern \"C\" __global__ void later(int *p) { p[0] = 1; }", options);

// The images: PTX for compute_80 (no cubin without --cuda-arch), the
// lowered names, and where the call is.
// CHECK: #line 1 "<kilnc: kernel table>"
// CHECK: alignas(8) const char kiln_module_ptx_0[] =
// CHECK: ".target sm_80\n"
// CHECK: ".visible .entry saxpy(\n"
// CHECK: ".weak .entry _Z5scaleIdEvPT_S0_x(\n"
// CHECK: ".weak .entry _Z5scaleIfEvPT_S0_x(\n"
// CHECK: const char *const kiln_module_names_0[] = {"scale<float>", "scale<double>"};
// CHECK-NEXT: const char *const kiln_module_lowered_0[] = {"_Z5scaleIfEvPT_S0_x", "_Z5scaleIdEvPT_S0_x"};
// CHECK-NEXT: const ::kiln::detail::raw_module_image kiln_module_0 = {
// CHECK-NEXT:   kiln_module_ptx_0,
// CHECK-NEXT:   nullptr, 0,
// CHECK-NEXT:   kiln_module_names_0, kiln_module_lowered_0, 2,
// CHECK-NEXT:   "{{.*}}raw-module-literal.cpp:22",
// CHECK-NEXT:   &::__kiln_m_{{[0-9a-f]+_[0-9]+}}_host, nullptr,
// CHECK-NEXT:   nullptr, nullptr, 0};
// CHECK: ".visible .entry joined(\n"
// CHECK: const ::kiln::detail::raw_module_image kiln_module_1 = {
// CHECK-NEXT:   kiln_module_ptx_1,
// CHECK-NEXT:   nullptr, 0,
// CHECK-NEXT:   nullptr, nullptr, 0,
// CHECK-NEXT:   "{{.*}}raw-module-literal.cpp:33",
// CHECK-NEXT:   &::__kiln_m_{{[0-9a-f]+_[0-9]+}}_host, nullptr,
// CHECK-NEXT:   nullptr, nullptr, 0};
// CHECK: ".visible .entry from_const(\n"
// CHECK: const ::kiln::detail::raw_module_image &[[M0]]() noexcept { return kiln_module_0; }
// CHECK: const ::kiln::detail::raw_module_image &[[M2]]() noexcept { return kiln_module_2; }

// WARN: raw-module-literal.cpp:42:100: warning: the options are not a braced list of string literals (kilnc compiles a literal source at build time when they are); kiln::raw_module::from_source compiles this CUDA source at run time, with NVRTC
// WARN-NOT: warning

// HOST-NOT: kiln_module_ptx_
// HOST: return ::kiln::detail::raw_module_from_image(::__kiln_m_{{[0-9a-f]+}}_0())
// HOST: kiln::raw_module from_const() { return ::kiln::detail::raw_module_from_image(::__kiln_m_{{[0-9a-f]+_[0-9]+}}()); }
// HOST: kiln::raw_module options_at_run_time(const std::vector<std::string> &options) {
// HOST-NEXT: return kiln::raw_module::from_source("extern \"C\" __global__ void later(int *p) { p[0] = 1; }", options);
// HOST: const ::kiln::detail::raw_module_image kiln_module_0 = {
// HOST-NEXT: nullptr,
// HOST: &::__kiln_m_{{[0-9a-f]+}}_0_host, nullptr,
// HOST-NEXT: "\n"
// HOST-NEXT: "extern \"C\" __global__ void saxpy(
