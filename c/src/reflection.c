/*
 * reflection.c -- fields, methods, metadata and attribute columns of types
 * (docs/abi.md §12.4-12.6).
 *
 * Registration normally happens during initialisation, but readers may run
 * concurrently, so arrays are never reallocated in place: a grown array is
 * published with a release store and the old one is kept alive (it is small
 * and registration is rare).  Writers serialise on one mutex.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* No fork handler here (unlike type.c/function.c): errors are raised under
 * this lock, and raising takes the backtrace lock, whose fork handler may run
 * first; holding both across fork() could deadlock. */
static void lock(void) { pthread_mutex_lock(&g_lock); }

/* Superseded arrays, kept reachable for late readers. */
typedef struct retired {
  struct retired* next;
  void* block;
} retired;
static retired* g_retired;

static void retire(void* block) {
  if (block == NULL) return;
  retired* r = malloc(sizeof(*r));
  if (r == NULL) return; /* leaking the block is the safe fallback */
  r->block = block;
  r->next = g_retired;
  g_retired = r;
}

/* Capacity of an array holding n entries: 0, then 4, 8, 16, ... */
static int32_t cap_for(int32_t n) {
  int32_t c = 4;
  if (n == 0) return 0;
  while (c < n) c *= 2;
  return c;
}

/* Copies a byte range into a NUL-terminated heap string; empty -> {NULL,0}. */
static int copy_bytes(const TVMFFIByteArray* in, TVMFFIByteArray* out) {
  out->data = NULL;
  out->size = 0;
  if (in == NULL || in->size == 0) return 0;
  char* p = malloc(in->size + 1);
  if (p == NULL) return tvmffi__raise_oom();
  memcpy(p, in->data, in->size);
  p[in->size] = '\0';
  out->data = p;
  out->size = in->size;
  return 0;
}

static int bytes_eq(const TVMFFIByteArray* a, const TVMFFIByteArray* b) {
  return a->size == b->size && (a->size == 0 || memcmp(a->data, b->data, a->size) == 0);
}

/* The entry of a registered index (mutable view), or NULL after raising
 * InternalError. */
static TVMFFITypeInfo* info_or_raise(const char* what, int32_t type_index) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(type_index);
  if (info == NULL) {
    tvmffi__raise("InternalError", "%s: type_index %d is not registered", what, (int)type_index);
    return NULL;
  }
  return (TVMFFITypeInfo*)info; /* entries are heap-allocated, never const */
}

/* Makes room for one more element in *arr (count n); publishes the new
 * array before the caller bumps the count. */
static void* grow_for_append(const void* arr, int32_t n, size_t elem) {
  if (n < cap_for(n)) return (void*)arr;
  int32_t cap = cap_for(n + 1);
  void* na = calloc((size_t)cap, elem);
  if (na == NULL) return NULL;
  if (n > 0) memcpy(na, arr, (size_t)n * elem);
  return na;
}

