"""Type indices by name: the ``kTVMFFI...`` values of ``TVMFFITypeIndex`` (``c_api.h``).

The values come from the cffi declarations, which ``_cdef.py`` generates from the header, so
the numbers are written once, in C; Python code compares type indices with these names, never
with bare numbers.  (Which Python conversion each index gets is ``_rules.py``'s table.)
"""

from ._loader import lib

# PODs (the payload is the value) and views
kTVMFFINone = lib.kTVMFFINone
kTVMFFIInt = lib.kTVMFFIInt
kTVMFFIBool = lib.kTVMFFIBool
kTVMFFIFloat = lib.kTVMFFIFloat
kTVMFFIOpaquePtr = lib.kTVMFFIOpaquePtr
kTVMFFIDataType = lib.kTVMFFIDataType
kTVMFFIDevice = lib.kTVMFFIDevice
kTVMFFIDLTensorPtr = lib.kTVMFFIDLTensorPtr
kTVMFFIObjectRValueRef = lib.kTVMFFIObjectRValueRef
kTVMFFISmallStr = lib.kTVMFFISmallStr
kTVMFFISmallBytes = lib.kTVMFFISmallBytes

# objects (the payload is a handle): every index from kTVMFFIStaticObjectBegin on
kTVMFFIStaticObjectBegin = lib.kTVMFFIStaticObjectBegin
kTVMFFIObject = lib.kTVMFFIObject
kTVMFFIStr = lib.kTVMFFIStr
kTVMFFIBytes = lib.kTVMFFIBytes
kTVMFFIError = lib.kTVMFFIError
kTVMFFIFunction = lib.kTVMFFIFunction
kTVMFFIShape = lib.kTVMFFIShape
kTVMFFITensor = lib.kTVMFFITensor
kTVMFFIArray = lib.kTVMFFIArray
kTVMFFIMap = lib.kTVMFFIMap
kTVMFFIModule = lib.kTVMFFIModule
kTVMFFIOpaquePyObject = lib.kTVMFFIOpaquePyObject
kTVMFFIList = lib.kTVMFFIList
kTVMFFIDict = lib.kTVMFFIDict
kTVMFFIBigInt = lib.kTVMFFIBigInt
