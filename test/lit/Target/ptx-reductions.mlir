// PTX of a reduction kernel (softmax's program): the four variants as
// .entry points with warp shuffles and barriers, accepted by ptxas for sm_80
// and sm_90.
// RUN: %kiln-translate --ptx %s -o %t.ptx
// RUN: %FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas %t.ptx -o %t.sm80.cubin %}
// RUN: %if ptxas %{ %ptxas_bin -arch=sm_90 %t.ptx -o %t.sm90.cubin %}

#full = affine_map<(k, r) -> (k, r)>
#kept = affine_map<(k, r) -> (k)>

// CHECK: .visible .entry softmax_rrows(
// CHECK: ld.global.v4
// CHECK: shfl.sync.down.b32
// CHECK: bar.sync
// CHECK: st.global.v4
// CHECK: .visible .entry softmax_rrowsw(
// CHECK: shfl.sync.idx.b32
// CHECK: .visible .entry softmax_rcols(
// CHECK: .visible .entry softmax_rgeneral(
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> attributes {kiln.reduction_kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %nk = tensor.dim %x, %c0 : tensor<?x?xf32>
  %nr = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%nk) : tensor<?xf32>
  %i0 = linalg.fill ins(%lowest : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %m = linalg.generic {indexing_maps = [#full, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%i0 : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = kiln.combine <max> (%acc), (%v) : (f32), (f32)
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#full, #kept, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<?x?xf32>, tensor<?xf32>) outs(%i1 : tensor<?xf32>) {
  ^bb0(%v: f32, %mv: f32, %acc: f32):
    %d = arith.subf %v, %mv : f32
    %ex = math.exp %d : f32
    %r = kiln.combine <sum> (%acc), (%ex) : (f32), (f32)
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %o = tensor.empty(%nk, %nr) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#full, #kept, #kept, #full], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m, %s : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%o : tensor<?x?xf32>) {
  ^bb0(%v: f32, %mv: f32, %sv: f32, %out: f32):
    %d = arith.subf %v, %mv : f32
    %ex = math.exp %d : f32
    %q = arith.divf %ex, %sv : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
