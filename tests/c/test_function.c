/*
 * test_function.c -- ffi.Function creation and calls, the global registry
 * (get/set/override/remove, method-info entries and their metadata) and the
 * registry/basic-value globals of docs/abi.md §14.1.
 */
#include "check.h"

static TVMFFIAny none_any(void) {
  TVMFFIAny v;
  memset(&v, 0, sizeof(v));
  return v;
}
static TVMFFIAny int_any(int64_t x) {
  TVMFFIAny v = none_any();
  v.type_index = kTVMFFIInt;
  v.v_int64 = x;
  return v;
}
static TVMFFIAny str_any(const char* s) {
  TVMFFIAny v = none_any();
  v.type_index = kTVMFFIRawStr;
  v.v_c_str = s;
  return v;
}
static TVMFFIAny obj_any(TVMFFIObjectHandle h) {
  TVMFFIAny v = none_any();
  v.type_index = TVMFFIObjectGetTypeIndex(h);
  v.v_obj = (TVMFFIObject*)h;
  return v;
}

/* ---- callees ---------------------------------------------------------- */

static int deleter_calls;
static void* deleter_arg;
static void counting_deleter(void* self) {
  deleter_calls++;
  deleter_arg = self;
}

/* Adds *(int64_t*)self to the first argument. */
static int add_self(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  if (n != 1 || args[0].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "add_self wants one int");
    return -1;
  }
  result->type_index = kTVMFFIInt;
  result->v_int64 = args[0].v_int64 + *(int64_t*)self;
  return 0;
}

/* Returns its own handle as an opaque pointer. */
static int return_handle(void* handle, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)args;
  (void)n;
  result->type_index = kTVMFFIOpaquePtr;
  result->v_ptr = handle;
  return 0;
}

static int return_code;
static int fail_with_code(void* handle, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)handle;
  (void)args;
  (void)n;
  (void)result;
  TVMFFIErrorSetRaisedFromCStr("ValueError", "callee failed on purpose");
  return return_code;
}

static int64_t k_one = 1, k_ten = 10;

static TVMFFIObjectHandle make_adder(int64_t* k, void (*deleter)(void*)) {
  TVMFFIObjectHandle f = NULL;
  CHECK_OK(TVMFFIFunctionCreate(k, add_self, deleter, &f));
  CHECK(f != NULL);
  return f;
}

