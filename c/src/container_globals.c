/*
 * container_globals.c -- registers the container globals (docs/abi.md §14.2) and
 * implements ffi.ContainerFindFirstNonCPUDevice, which walks all of them.
 */
#include "container.h"

/* The chain of containers being visited, to stop on cycles (a List or Dict
 * may contain itself). */
typedef struct visit_frame {
  const TVMFFIObject* obj;
  const struct visit_frame* up;
} visit_frame;

/* Depth-first; returns 1 and sets *out at the first non-CPU tensor. */
static int find_device(const TVMFFIAny* v, const visit_frame* up, DLDevice* out) {
  if (v->type_index < kTVMFFIStaticObjectBegin) return 0;
  TVMFFIObject* obj = v->v_obj;
  int32_t t = obj->type_index;
  if (t == kTVMFFITensor) {
    DLDevice d = TVMFFITensorGetDLTensorPtr(obj)->device;
    if (d.device_type != kDLCPU) {
      *out = d;
      return 1;
    }
    return 0;
  }
  if (t != kTVMFFIArray && t != kTVMFFIList && t != kTVMFFIMap && t != kTVMFFIDict) return 0;
  for (const visit_frame* f = up; f != NULL; f = f->up)
    if (f->obj == obj) return 0;
  visit_frame frame = {obj, up};
  if (t == kTVMFFIArray || t == kTVMFFIList) {
    TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(obj);
    for (int64_t i = 0; i < cell->size; ++i)
      if (find_device(&TVMFFISeqCellItems(cell)[i], &frame, out)) return 1;
    return 0;
  }
  TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(obj);
  for (uint64_t p = TVMFFIMapCellIterBegin(cell); p != TVMFFI_MAP_ITER_END;
       p = TVMFFIMapCellIterNext(cell, p))
    if (find_device(TVMFFIMapCellValue(cell, p), &frame, out)) return 1;
  return 0;
}

static int find_first_non_cpu_device(void* self, const TVMFFIAny* args, int32_t num_args,
                                     TVMFFIAny* result) {
  (void)self;
  static const char fname[] = "ffi.ContainerFindFirstNonCPUDevice(0: Any) -> Device";
  if (tvmffi__args_count(fname, num_args, 1) != 0) return -1;
  TVMFFIAny tmp;
  const TVMFFIAny* v = &args[0];
  if (v->type_index == kTVMFFIObjectRValueRef) {
    TVMFFIObject* obj = *(TVMFFIObject**)v->v_ptr;
    tvmffi__any_set_none(&tmp);
    if (obj != NULL) {
      tmp.type_index = obj->type_index;
      tmp.v_obj = obj;
    }
    v = &tmp;
  }
  DLDevice dev = TVMFFIDLDeviceFromIntPair(kDLCPU, 0);
  find_device(v, NULL, &dev);
  result->type_index = kTVMFFIDevice;
  result->zero_padding = 0;
  result->v_int64 = 0;
  result->v_device = dev;
  return 0;
}

void tvmffi__container_globals_init(void) {
  tvmffi__array_globals_init();
  tvmffi__list_globals_init();
  tvmffi__map_globals_init();
  tvmffi__register_global("ffi.ContainerFindFirstNonCPUDevice", find_first_non_cpu_device,
                          "Device of the first non-CPU tensor inside a container, else cpu:0.",
                          SCHEMA_FN("Device", ARG("Any")));
}
