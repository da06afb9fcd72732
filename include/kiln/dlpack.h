/*===- kiln/dlpack.h - DLPack 0.8 tensor structs ---------------------------===
 *
 * The standard DLPack (v0.8) definitions for exchanging tensors with other
 * libraries without copying: kiln::from_dlpack / x.to_dlpack().
 *
 * Derived from include/dlpack/dlpack.h of the DLPack project
 * (https://github.com/dmlc/dlpack), Copyright (c) 2017 by Contributors,
 * licensed under the Apache License, Version 2.0
 * (http://www.apache.org/licenses/LICENSE-2.0). Only the declarations are
 * kept; names, values and layout are unchanged.
 *
 *===----------------------------------------------------------------------===*/
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif

/*! \brief The current version of dlpack */
#define DLPACK_VERSION 80

/*! \brief The current ABI version of dlpack */
#define DLPACK_ABI_VERSION 1

#ifndef DLPACK_DLL
#define DLPACK_DLL
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief The device type in DLDevice. */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
} DLDeviceType;

/*! \brief A Device for Tensor and operator. */
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

/*! \brief The type code options DLDataType. */
typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
} DLDataTypeCode;

/*! \brief The data type the tensor can hold: code, bits per lane, lanes. */
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

/*! \brief Plain C Tensor object, does not manage memory. Strides count
 *  elements (not bytes); NULL strides mean compact row-major. */
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;

/*! \brief C Tensor object that manages the memory of a DLTensor: the
 *  consumer calls deleter(self) when it no longer needs the tensor. */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

#ifdef __cplusplus
} // DLPACK_EXTERN_C
#endif
#endif // DLPACK_DLPACK_H_
