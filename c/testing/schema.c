/*
 * schema.c -- the testing.schema_* fixtures of docs/abi.md §15: identity-style
 * functions whose type_schema metadata and argument conversions mirror
 * typed C++ signatures (docs/python.md §20.1): ints accept bools, floats accept
 * ints, Device accepts "cuda:1", DataType accepts "float32", Array<T> and
 * List<T> convert into each other, Map and Dict likewise, elements are
 * checked against T.
 */
#include "testing.h"

/* What a parameter accepts; containers carry element kinds. */
typedef enum {
  K_ANY,
  K_INT,
  K_FLOAT,
  K_BOOL,
  K_STR,
  K_BYTES,
  K_OBJ,
  K_FUNC,
  K_DEVICE,
  K_DTYPE,
  K_TENSOR,
  K_DLTENSOR,
  K_OPT_INT,
  K_OPT_STR,
  K_OPT_OBJ,
  K_VARIANT_INT_STR,
  K_ARRAY,
  K_LIST,
  K_MAP,
  K_DICT
} kind;

typedef struct {
  const char* name;   /* global name */
  kind k;
  kind elem, key;     /* element (value) and key kinds of containers */
  const char* shown;  /* type in messages, e.g. "Array<int>" */
  const char* schema; /* type_schema JSON of the type */
} fixture;

#define J(t) "{\"type\":\"" t "\"}"
#define J1(t, a) "{\"type\":\"" t "\",\"args\":[" a "]}"
#define J2(t, a, b) "{\"type\":\"" t "\",\"args\":[" a "," b "]}"
/* A typed function: FN(return, "param,param,..."). */
#define FN(ret, params) \
  "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[" ret "],\"params\":[" params "]}}"

static const fixture kFixtures[] = {
    {"testing.schema_id_int", K_INT, K_ANY, K_ANY, "int", J("int")},
    {"testing.schema_id_float", K_FLOAT, K_ANY, K_ANY, "float", J("float")},
    {"testing.schema_id_bool", K_BOOL, K_ANY, K_ANY, "bool", J("bool")},
    {"testing.schema_id_device", K_DEVICE, K_ANY, K_ANY, "Device", J("Device")},
    {"testing.schema_id_dtype", K_DTYPE, K_ANY, K_ANY, "DataType", J("DataType")},
    {"testing.schema_id_string", K_STR, K_ANY, K_ANY, "str", J("ffi.String")},
    {"testing.schema_id_bytes", K_BYTES, K_ANY, K_ANY, "bytes", J("ffi.Bytes")},
    {"testing.schema_id_func", K_FUNC, K_ANY, K_ANY, "ffi.Function", J("ffi.Function")},
    {"testing.schema_id_func_typed", K_FUNC, K_ANY, K_ANY, "ffi.Function",
     FN(J("None"), J("int") "," J("float") "," J("ffi.Function"))},
    {"testing.schema_id_any", K_ANY, K_ANY, K_ANY, "Any", J("Any")},
    {"testing.schema_id_object", K_OBJ, K_ANY, K_ANY, "ffi.Object", J("ffi.Object")},
    {"testing.schema_id_dltensor", K_DLTENSOR, K_ANY, K_ANY, "DLTensor*", J("DLTensor*")},
    {"testing.schema_id_tensor", K_TENSOR, K_ANY, K_ANY, "ffi.Tensor", J("ffi.Tensor")},
    {"testing.schema_id_opt_int", K_OPT_INT, K_ANY, K_ANY, "Optional<int>",
     J1("Optional", J("int"))},
    {"testing.schema_id_opt_str", K_OPT_STR, K_ANY, K_ANY, "Optional<str>",
     J1("Optional", J("ffi.String"))},
    {"testing.schema_id_opt_obj", K_OPT_OBJ, K_ANY, K_ANY, "Optional<ffi.Object>",
     J1("Optional", J("ffi.Object"))},
    {"testing.schema_id_arr_int", K_ARRAY, K_INT, K_ANY, "Array<int>", J1("ffi.Array", J("int"))},
    {"testing.schema_id_arr_str", K_ARRAY, K_STR, K_ANY, "Array<str>",
     J1("ffi.Array", J("ffi.String"))},
    {"testing.schema_id_arr_obj", K_ARRAY, K_OBJ, K_ANY, "Array<ffi.Object>",
     J1("ffi.Array", J("ffi.Object"))},
    {"testing.schema_id_arr", K_ARRAY, K_ANY, K_ANY, "Array<Any>", J("ffi.Array")},
    {"testing.schema_id_list_int", K_LIST, K_INT, K_ANY, "List<int>", J1("ffi.List", J("int"))},
    {"testing.schema_id_list_str", K_LIST, K_STR, K_ANY, "List<str>",
     J1("ffi.List", J("ffi.String"))},
    {"testing.schema_id_list_obj", K_LIST, K_OBJ, K_ANY, "List<ffi.Object>",
     J1("ffi.List", J("ffi.Object"))},
    {"testing.schema_id_map_str_int", K_MAP, K_INT, K_STR, "Map<str, int>",
     J2("ffi.Map", J("ffi.String"), J("int"))},
    {"testing.schema_id_map_str_str", K_MAP, K_STR, K_STR, "Map<str, str>",
     J2("ffi.Map", J("ffi.String"), J("ffi.String"))},
    {"testing.schema_id_map_str_obj", K_MAP, K_OBJ, K_STR, "Map<str, ffi.Object>",
     J2("ffi.Map", J("ffi.String"), J("ffi.Object"))},
    {"testing.schema_id_map", K_MAP, K_ANY, K_ANY, "Map<Any, Any>", J("ffi.Map")},
    {"testing.schema_id_dict_str_int", K_DICT, K_INT, K_STR, "Dict<str, int>",
     J2("ffi.Dict", J("ffi.String"), J("int"))},
    {"testing.schema_id_dict_str_str", K_DICT, K_STR, K_STR, "Dict<str, str>",
     J2("ffi.Dict", J("ffi.String"), J("ffi.String"))},
    {"testing.schema_id_variant_int_str", K_VARIANT_INT_STR, K_ANY, K_ANY, "Variant<int, str>",
     J2("Variant", J("int"), J("ffi.String"))},
};

