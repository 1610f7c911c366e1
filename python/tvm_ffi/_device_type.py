"""DLDeviceType: DLPack's device type codes as an IntEnum.

A module of its own, loaded on first use (``tvm_ffi.DLDeviceType``): building the enum costs
~0.25 ms, which ``import tvm_ffi`` does not pay."""

import enum


class DLDeviceType(enum.IntEnum):
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
    kDLTrn = 18