static int64_t call_int(TVMFFIObjectHandle f, int64_t x) {
  TVMFFIAny arg = int_any(x), r = none_any();
  CHECK_OK(TVMFFIFunctionCall(f, &arg, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  return r.v_int64;
}

static void test_create_and_call(void) {
  /* self + deleter: trampoline passes self; deleter runs once at the end. */
  deleter_calls = 0;
  TVMFFIObjectHandle f = make_adder(&k_ten, counting_deleter);
  CHECK_EQ_INT(TVMFFIObjectGetTypeIndex(f), kTVMFFIFunction);
  CHECK(TVMFFIFunctionGetCellPtr(f)->cpp_call == NULL);
  CHECK(TVMFFIFunctionGetCellPtr(f)->safe_call != add_self);
  CHECK_EQ_INT(check_use_count(f), 1);
  CHECK_EQ_INT(call_int(f, 5), 15);
  TVMFFIObjectIncRef(f);
  TVMFFIObjectDecRef(f);
  CHECK_EQ_INT(deleter_calls, 0);
  TVMFFIObjectDecRef(f);
  CHECK_EQ_INT(deleter_calls, 1);
  CHECK(deleter_arg == &k_ten);

  /* self without deleter still goes through the trampoline. */
  f = make_adder(&k_one, NULL);
  CHECK_EQ_INT(call_int(f, 41), 42);
  TVMFFIObjectDecRef(f);

  /* Neither: safe_call is installed as is and receives the handle. */
  CHECK_OK(TVMFFIFunctionCreate(NULL, return_handle, NULL, &f));
  CHECK(TVMFFIFunctionGetCellPtr(f)->safe_call == return_handle);
  TVMFFIAny r = none_any();
  CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIOpaquePtr);
  CHECK(r.v_ptr == f);
  TVMFFIObjectDecRef(f);

  /* A deleter alone also means self (NULL) is passed, not the handle. */
  deleter_calls = 0;
  CHECK_OK(TVMFFIFunctionCreate(NULL, return_handle, counting_deleter, &f));
  r = none_any();
  CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &r));
  CHECK(r.v_ptr == NULL);
  TVMFFIObjectDecRef(f);
  CHECK_EQ_INT(deleter_calls, 1);
  CHECK(deleter_arg == NULL);

  /* Errors of the callee come back unchanged, with its error in the slot. */
  CHECK_OK(TVMFFIFunctionCreate(NULL, fail_with_code, NULL, &f));
  return_code = -1;
  r = none_any();
  CHECK_RAISED(TVMFFIFunctionCall(f, NULL, 0, &r), "ValueError", "on purpose");
  return_code = -2;
  int rc = TVMFFIFunctionCall(f, NULL, 0, &r);
  CHECK_EQ_INT(rc, -2);
  TVMFFIErrorSetRaised(NULL);
  TVMFFIObjectDecRef(f);

  /* Argument errors of the typed callee. */
  f = make_adder(&k_one, NULL);
  r = none_any();
  TVMFFIAny s = str_any("x");
  CHECK_RAISED(TVMFFIFunctionCall(f, &s, 1, &r), "TypeError", "add_self wants one int");
  TVMFFIObjectDecRef(f);

  /* Bad input to the entry points. */
  TVMFFIObjectHandle out = (TVMFFIObjectHandle)0x1;
  CHECK_RAISED(TVMFFIFunctionCreate(NULL, NULL, NULL, &out), "ValueError", "safe_call");
  CHECK(out == (TVMFFIObjectHandle)0x1);
  /* TVMFFIFunctionCall itself trusts its handle (as upstream: one jump); the
   * checks live with the callers, see tvm_ffi_function(3). */
}

static TVMFFIObjectHandle get_global(const char* name) {
  TVMFFIByteArray n = check_ba(name);
  TVMFFIObjectHandle f = (TVMFFIObjectHandle)0x1;
  CHECK_OK(TVMFFIFunctionGetGlobal(&n, &f));
  return f;
}

