// PTX for sm_80: one .entry per variant named <kernel>_<variant>, 16-byte
// vector loads/stores in _contig, and ptxas accepts it for sm_80 and sm_90.
// RUN: %kiln-translate --ptx %s -o %t.ptx
// RUN: %FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas %t.ptx -o %t.sm80.cubin %}
// RUN: %if ptxas %{ %ptxas_bin -arch=sm_90 %t.ptx -o %t.sm90.cubin %}

#id = affine_map<(i) -> (i)>

// CHECK: .version 8.0
// CHECK: .target sm_80
// CHECK: .address_size 64
// CHECK: .visible .entry saxpy_contig(
// CHECK: ld.global.v4.{{[bf]}}32
// CHECK: ld.global.v4.{{[bf]}}32
// CHECK: st.global.v4.{{[bf]}}32
// CHECK: .visible .entry saxpy_strided1(
// CHECK: .visible .entry saxpy_strided2(
// CHECK: .visible .entry saxpy_strided3(
// CHECK: .visible .entry saxpy_strided4(
func.func @saxpy(%x: tensor<?xf32>, %y: tensor<?xf32>, %a: f32) -> tensor<?xf32> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e0 = tensor.empty(%n) : tensor<?xf32>
  %ax = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e0 : tensor<?xf32>) {
  ^bb0(%xi: f32, %o: f32):
    %m = arith.mulf %a, %xi : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %e1 = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%ax, %y : tensor<?xf32>, tensor<?xf32>) outs(%e1 : tensor<?xf32>) {
  ^bb0(%p: f32, %yi: f32, %o: f32):
    %s = arith.addf %p, %yi : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