/* ---- scalar conversions ----------------------------------------------------- */

static int is_int(const TVMFFIAny* v) {
  return v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool;
}

/* Does a stored element (owned form) match kind e?  Containers hold owned
 * values, so strings are SmallStr or Str there. */
static int elem_ok(kind e, const TVMFFIAny* v) {
  switch (e) {
    case K_ANY:
      return 1;
    case K_INT:
      return is_int(v);
    case K_STR:
      return is_str(v);
    case K_OBJ:
      return v->type_index >= kTVMFFIStaticObjectBegin;
    default:
      return 0;
  }
}

/* "cpu", "cuda:1", ... -> Device; -1 with ValueError (docs/python.md §10.2). */
static int parse_device(const char* s, DLDevice* out) {
  static const struct {
    const char* name;
    int code;
  } kNames[] = {{"cpu", 1},   {"cuda", 2},    {"opencl", 4}, {"vulkan", 7},   {"metal", 8},
                {"mps", 8},   {"vpi", 9},     {"rocm", 10},  {"ext_dev", 12}, {"hexagon", 16},
                {"wgpu", 15}, {"webgpu", 15}, {"maia", 17},  {"trn", 18}};
  char buf[64], msg[128];
  size_t n = strcspn(s, " ");
  if (n >= sizeof(buf)) n = sizeof(buf) - 1;
  memcpy(buf, s, n);
  buf[n] = '\0';
  char* colon = strchr(buf, ':');
  long index = 0;
  if (colon != NULL) {
    char* end = NULL;
    *colon = '\0';
    if (strchr(colon + 1, ':') != NULL) {
      snprintf(msg, sizeof(msg), "Invalid device: %s", s);
      TVMFFIErrorSetRaisedFromCStr("ValueError", msg);
      return -1;
    }
    index = strtol(colon + 1, &end, 10);
    if (colon[1] == '\0' || *end != '\0' || index < 0) {
      snprintf(msg, sizeof(msg), "Invalid device index: %s", s);
      TVMFFIErrorSetRaisedFromCStr("ValueError", msg);
      return -1;
    }
  }
  for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); ++i) {
    if (strcmp(buf, kNames[i].name) == 0) {
      *out = TVMFFIDLDeviceFromIntPair(kNames[i].code, (int32_t)index);
      return 0;
    }
  }
  snprintf(msg, sizeof(msg), "Unknown device: %s", buf);
  TVMFFIErrorSetRaisedFromCStr("ValueError", msg);
  return -1;
}