static void test_registry(void) {
  TVMFFIByteArray name = check_ba("test.registry.add");
  CHECK(get_global("test.registry.add") == NULL); /* absent is not an error */

  deleter_calls = 0;
  TVMFFIObjectHandle f1 = make_adder(&k_one, counting_deleter);
  CHECK_OK(TVMFFIFunctionSetGlobal(&name, f1, 0));
  CHECK_EQ_INT(check_use_count(f1), 2); /* the registry holds its own */
  TVMFFIObjectHandle g = get_global("test.registry.add");
  CHECK(g == f1);
  CHECK_EQ_INT(check_use_count(f1), 3);
  TVMFFIObjectDecRef(g);
  CHECK_EQ_INT(call_int(f1, 1), 2);

  /* Duplicate without override. */
  TVMFFIObjectHandle f2 = make_adder(&k_ten, counting_deleter);
  CHECK_RAISED(TVMFFIFunctionSetGlobal(&name, f2, 0), "RuntimeError",
               "Global Function `test.registry.add` is already registered");
  CHECK_EQ_INT(check_use_count(f2), 1);
  g = get_global("test.registry.add");
  CHECK(g == f1);
  TVMFFIObjectDecRef(g);

  /* Override replaces and releases the old function. */
  TVMFFIObjectDecRef(f1);
  CHECK_EQ_INT(deleter_calls, 0);
  CHECK_OK(TVMFFIFunctionSetGlobal(&name, f2, 1));
  CHECK_EQ_INT(deleter_calls, 1);
  CHECK(deleter_arg == &k_one);
  TVMFFIAny r, arg = int_any(5);
  CHECK_OK(check_call_global("test.registry.add", &arg, 1, &r));
  CHECK_EQ_INT(r.v_int64, 15);

  /* Plain SetGlobal entries carry no metadata. */
  TVMFFIAny nm = str_any("test.registry.add");
  CHECK_OK(check_call_global("ffi.GetGlobalFuncMetadata", &nm, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFISmallStr);
  CHECK_EQ_INT(r.small_str_len, 0);

  /* Removal through the global; the registry's reference goes. */
  CHECK_OK(check_call_global("ffi.FunctionRemoveGlobal", &nm, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIBool);
  CHECK_EQ_INT(r.v_int64, 1);
  CHECK_EQ_INT(check_use_count(f2), 1);
  CHECK(get_global("test.registry.add") == NULL);
  CHECK_OK(check_call_global("ffi.FunctionRemoveGlobal", &nm, 1, &r));
  CHECK_EQ_INT(r.v_int64, 0);
  CHECK_RAISED(check_call_global("ffi.GetGlobalFuncMetadata", &nm, 1, &r), "RuntimeError",
               "Global Function is not found: test.registry.add");
  /* The name is free again. */
  CHECK_OK(TVMFFIFunctionSetGlobal(&name, f2, 0));
  CHECK_OK(check_call_global("ffi.FunctionRemoveGlobal", &nm, 1, &r));
  TVMFFIObjectDecRef(f2);
  CHECK_EQ_INT(deleter_calls, 2);

  /* Bad input. */
  TVMFFIObjectHandle out = NULL;
  CHECK_RAISED(TVMFFIFunctionGetGlobal(NULL, &out), "ValueError", "");
  f1 = make_adder(&k_one, NULL);
  TVMFFIByteArray empty = {"", 0};
  CHECK_RAISED(TVMFFIFunctionSetGlobal(&empty, f1, 0), "ValueError", "name");
  CHECK_RAISED(TVMFFIFunctionSetGlobal(&name, NULL, 0), "ValueError", "");
  TVMFFIAny s;
  TVMFFIByteArray text = check_ba("not a function at all");
  CHECK_OK(TVMFFIStringFromByteArray(&text, &s));
  CHECK_RAISED(TVMFFIFunctionSetGlobal(&name, s.v_obj, 0), "TypeError", "ffi.Function");
  check_any_release(&s);
  CHECK(get_global("test.registry.add") == NULL);
  TVMFFIObjectDecRef(f1);
}

static void test_method_info(void) {
  TVMFFIObjectHandle f = make_adder(&k_ten, NULL);
  char name[] = "test.registry.documented";
  char doc[] = "adds ten";
  char meta[] = "{\"type_schema\": \"{\\\"type\\\":\\\"ffi.Function\\\"}\", \"bound\": 1}";
  TVMFFIMethodInfo mi;
  memset(&mi, 0, sizeof(mi));
  mi.name = check_ba(name);
  mi.doc = check_ba(doc);
  mi.metadata = check_ba(meta);
  mi.flags = kTVMFFIFieldFlagBitMaskIsStaticMethod;
  mi.method = obj_any(f);
  CHECK_OK(TVMFFIFunctionSetGlobalFromMethodInfo(&mi, 0));
  /* Strings were copied. */
  name[0] = doc[0] = meta[1] = 'X';
  TVMFFIAny r, nm = str_any("test.registry.documented");
  CHECK_OK(check_call_global("ffi.GetGlobalFuncMetadata", &nm, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIStr);
  CHECK_EQ_STR(TVMFFIBytesGetByteArrayPtr(r.v_obj)->data,
               "{\"type_schema\": \"{\\\"type\\\":\\\"ffi.Function\\\"}\", \"bound\": 1}");
  check_any_release(&r);
  TVMFFIAny arg = int_any(1);
  CHECK_OK(check_call_global("test.registry.documented", &arg, 1, &r));
  CHECK_EQ_INT(r.v_int64, 11);

  name[0] = 't';
  CHECK_RAISED(TVMFFIFunctionSetGlobalFromMethodInfo(&mi, 0), "RuntimeError",
               "Global Function `test.registry.documented` is already registered");
  mi.metadata.size = 0;
  CHECK_OK(TVMFFIFunctionSetGlobalFromMethodInfo(&mi, 1));
  CHECK_OK(check_call_global("ffi.GetGlobalFuncMetadata", &nm, 1, &r));
  CHECK_EQ_INT(r.small_str_len, 0);
  mi.method = int_any(3);
  CHECK_RAISED(TVMFFIFunctionSetGlobalFromMethodInfo(&mi, 1), "TypeError", "ffi.Function");
  CHECK_RAISED(TVMFFIFunctionSetGlobalFromMethodInfo(NULL, 1), "ValueError", "");
  CHECK_OK(check_call_global("ffi.FunctionRemoveGlobal", &nm, 1, &r));
  CHECK_EQ_INT(check_use_count(f), 1);
  TVMFFIObjectDecRef(f);
}

/* Calls g(i) of a names functor. */
static int functor_call(TVMFFIObjectHandle g, TVMFFIAny arg, TVMFFIAny* r) {
  *r = none_any();
  return TVMFFIFunctionCall(g, &arg, 1, r);
}

static int functor_has(TVMFFIObjectHandle g, const char* name) {
  TVMFFIAny r;
  CHECK_OK(functor_call(g, int_any(-1), &r));
  int found = 0;
  for (int64_t i = 0; i < r.v_int64; ++i) {
    TVMFFIAny s;
    CHECK_OK(functor_call(g, int_any(i), &s));
    TVMFFIByteArray b = s.type_index == kTVMFFISmallStr ? TVMFFISmallBytesGetContentByteArray(&s)
                                                        : *TVMFFIBytesGetByteArrayPtr(s.v_obj);
    if (b.size == strlen(name) && memcmp(b.data, name, b.size) == 0) found++;
    check_any_release(&s);
  }
  return found;
}

static void test_list_names(void) {
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.FunctionListGlobalNamesFunctor", NULL, 0, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIFunction);
  TVMFFIObjectHandle g = r.v_obj;
  TVMFFIAny cnt;
  CHECK_OK(functor_call(g, int_any(-1), &cnt));
  CHECK_EQ_INT(cnt.type_index, kTVMFFIInt);
  CHECK(cnt.v_int64 >= 9);
  CHECK_EQ_INT(functor_has(g, "ffi.FunctionListGlobalNamesFunctor"), 1);
  CHECK_EQ_INT(functor_has(g, "ffi.GetRegisteredTypeKeys"), 1);

  /* Snapshot: a later registration is not in an earlier functor. */
  TVMFFIObjectHandle f = make_adder(&k_one, NULL);
  TVMFFIByteArray name = check_ba("test.registry.late");
  CHECK_OK(TVMFFIFunctionSetGlobal(&name, f, 0));
  CHECK_EQ_INT(functor_has(g, "test.registry.late"), 0);
  CHECK_OK(check_call_global("ffi.FunctionListGlobalNamesFunctor", NULL, 0, &r));
  CHECK_EQ_INT(functor_has(r.v_obj, "test.registry.late"), 1);
  TVMFFIAny cnt2;
  CHECK_OK(functor_call(r.v_obj, int_any(-1), &cnt2));
  CHECK_EQ_INT(cnt2.v_int64, cnt.v_int64 + 1);
  check_any_release(&r);

  TVMFFIAny bad;
  CHECK_RAISED(functor_call(g, int_any(cnt.v_int64), &bad), "IndexError", "");
  CHECK_RAISED(functor_call(g, int_any(-2), &bad), "IndexError", "");
  CHECK_RAISED(functor_call(g, str_any("0"), &bad), "TypeError", "Expected `int`");
  TVMFFIObjectDecRef(g);
  TVMFFIAny nm = str_any("test.registry.late");
  CHECK_OK(check_call_global("ffi.FunctionRemoveGlobal", &nm, 1, &r));
  TVMFFIObjectDecRef(f);
  CHECK_RAISED(check_call_global("ffi.FunctionListGlobalNamesFunctor", &nm, 1, &r), "TypeError",
               "Mismatched number of arguments");
}

static void test_core_metadata(void) {
  static const char* names[] = {"ffi.FunctionListGlobalNamesFunctor",
                                "ffi.FunctionRemoveGlobal",
                                "ffi.GetGlobalFuncMetadata",
                                "ffi.FunctionFromExternC",
                                "ffi.String",
                                "ffi.Bytes",
                                "ffi.GetRegisteredTypeKeys",
                                "ffi.GetInvalidObject",
                                "ffi.GetKwargsObject"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    TVMFFIAny r, nm = str_any(names[i]);
    CHECK_OK(check_call_global("ffi.GetGlobalFuncMetadata", &nm, 1, &r));
    CHECK_EQ_INT(r.type_index, kTVMFFIStr);
    const char* m = TVMFFIBytesGetByteArrayPtr(r.v_obj)->data;
    if (strncmp(m, "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\"", 42) != 0)
      FAIL("metadata of %s: %s", names[i], m);
    check_any_release(&r);
  }
  /* Every global the runtime registers: its schema literal is converted on the first read
   * (not when the library loads), so a malformed one shows up here as an error. */
  TVMFFIAny fr, cnt;
  CHECK_OK(check_call_global("ffi.FunctionListGlobalNamesFunctor", NULL, 0, &fr));
  CHECK_OK(functor_call(fr.v_obj, int_any(-1), &cnt));
  int with_schema = 0;
  for (int64_t i = 0; i < cnt.v_int64; ++i) {
    TVMFFIAny nm, m1, m2;
    CHECK_OK(functor_call(fr.v_obj, int_any(i), &nm));
    CHECK_OK(check_call_global("ffi.GetGlobalFuncMetadata", &nm, 1, &m1));
    CHECK_OK(check_call_global("ffi.GetGlobalFuncMetadata", &nm, 1, &m2));
    TVMFFIByteArray b1 = m1.type_index == kTVMFFISmallStr ? TVMFFISmallBytesGetContentByteArray(&m1)
                                                          : *TVMFFIBytesGetByteArrayPtr(m1.v_obj);
    TVMFFIByteArray b2 = m2.type_index == kTVMFFISmallStr ? TVMFFISmallBytesGetContentByteArray(&m2)
                                                          : *TVMFFIBytesGetByteArrayPtr(m2.v_obj);
    CHECK(b1.size == b2.size && memcmp(b1.data, b2.data, b1.size) == 0); /* made once */
    static const char kPrefix[] = "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\"";
    TVMFFIByteArray n = nm.type_index == kTVMFFISmallStr ? TVMFFISmallBytesGetContentByteArray(&nm)
                                                         : *TVMFFIBytesGetByteArrayPtr(nm.v_obj);
    int ours = b1.size > 0 && !(n.size >= 5 && memcmp(n.data, "test.", 5) == 0);
    if (ours) {
      if (strncmp(b1.data, kPrefix, sizeof(kPrefix) - 1) != 0) FAIL("metadata: %s", b1.data);
      ++with_schema;
    }
    check_any_release(&nm);
    check_any_release(&m1);
    check_any_release(&m2);
  }
  CHECK(with_schema >= 100);
  check_any_release(&fr);

  TVMFFIAny r, nm = str_any("ffi.GetRegisteredTypeKeys");
  CHECK_OK(check_call_global("ffi.GetGlobalFuncMetadata", &nm, 1, &r));
  CHECK(
      strstr(TVMFFIBytesGetByteArrayPtr(r.v_obj)->data,
             "{\\\"type\\\":\\\"ffi.Array\\\",\\\"args\\\":[{\\\"type\\\":\\\"ffi.String\\\"}]}") !=
      NULL);
  check_any_release(&r);
}

/* Function schemas are registered in the 0.1.15 form (docs/abi.md §12.5.1), nested ones too. */
static void test_core_schema_named_args(void) {
  TVMFFIAny r, nm = str_any("ffi.ModuleGetFunction");
  CHECK_OK(check_call_global("ffi.GetGlobalFuncMetadata", &nm, 1, &r));
  CHECK_EQ_STR(TVMFFIBytesGetByteArrayPtr(r.v_obj)->data,
               "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"named_args\\\":{"
               "\\\"return\\\":[{\\\"type\\\":\\\"Optional\\\",\\\"args\\\":[{\\\"type\\\":"
               "\\\"ffi.Function\\\"}]}],\\\"params\\\":[{\\\"type\\\":\\\"ffi.Module\\\"},{"
               "\\\"type\\\":\\\"ffi.String\\\"},{\\\"type\\\":\\\"bool\\\"}]}}\"}");
  check_any_release(&r);
  nm = str_any("ffi.MakeFieldSetter");
  CHECK_OK(check_call_global("ffi.GetGlobalFuncMetadata", &nm, 1, &r));
  const char* m = TVMFFIBytesGetByteArrayPtr(r.v_obj)->data;
  CHECK(strstr(m, "\\\"args\\\":[{\\\"type\\\":\\\"ffi.Function\\\"}]") != NULL);
  CHECK(strstr(m, "\\\"ffi.Function\\\",\\\"args\\\"") == NULL);
  check_any_release(&r);
}

static void test_from_extern_c(void) {
  TVMFFIAny args[3], r;
  deleter_calls = 0;
  args[0] = none_any();
  args[0].type_index = kTVMFFIOpaquePtr;
  args[0].v_ptr = &k_ten;
  args[1] = none_any();
  args[1].type_index = kTVMFFIOpaquePtr;
  args[1].v_ptr = (void*)(uintptr_t)add_self;
  args[2] = none_any();
  args[2].type_index = kTVMFFIOpaquePtr;
  args[2].v_ptr = (void*)(uintptr_t)counting_deleter;
  CHECK_OK(check_call_global("ffi.FunctionFromExternC", args, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIFunction);
  CHECK_EQ_INT(call_int(r.v_obj, 2), 12);
  check_any_release(&r);
  CHECK_EQ_INT(deleter_calls, 1);
  CHECK(deleter_arg == &k_ten);
  /* None for self and deleter: the callee receives the handle. */
  args[0] = none_any();
  args[1].v_ptr = (void*)(uintptr_t)return_handle;
  args[2] = none_any();
  CHECK_OK(check_call_global("ffi.FunctionFromExternC", args, 3, &r));
  TVMFFIAny h = none_any();
  CHECK_OK(TVMFFIFunctionCall(r.v_obj, NULL, 0, &h));
  CHECK(h.v_ptr == r.v_obj);
  check_any_release(&r);
  args[1] = none_any();
  CHECK_RAISED(check_call_global("ffi.FunctionFromExternC", args, 3, &r), "ValueError",
               "safe_call");
  args[1] = str_any("x");
  CHECK_RAISED(check_call_global("ffi.FunctionFromExternC", args, 3, &r), "TypeError",
               "Expected `void*` but got `const char*`");
  CHECK_RAISED(check_call_global("ffi.FunctionFromExternC", args, 2, &r), "TypeError",
               "Expected 3 but got 2 arguments");
}

static void test_string_bytes(void) {
  TVMFFIAny r, a = str_any("hi");
  CHECK_OK(check_call_global("ffi.String", &a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFISmallStr);
  CHECK_EQ_BYTES(TVMFFISmallBytesGetContentByteArray(&r), "hi");
  a = str_any("a longer string than seven bytes");
  CHECK_OK(check_call_global("ffi.String", &a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIStr);
  CHECK_EQ_STR(TVMFFIBytesGetByteArrayPtr(r.v_obj)->data, "a longer string than seven bytes");
  /* An owned String goes back as the same object. */
  TVMFFIAny view = obj_any(r.v_obj), r2;
  CHECK_OK(check_call_global("ffi.String", &view, 1, &r2));
  CHECK(r2.v_obj == r.v_obj);
  CHECK_EQ_INT(check_use_count(r.v_obj), 2);
  check_any_release(&r2);
  check_any_release(&r);

  TVMFFIByteArray raw = {"by\0tes", 6};
  a = none_any();
  a.type_index = kTVMFFIByteArrayPtr;
  a.v_ptr = &raw;
  CHECK_OK(check_call_global("ffi.Bytes", &a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFISmallBytes);
  CHECK_EQ_INT(r.small_str_len, 6);
  CHECK(memcmp(r.v_bytes, "by\0tes", 6) == 0);

  a = int_any(1);
  CHECK_RAISED(check_call_global("ffi.String", &a, 1, &r), "TypeError",
               "Expected `str` but got `int`");
  CHECK_RAISED(check_call_global("ffi.Bytes", &a, 1, &r), "TypeError",
               "Expected `bytes` but got `int`");
  a = str_any("text");
  CHECK_RAISED(check_call_global("ffi.Bytes", &a, 1, &r), "TypeError", "const char*");
  CHECK_RAISED(check_call_global("ffi.String", NULL, 0, &r), "TypeError",
               "Mismatched number of arguments");
}

static void test_type_keys_and_sentinels(void) {
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.GetRegisteredTypeKeys", NULL, 0, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIArray);
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(r.v_obj);
  CHECK(cell->size >= 14 + 14);
  const TVMFFIAny* items = (const TVMFFIAny*)cell->data;
  /* Index order: POD kinds (ffi.Unchanged, 13, last) first, then ffi.Object, ffi.String, ... */
  CHECK_EQ_INT(items[0].type_index, kTVMFFISmallStr);
  CHECK_EQ_BYTES(TVMFFISmallBytesGetContentByteArray(&items[0]), "None");
  CHECK_EQ_BYTES(TVMFFISmallBytesGetContentByteArray(&items[1]), "int");
  CHECK_EQ_STR(TVMFFIBytesGetByteArrayPtr(items[13].v_obj)->data, "ffi.Unchanged");
  CHECK_EQ_INT(items[14].type_index, kTVMFFIStr);
  CHECK_EQ_STR(TVMFFIBytesGetByteArrayPtr(items[14].v_obj)->data, "ffi.Object");
  CHECK_EQ_STR(TVMFFIBytesGetByteArrayPtr(items[15].v_obj)->data, "ffi.String");
  check_any_release(&r);

  TVMFFIAny a, b, k;
  CHECK_OK(check_call_global("ffi.GetInvalidObject", NULL, 0, &a));
  CHECK_OK(check_call_global("ffi.GetInvalidObject", NULL, 0, &b));
  CHECK_OK(check_call_global("ffi.GetKwargsObject", NULL, 0, &k));
  CHECK_EQ_INT(a.type_index, kTVMFFIObject);
  CHECK_EQ_INT(k.type_index, kTVMFFIObject);
  CHECK(a.v_obj == b.v_obj);
  CHECK(a.v_obj != k.v_obj);
  check_any_release(&a);
  check_any_release(&b);
  check_any_release(&k);
  TVMFFIAny one = int_any(1);
  CHECK_RAISED(check_call_global("ffi.GetKwargsObject", &one, 1, &k), "TypeError",
               "Expected 0 but got 1 arguments");
}

/* User text in a message keeps its bytes after an embedded NUL, shown as \x00
 * (docs/abi.md §9.1); the message itself holds no NUL. */
static void test_nul_in_names(void) {
  TVMFFIByteArray name = {"test.nul\0tail", 13};
  TVMFFIAny nm, r;
  CHECK_OK(TVMFFIStringFromByteArray(&name, &nm));
  CHECK_RAISED(check_call_global("ffi.GetGlobalFuncMetadata", &nm, 1, &r), "RuntimeError",
               "Global Function is not found: test.nul\\x00tail");
  TVMFFIObjectDecRef(nm.v_obj);
  TVMFFIByteArray key = {"test.no\0such.type", 17};
  int32_t index = -1;
  CHECK_RAISED(TVMFFITypeKeyToIndex(&key, &index), "InternalError",
               "Cannot find type `test.no\\x00such.type`");
}

int main(void) {
  test_create_and_call();
  test_nul_in_names();
  test_registry();
  test_method_info();
  test_list_names();
  test_core_metadata();
  test_core_schema_named_args();
  test_from_extern_c();
  test_string_bytes();
  test_type_keys_and_sentinels();
  CHECK_SLOT_CLEAN();
  printf("test_function: ok\n");
  return 0;
}
