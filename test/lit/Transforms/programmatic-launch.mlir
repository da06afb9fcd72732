// kiln-programmatic-launch: a gpu.func marked kiln.programmatic_launch starts
// with launch_dependents then wait; unmarked kernels are left alone.
// RUN: %kiln-opt --pass-pipeline='builtin.module(gpu.module(kiln-programmatic-launch))' %s | %FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @kiln_kernels {
    // CHECK-LABEL: gpu.func @marked
    // CHECK-NEXT: nvvm.griddepcontrol launch_dependents
    // CHECK-NEXT: nvvm.griddepcontrol wait
    // CHECK: memref.load
    gpu.func @marked(%x: memref<4xf32>) kernel attributes {kiln.programmatic_launch} {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<4xf32>
      memref.store %v, %x[%c0] : memref<4xf32>
      gpu.return
    }
    // CHECK-LABEL: gpu.func @unmarked
    // CHECK-NOT: griddepcontrol
    // CHECK: gpu.return
    gpu.func @unmarked(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