/* ---- containers ----------------------------------------------------------- */

/* Converts a sequence (Array or List) into `want` (kTVMFFIArray or
 * kTVMFFIList), checking every element against e. */
static int convert_seq(const char* sig, const fixture* f, const TVMFFIAny* a, int32_t want,
                       TVMFFIAny* r) {
  if (a->type_index != kTVMFFIArray && a->type_index != kTVMFFIList)
    return arg_mismatch(sig, 0, f->shown, a);
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(a->v_obj);
  const TVMFFIAny* items = (const TVMFFIAny*)cell->data;
  for (int64_t i = 0; i < cell->size; ++i)
    if (!elem_ok(f->elem, &items[i])) return arg_mismatch(sig, 0, f->shown, a);
  if (a->type_index == want) return TVMFFIAnyViewToOwnedAny(a, r);
  return call_global(want == kTVMFFIArray ? "ffi.Array" : "ffi.List", (TVMFFIAny*)items,
                     (int32_t)cell->size, r);
}

/* Converts a mapping (Map or Dict) into `want`, checking keys and values. */
static int convert_map(const char* sig, const fixture* f, const TVMFFIAny* a, int32_t want,
                       TVMFFIAny* r) {
  if (a->type_index != kTVMFFIMap && a->type_index != kTVMFFIDict)
    return arg_mismatch(sig, 0, f->shown, a);
  int is_map = a->type_index == kTVMFFIMap;
  TVMFFIAny sz, it;
  if (call_global(is_map ? "ffi.MapSize" : "ffi.DictSize", (TVMFFIAny*)a, 1, &sz) != 0) return -1;
  int64_t n = sz.v_int64;
  TVMFFIAny* kv = (TVMFFIAny*)calloc((size_t)(2 * n + 1), sizeof(TVMFFIAny));
  if (kv == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "schema fixture: out of memory");
    return -1;
  }
  int rc = 0;
  int64_t got = 0;
  set_none(&it);
  if (n > 0)
    rc = call_global(is_map ? "ffi.MapForwardIterFunctor" : "ffi.DictForwardIterFunctor",
                     (TVMFFIAny*)a, 1, &it);
  for (; rc == 0 && got < n; ++got) {
    TVMFFIAny cmd = {0};
    cmd.type_index = kTVMFFIInt;
    TVMFFIAny adv;
    set_none(&kv[2 * got]);
    set_none(&kv[2 * got + 1]);
    cmd.v_int64 = 0;
    if ((rc = TVMFFIFunctionCall(it.v_obj, &cmd, 1, &kv[2 * got])) != 0) break;
    cmd.v_int64 = 1;
    if ((rc = TVMFFIFunctionCall(it.v_obj, &cmd, 1, &kv[2 * got + 1])) != 0) {
      release(&kv[2 * got]);
      break;
    }
    if (!elem_ok(f->key, &kv[2 * got]) || !elem_ok(f->elem, &kv[2 * got + 1])) {
      ++got;
      rc = arg_mismatch(sig, 0, f->shown, a);
      break;
    }
    cmd.v_int64 = 2;
    set_none(&adv);
    if ((rc = TVMFFIFunctionCall(it.v_obj, &cmd, 1, &adv)) != 0) {
      ++got;
      break;
    }
  }
  if (rc == 0) {
    if (a->type_index == want)
      rc = TVMFFIAnyViewToOwnedAny(a, r);
    else
      rc = call_global(want == kTVMFFIMap ? "ffi.Map" : "ffi.Dict", kv, (int32_t)(2 * n), r);
  }
  for (int64_t i = 0; i < 2 * got; ++i) release(&kv[i]);
  release(&it);
  free(kv);
  return rc;
}

/* ---- the identity ----------------------------------------------------------- */

