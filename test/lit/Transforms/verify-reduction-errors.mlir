// kiln-verify-fused-kernels on kiln.reduction_kernel functions reports what
// is not in the reduction form.
// RUN: %kiln-opt %s --split-input-file --kiln-verify-fused-kernels --verify-diagnostics

#full = affine_map<(k, r) -> (k, r)>
#kept = affine_map<(k, r) -> (k)>

// expected-error @+1 {{kiln.reduction_kernel @no_reduction: has no reduction}}
func.func @no_reduction(%x: tensor<?x?xf32>) -> tensor<?x?xf32> attributes {kiln.reduction_kernel} {
  return %x : tensor<?x?xf32>
}

// -----

// expected-error @+1 {{arguments must be full tensors (tensor<?x?xT>), then kept tensors (tensor<?xT>), then scalars}}
func.func @order(%b: tensor<?xf32>, %x: tensor<?x?xf32>) -> tensor<?xf32> attributes {kiln.reduction_kernel} {
  return %b : tensor<?xf32>
}

// -----
#full = affine_map<(k, r) -> (k, r)>
#kept = affine_map<(k, r) -> (k)>


func.func @no_combine(%x: tensor<?x?xf32>) -> tensor<?xf32> attributes {kiln.reduction_kernel} {
  %c0 = arith.constant 0 : index
  %nk = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%nk) : tensor<?xf32>
  // expected-error @+1 {{a reduction's body must end in a kiln.combine of its outputs, yielded}}
  %s = linalg.generic {indexing_maps = [#full, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----
#full = affine_map<(k, r) -> (k, r)>
#kept = affine_map<(k, r) -> (k)>


#transposed = affine_map<(k, r) -> (r, k)>
func.func @other_map(%x: tensor<?x?xf32>) -> tensor<?xf32> attributes {kiln.reduction_kernel} {
  %c0 = arith.constant 0 : index
  %nk = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%nk) : tensor<?xf32>
  // expected-error @+1 {{neither a reduction over the reduced dimension nor a map of the full or kept space}}
  %s = linalg.generic {indexing_maps = [#transposed, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = kiln.combine <sum> (%acc), (%v) : (f32), (f32)
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}
