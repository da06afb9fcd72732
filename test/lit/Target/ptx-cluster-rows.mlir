// The sm_90 module of a reduction kernel read more than once per row
// (softmax's program): `_rrowsc` runs a row across a thread-block cluster,
// caching it in dynamic shared memory and exchanging each level's states
// through distributed shared memory; ptxas accepts it for sm_90.
// RUN: %kiln-translate --ptx-sm90 %s -o %t.ptx
// RUN: %FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas_bin -arch=sm_90 %t.ptx -o %t.sm90.cubin %}

// CHECK: .target sm_90
// CHECK: .visible .entry softmax_rrowsc(
// CHECK-NOT: .entry softmax_rrows(
// CHECK: %cluster_ctaid.x
// CHECK: ld.global.v4
// CHECK: st.shared.v4
// CHECK: barrier.cluster.arrive
// CHECK: barrier.cluster.wait
// CHECK: mapa.shared::cluster
// CHECK: ld.shared::cluster
// CHECK: ld.shared.v4
// CHECK: st.global.v4

#full = affine_map<(k, r) -> (k, r)>
#kept = affine_map<(k, r) -> (k)>

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