static int schema_id(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  const fixture* f = (const fixture*)self;
  char sig[200];
  snprintf(sig, sizeof(sig), "%s(0: %s) -> %s", f->name, f->shown, f->shown);
  if (arg_count(sig, n, 1) != 0) return -1;
  const TVMFFIAny* a = &args[0];
  int t = a->type_index;
  char buf[64];
  switch (f->k) {
    case K_ANY:
      return TVMFFIAnyViewToOwnedAny(a, r);
    case K_OPT_INT:
      if (t == kTVMFFINone) return 0;
      /* fall through */
    case K_INT:
      if (!is_int(a)) return arg_mismatch(sig, 0, f->shown, a);
      set_int(r, a->v_int64);
      return 0;
    case K_FLOAT:
      if (t != kTVMFFIFloat && !is_int(a)) return arg_mismatch(sig, 0, f->shown, a);
      r->type_index = kTVMFFIFloat;
      r->zero_padding = 0;
      r->v_float64 = t == kTVMFFIFloat ? a->v_float64 : (double)a->v_int64;
      return 0;
    case K_BOOL:
      if (!is_int(a)) return arg_mismatch(sig, 0, f->shown, a);
      set_bool(r, a->v_int64 != 0);
      return 0;
    case K_OPT_STR:
      if (t == kTVMFFINone) return 0;
      /* fall through */
    case K_STR:
      if (!is_str(a)) return arg_mismatch(sig, 0, f->shown, a);
      if (t == kTVMFFIRawStr) {
        TVMFFIByteArray b = ba(a->v_c_str);
        return TVMFFIStringFromByteArray(&b, r);
      }
      return TVMFFIAnyViewToOwnedAny(a, r);
    case K_BYTES:
      if (t != kTVMFFIByteArrayPtr && t != kTVMFFISmallBytes && t != kTVMFFIBytes)
        return arg_mismatch(sig, 0, f->shown, a);
      return TVMFFIAnyViewToOwnedAny(a, r);
    case K_VARIANT_INT_STR:
      if (is_int(a)) {
        set_int(r, a->v_int64);
        return 0;
      }
      if (!is_str(a)) return arg_mismatch(sig, 0, f->shown, a);
      if (t == kTVMFFIRawStr) {
        TVMFFIByteArray b = ba(a->v_c_str);
        return TVMFFIStringFromByteArray(&b, r);
      }
      return TVMFFIAnyViewToOwnedAny(a, r);
    case K_OPT_OBJ:
      if (t == kTVMFFINone) return 0;
      /* fall through */
    case K_OBJ:
      if (t < kTVMFFIStaticObjectBegin) return arg_mismatch(sig, 0, f->shown, a);
      return TVMFFIAnyViewToOwnedAny(a, r);
    case K_FUNC:
      if (t != kTVMFFIFunction) return arg_mismatch(sig, 0, f->shown, a);
      return TVMFFIAnyViewToOwnedAny(a, r);
    case K_TENSOR:
      if (t != kTVMFFITensor) return arg_mismatch(sig, 0, f->shown, a);
      return TVMFFIAnyViewToOwnedAny(a, r);
    case K_DLTENSOR:
      /* Like upstream, hands back a DLTensor* view valid while the argument
       * lives (docs/python.md §25.3 #59). */
      if (t != kTVMFFIDLTensorPtr && t != kTVMFFITensor) return arg_mismatch(sig, 0, f->shown, a);
      r->type_index = kTVMFFIDLTensorPtr;
      r->zero_padding = 0;
      r->v_ptr = t == kTVMFFITensor ? (void*)TVMFFITensorGetDLTensorPtr(a->v_obj) : a->v_ptr;
      return 0;
    case K_DEVICE: {
      DLDevice d;
      if (t == kTVMFFIDevice) {
        d = a->v_device;
      } else if (is_str(a)) {
        if (parse_device(str_of(a, buf, sizeof(buf)), &d) != 0) return -1;
      } else {
        return arg_mismatch(sig, 0, f->shown, a);
      }
      r->type_index = kTVMFFIDevice;
      r->zero_padding = 0;
      r->v_int64 = 0;
      r->v_device = d;
      return 0;
    }
    case K_DTYPE: {
      DLDataType dt;
      if (t == kTVMFFIDataType) {
        dt = a->v_dtype;
      } else if (is_str(a)) {
        const char* s = str_of(a, buf, sizeof(buf));
        TVMFFIByteArray b = ba(s);
        if (TVMFFIDataTypeFromString(&b, &dt) != 0) return -1;
      } else {
        return arg_mismatch(sig, 0, f->shown, a);
      }
      r->type_index = kTVMFFIDataType;
      r->zero_padding = 0;
      r->v_int64 = 0;
      r->v_dtype = dt;
      return 0;
    }
    case K_ARRAY:
      return convert_seq(sig, f, a, kTVMFFIArray, r);
    case K_LIST:
      return convert_seq(sig, f, a, kTVMFFIList, r);
    case K_MAP:
      return convert_map(sig, f, a, kTVMFFIMap, r);
    case K_DICT:
      return convert_map(sig, f, a, kTVMFFIDict, r);
  }
  return arg_mismatch(sig, 0, f->shown, a);
}