int TVMFFITypeRegisterField(int32_t type_index, const TVMFFIFieldInfo* info) {
  if (info == NULL) return tvmffi__raise("ValueError", "TVMFFITypeRegisterField: info is NULL");
  if (info->name.size == 0 || info->name.data == NULL)
    return tvmffi__raise("ValueError", "TVMFFITypeRegisterField: field name is empty");
  TVMFFIFieldInfo f = *info;
  int rc = -1;
  lock();
  TVMFFITypeInfo* ti = info_or_raise("TVMFFITypeRegisterField", type_index);
  if (ti == NULL) goto out;
  for (int32_t i = 0; i < ti->num_fields; ++i) {
    if (bytes_eq(&ti->fields[i].name, &info->name)) {
      tvmffi__raise("InternalError", "Duplicate field `%.*s` in type `%s`", (int)info->name.size,
                    info->name.data, ti->type_key.data);
      goto out;
    }
  }
  for (int32_t d = 0; d < ti->type_depth; ++d) {
    const TVMFFITypeInfo* a = ti->type_ancestors[d];
    for (int32_t i = 0; i < a->num_fields; ++i)
      if (bytes_eq(&a->fields[i].name, &info->name))
        fprintf(stderr, "tvm_ffi: warning: field `%.*s` of `%s` shadows the field of `%s`\n",
                (int)info->name.size, info->name.data, ti->type_key.data, a->type_key.data);
  }
  TVMFFIFieldInfo* arr = grow_for_append(ti->fields, ti->num_fields, sizeof(TVMFFIFieldInfo));
  if (arr == NULL) {
    tvmffi__raise_oom();
    goto out;
  }
  if (copy_bytes(&info->name, &f.name) || copy_bytes(&info->doc, &f.doc) ||
      copy_bytes(&info->metadata, &f.metadata))
    goto fail_strings;
  tvmffi__any_set_none(&f.default_value_or_factory);
  if ((info->flags & kTVMFFIFieldFlagBitMaskHasDefault) &&
      TVMFFIAnyViewToOwnedAny(&info->default_value_or_factory, &f.default_value_or_factory) != 0)
    goto fail_strings;
  if ((info->flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) && f.setter != NULL)
    TVMFFIObjectIncRef(f.setter);
  arr[ti->num_fields] = f;
  if (arr != ti->fields) {
    retire((void*)ti->fields);
    __atomic_store_n(&ti->fields, arr, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&ti->num_fields, ti->num_fields + 1, __ATOMIC_RELEASE);
  rc = 0;
  goto out;
fail_strings:
  free((void*)f.name.data);
  free((void*)f.doc.data);
  free((void*)f.metadata.data);
  if (arr != ti->fields) free(arr);
out:
  pthread_mutex_unlock(&g_lock);
  return rc;
}

int TVMFFITypeRegisterMethod(int32_t type_index, const TVMFFIMethodInfo* info) {
  if (info == NULL) return tvmffi__raise("ValueError", "TVMFFITypeRegisterMethod: info is NULL");
  if (info->name.size == 0 || info->name.data == NULL)
    return tvmffi__raise("ValueError", "TVMFFITypeRegisterMethod: method name is empty");
  if (info->method.type_index != kTVMFFIFunction)
    return tvmffi__raise(
        "TypeError", "TVMFFITypeRegisterMethod: method `%.*s` must be an `ffi.Function`, got `%s`",
        (int)info->name.size, info->name.data, tvmffi__any_type_key(&info->method));
  TVMFFIMethodInfo m = *info;
  int rc = -1;
  lock();
  TVMFFITypeInfo* ti = info_or_raise("TVMFFITypeRegisterMethod", type_index);
  if (ti == NULL) goto out;
  TVMFFIMethodInfo* arr = grow_for_append(ti->methods, ti->num_methods, sizeof(TVMFFIMethodInfo));
  if (arr == NULL) {
    tvmffi__raise_oom();
    goto out;
  }
  if (copy_bytes(&info->name, &m.name) || copy_bytes(&info->doc, &m.doc) ||
      copy_bytes(&info->metadata, &m.metadata)) {
    free((void*)m.name.data);
    free((void*)m.doc.data);
    free((void*)m.metadata.data);
    if (arr != ti->methods) free(arr);
    goto out;
  }
  TVMFFIObjectIncRef(info->method.v_obj);
  arr[ti->num_methods] = m;
  if (arr != ti->methods) {
    retire((void*)ti->methods);
    __atomic_store_n(&ti->methods, arr, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&ti->num_methods, ti->num_methods + 1, __ATOMIC_RELEASE);
  rc = 0;
out:
  pthread_mutex_unlock(&g_lock);
  return rc;
}

int TVMFFITypeRegisterMetadata(int32_t type_index, const TVMFFITypeMetadata* metadata) {
  if (metadata == NULL)
    return tvmffi__raise("ValueError", "TVMFFITypeRegisterMetadata: metadata is NULL");
  int rc = -1;
  lock();
  TVMFFITypeInfo* ti = info_or_raise("TVMFFITypeRegisterMetadata", type_index);
  if (ti == NULL) goto out;
  if (ti->metadata != NULL) {
    fprintf(stderr, "tvm_ffi: type metadata of `%s` is already registered\n", ti->type_key.data);
    tvmffi__raise("RuntimeError", "Type metadata of `%s` is already registered", ti->type_key.data);
    goto out;
  }
  TVMFFITypeMetadata* copy = malloc(sizeof(*copy));
  if (copy == NULL) {
    tvmffi__raise_oom();
    goto out;
  }
  *copy = *metadata;
  if (copy_bytes(&metadata->doc, &copy->doc) != 0) {
    free(copy);
    goto out;
  }
  __atomic_store_n(&ti->metadata, copy, __ATOMIC_RELEASE);
  rc = 0;
out:
  pthread_mutex_unlock(&g_lock);
  return rc;
}

/* ---- attribute columns ------------------------------------------------- */

typedef struct column {
  TVMFFITypeAttrColumn col; /* first: its address is what callers cache */
  struct column* next;
  int32_t capacity;
  TVMFFIByteArray name;
} column;

static column* g_columns; /* prepend-only list, read lock-free */

static column* column_find(const TVMFFIByteArray* name) {
  for (column* c = __atomic_load_n(&g_columns, __ATOMIC_ACQUIRE); c != NULL; c = c->next)
    if (bytes_eq(&c->name, name)) return c;
  return NULL;
}

/* Under g_lock. */
static column* column_get_or_create(const TVMFFIByteArray* name) {
  column* c = column_find(name);
  if (c) return c;
  c = calloc(1, sizeof(*c));
  char* key = malloc(name->size + 1);
  if (c == NULL || key == NULL) {
    free(c);
    free(key);
    tvmffi__raise_oom();
    return NULL;
  }
  memcpy(key, name->data, name->size);
  key[name->size] = '\0';
  c->name.data = key;
  c->name.size = name->size;
  c->col.begin_index = 0; /* 0.1.0-0.1.8 binaries read bytes 8..15 as size_t */
  c->next = g_columns;
  __atomic_store_n(&g_columns, c, __ATOMIC_RELEASE);
  return c;
}

/* Under g_lock: ensures data[index] exists (new slots None). */
static int column_reserve(column* c, int32_t index) {
  if (index < c->capacity) {
    if (index >= c->col.size) __atomic_store_n(&c->col.size, index + 1, __ATOMIC_RELEASE);
    return 0;
  }
  int32_t cap = c->capacity ? c->capacity * 2 : 256;
  while (cap <= index) cap *= 2;
  TVMFFIAny* data = calloc((size_t)cap, sizeof(TVMFFIAny)); /* all-zero = None */
  if (data == NULL) return tvmffi__raise_oom();
  if (c->col.size > 0) memcpy(data, c->col.data, (size_t)c->col.size * sizeof(TVMFFIAny));
  retire((void*)c->col.data);
  /* data before size: a reader that sees the new size sees the new data. */
  __atomic_store_n(&c->col.data, data, __ATOMIC_RELEASE);
  c->capacity = cap;
  __atomic_store_n(&c->col.size, index + 1, __ATOMIC_RELEASE);
  return 0;
}

int TVMFFITypeRegisterAttr(int32_t type_index, const TVMFFIByteArray* attr_name,
                           const TVMFFIAny* attr_value) {
  if (attr_name == NULL || attr_name->size == 0 || attr_name->data == NULL)
    return tvmffi__raise("ValueError", "TVMFFITypeRegisterAttr: attribute name is empty");
  if (type_index != kTVMFFINone && attr_value == NULL)
    return tvmffi__raise("ValueError", "TVMFFITypeRegisterAttr: attr_value is NULL");
  /* A native __any_hash__ / __any_equal__ hook is stored wrapped in a Function
   * that calls it in its release's convention (native_hook.c). */
  TVMFFIAny wrapped;
  tvmffi__any_set_none(&wrapped);
  int hook = type_index == kTVMFFINone || attr_value->type_index != kTVMFFIOpaquePtr
                 ? 0
                 : tvmffi__native_hook_attr(attr_name);
  if (hook != 0) {
    if (info_or_raise("TVMFFITypeRegisterAttr", type_index) == NULL ||
        tvmffi__native_hook_wrap(type_index, hook == 2, attr_value->v_ptr, 0, &wrapped) != 0)
      return -1;
    attr_value = &wrapped;
  }
  int rc = -1;
  lock();
  if (type_index != kTVMFFINone && info_or_raise("TVMFFITypeRegisterAttr", type_index) == NULL)
    goto out;
  column* c = column_get_or_create(attr_name);
  if (c == NULL) goto out;
  /* index 0 only makes sure the column exists; None adds nothing. */
  if (type_index == kTVMFFINone || attr_value->type_index == kTVMFFINone) {
    rc = 0;
    goto out;
  }
  if (type_index < c->col.size && c->col.data[type_index].type_index != kTVMFFINone) {
    tvmffi__raise("RuntimeError", "Attribute `%.*s` of type `%s` is already registered",
                  (int)attr_name->size, attr_name->data, tvmffi__type_key(type_index));
    goto out;
  }
  TVMFFIAny owned;
  if (TVMFFIAnyViewToOwnedAny(attr_value, &owned) != 0) goto out;
  if (column_reserve(c, type_index) != 0) {
    tvmffi__any_release(&owned);
    goto out;
  }
  ((TVMFFIAny*)c->col.data)[type_index] = owned;
  rc = 0;
out:
  pthread_mutex_unlock(&g_lock);
  tvmffi__any_release(&wrapped);
  return rc;
}

const TVMFFITypeAttrColumn* TVMFFIGetTypeAttrColumn(const TVMFFIByteArray* attr_name) {
  if (attr_name == NULL) return NULL;
  column* c = column_find(attr_name);
  /* Reached before the library constructor ran: initialise and retry. */
  if (c == NULL && tvmffi__type_info_lookup(kTVMFFINone) == NULL) {
    tvmffi__ensure_init();
    c = column_find(attr_name);
  }
  return c ? &c->col : NULL;
}
