// kiln.combine: assembly round trip, and its sequential update expanded by
// kiln-expand-combine into arith/complex ops with NumPy's NaN rules.
// RUN: %kiln-opt %s | %kiln-opt | %FileCheck %s --check-prefix=ROUND
// RUN: %kiln-opt %s --kiln-expand-combine | %FileCheck %s --check-prefix=EXPAND

// ROUND-LABEL: func.func @kinds
// ROUND: kiln.combine <sum>(%{{.*}}), (%{{.*}}) : (f32), (f32)
// ROUND: kiln.combine <argmax>(%{{.*}}, %{{.*}}), (%{{.*}}, %{{.*}}) : (f64, i64), (f64, i64)
// ROUND: kiln.combine <welford>(%{{.*}}, %{{.*}}, %{{.*}}), (%{{.*}}) : (f32, f32, i64), (f32)
// ROUND: kiln.combine <max>(%{{.*}}), (%{{.*}}) : (complex<f32>), (complex<f32>)
// ROUND: kiln.combine <all>(%{{.*}}), (%{{.*}}) : (i1), (i1)
func.func @kinds(%a: f32, %x: f32, %va: f64, %ia: i64, %v: f64, %i: i64, %m: f32, %m2: f32, %n: i64,
                 %ca: complex<f32>, %c: complex<f32>, %ba: i1, %b: i1)
    -> (f32, f64, i64, f32, f32, i64, complex<f32>, i1) {
  %s = kiln.combine <sum> (%a), (%x) : (f32), (f32)
  %bv, %bi = kiln.combine <argmax> (%va, %ia), (%v, %i) : (f64, i64), (f64, i64)
  %wm, %wm2, %wn = kiln.combine <welford> (%m, %m2, %n), (%x) : (f32, f32, i64), (f32)
  %cm = kiln.combine <max> (%ca), (%c) : (complex<f32>), (complex<f32>)
  %ba2 = kiln.combine <all> (%ba), (%b) : (i1), (i1)
  return %s, %bv, %bi, %wm, %wm2, %wn, %cm, %ba2 : f32, f64, i64, f32, f32, i64, complex<f32>, i1
}

// EXPAND-LABEL: func.func @kinds
// EXPAND-NOT: kiln.combine
// sum: one add.
// EXPAND: arith.addf %arg0, %arg1 : f32
// argmax: NaN first, then the larger value, ties to the smaller index.
// EXPAND-DAG: arith.cmpi slt, %arg5, %arg3 : i64
// EXPAND-DAG: arith.cmpf ogt, %arg4, %arg2 : f64
// EXPAND: arith.cmpf uno
// EXPAND: arith.select {{.*}} : f64
// EXPAND: arith.select {{.*}} : i64
// welford: count + 1, delta, mean += delta * 1/n, m2 += delta^2 * n_a / n.
// EXPAND: arith.addi %arg8, %{{.*}} : i64
// EXPAND: arith.subf %arg1, %arg6 : f32
// EXPAND: arith.divf
// complex max: lexicographic, NaN first.
// EXPAND: complex.re
// EXPAND: arith.select {{.*}} : complex<f32>
// all: and.
// EXPAND: arith.andi %arg11, %arg12 : i1

// logsumexp: the running max and the sum rescaled by one exp, exp(-|x - m|):
// the old sum's scale when x is above m, else x's own term; an infinite x
// adds NaN (exp(inf - inf)), a -inf x adds 0 below a larger m.
// ROUND-LABEL: func.func @online
// ROUND: kiln.combine <logsumexp>(%{{.*}}, %{{.*}}), (%{{.*}}) : (f64, f64), (f64)
// EXPAND-LABEL: func.func @online
// EXPAND-NOT: kiln.combine
// EXPAND-DAG: %[[TOP:.*]] = arith.maximumf %arg0, %arg2 : f64
// EXPAND-DAG: %[[ABOVE:.*]] = arith.cmpf ogt, %arg2, %arg0 : f64
// EXPAND-DAG: %[[D:.*]] = arith.subf %arg2, %arg0 : f64
// EXPAND: math.absf %[[D]]
// EXPAND: math.exp
// EXPAND-NOT: math.exp
// EXPAND: arith.select %[[ABOVE]]
// EXPAND: return %[[TOP]]
func.func @online(%m: f64, %s: f64, %x: f64) -> (f64, f64) {
  %m2, %s2 = kiln.combine <logsumexp> (%m, %s), (%x) : (f64, f64), (f64)
  return %m2, %s2 : f64, f64
}