int tvmffi_testing__schema_id_int(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const fixture kDll = {"testing_dll_schema_id_int", K_INT, K_ANY, K_ANY, "int", J("int")};
  (void)self;
  return schema_id((void*)&kDll, args, n, result);
}

/* ---- signature fixtures ------------------------------------------------------ */

static int schema_packed(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  (void)args;
  set_int(r, n); /* packed: any arguments; returns how many */
  return 0;
}

static int schema_no_args(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  (void)args;
  if (arg_count("testing.schema_no_args() -> int", n, 0) != 0) return -1;
  set_int(r, 1);
  return 0;
}

static int schema_no_return(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  static const char* sig = "testing.schema_no_return(0: int) -> None";
  (void)h;
  (void)r;
  if (arg_count(sig, n, 1) != 0) return -1;
  return is_int(&args[0]) ? 0 : arg_mismatch(sig, 0, "int", &args[0]);
}

static int schema_no_args_no_return(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  (void)args;
  (void)r;
  return arg_count("testing.schema_no_args_no_return() -> None", n, 0);
}

static int schema_tensor_view_input(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  static const char* sig = "testing.schema_tensor_view_input(0: ffi.Tensor) -> None";
  (void)h;
  (void)r;
  if (arg_count(sig, n, 1) != 0) return -1;
  int t = args[0].type_index;
  return t == kTVMFFITensor || t == kTVMFFIDLTensorPtr
             ? 0
             : arg_mismatch(sig, 0, "ffi.Tensor", &args[0]);
}

/* (arr: Array<Optional<int>>, mp: Map<str, Array<int>>, os: Optional<str>) ->
 * Map<str, Array<int>>: mp, plus os -> the ints of arr when os is given. */
static int schema_arr_map_opt(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  static const char* sig =
      "testing.schema_arr_map_opt(0: Array<Optional<int>>, 1: Map<str, Array<int>>, 2: "
      "Optional<str>) -> Map<str, Array<int>>";
  static const fixture kMap = {"testing.schema_arr_map_opt", K_MAP, K_ANY, K_STR,
                               "Map<str, Array<int>>",       ""};
  (void)h;
  if (arg_count(sig, n, 3) != 0) return -1;
  if (args[0].type_index != kTVMFFIArray && args[0].type_index != kTVMFFIList)
    return arg_mismatch(sig, 0, "Array<Optional<int>>", &args[0]);
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(args[0].v_obj);
  const TVMFFIAny* items = (const TVMFFIAny*)cell->data;
  for (int64_t i = 0; i < cell->size; ++i)
    if (items[i].type_index != kTVMFFINone && !is_int(&items[i]))
      return arg_mismatch(sig, 0, "Array<Optional<int>>", &args[0]);
  if (args[2].type_index != kTVMFFINone && !is_str(&args[2]))
    return arg_mismatch(sig, 2, "Optional<str>", &args[2]);
  if (args[2].type_index == kTVMFFINone) return convert_map(sig, &kMap, &args[1], kTVMFFIMap, r);
  /* A Dict copy takes the new entry; the result is a Map again. */
  TVMFFIAny dict, extra, set[3], ignored;
  if (convert_map(sig, &kMap, &args[1], kTVMFFIDict, &dict) != 0) return -1;
  TVMFFIAny* ints = (TVMFFIAny*)calloc((size_t)cell->size + 1, sizeof(TVMFFIAny));
  int64_t k = 0;
  if (ints == NULL) {
    release(&dict);
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "schema fixture: out of memory");
    return -1;
  }
  for (int64_t i = 0; i < cell->size; ++i)
    if (items[i].type_index != kTVMFFINone) set_int(&ints[k++], items[i].v_int64);
  int rc = call_global("ffi.Array", ints, (int32_t)k, &extra);
  free(ints);
  if (rc == 0) {
    set[0] = dict;
    set[1] = args[2];
    set[2] = extra;
    set_none(&ignored);
    rc = call_global("ffi.DictSetItem", set, 3, &ignored);
    release(&extra);
  }
  if (rc == 0) rc = convert_map(sig, &kMap, &dict, kTVMFFIMap, r);
  release(&dict);
  return rc;
}

/* Variant<int, str, Array<int>> -> same. */
static int schema_variant_mix(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  static const char* sig =
      "testing.schema_variant_mix(0: Variant<int, str, Array<int>>) -> Variant<int, str, "
      "Array<int>>";
  (void)h;
  if (arg_count(sig, n, 1) != 0) return -1;
  const TVMFFIAny* a = &args[0];
  if (!is_int(a) && !is_str(a) && a->type_index != kTVMFFIArray)
    return arg_mismatch(sig, 0, "Variant<int, str, Array<int>>", a);
  if (a->type_index == kTVMFFIRawStr) {
    TVMFFIByteArray b = ba(a->v_c_str);
    return TVMFFIStringFromByteArray(&b, r);
  }
  return TVMFFIAnyViewToOwnedAny(a, r);
}

#define J3V \
  "{\"type\":\"Variant\",\"args\":[" J("int") "," J("ffi.String") "," J1("ffi.Array", J("int")) "]}"

void tvmffi_testing__schema_init(void) {
  for (size_t i = 0; i < sizeof(kFixtures) / sizeof(kFixtures[0]); ++i) {
    char schema[1024];
    snprintf(schema, sizeof(schema), FN("%s", "%s"), kFixtures[i].schema, kFixtures[i].schema);
    tt_reg_meta(kFixtures[i].name, schema_id, (void*)&kFixtures[i],
                "Returns its argument after the typed conversion.", schema,
                i == 0 ? "\"bool_attr\":true,\"int_attr\":1,\"str_attr\":\"hello\"" : NULL);
  }
  tt_reg_meta("testing.schema_packed", schema_packed, NULL,
              "Packed arguments; returns their count.", "{\"type\":\"ffi.Function\"}", NULL);
  tt_reg_meta("testing.schema_no_args", schema_no_args, NULL, "No arguments.", FN(J("int"), ""),
              NULL);
  tt_reg_meta("testing.schema_no_return", schema_no_return, NULL, "No result.",
              FN(J("None"), J("int")), NULL);
  tt_reg_meta("testing.schema_no_args_no_return", schema_no_args_no_return, NULL, "Nothing at all.",
              FN(J("None"), ""), NULL);
  tt_reg_meta("testing.schema_tensor_view_input", schema_tensor_view_input, NULL,
              "Takes a tensor view.", FN(J("None"), J("DLTensor*")), NULL);
#define MAP_STR_ARR_INT J2("ffi.Map", J("ffi.String"), J1("ffi.Array", J("int")))
  tt_reg_meta(
      "testing.schema_arr_map_opt", schema_arr_map_opt, NULL, "Array, Map and Optional parameters.",
      FN(MAP_STR_ARR_INT, J1("ffi.Array", J1("Optional", J("int"))) "," MAP_STR_ARR_INT "," J1(
                              "Optional", J("ffi.String"))),
      NULL);
#undef MAP_STR_ARR_INT
  tt_reg_meta("testing.schema_variant_mix", schema_variant_mix, NULL, "Variant parameter.",
              FN(J3V, J3V), NULL);
}
