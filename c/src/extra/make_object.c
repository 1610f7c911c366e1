/*
 * make_object.c -- construction of reflected objects (docs/abi.md §14.4):
 *
 *   ffi.MakeObjectFromPackedArgs(type_key_or_index, name1, val1, ...)
 *   ffi._RegisterFFIInit(type_index)  -> installs a generated `__ffi_init__`
 *
 * The generated `__ffi_init__` takes positional arguments, optionally followed
 * by the KWARGS sentinel (ffi.GetKwargsObject) and name/value pairs, the
 * calling convention of docs/python.md §4.6.  Its parameters are the reflected
 * fields, ancestors first, without InitOff fields: positional parameters are
 * the required (no default) non-KwOnly fields, then the defaulted ones (so a
 * required field never follows an optional one); KwOnly fields are keyword
 * only.  A value equal to the MISSING sentinel (ffi.GetInvalidObject) counts
 * as not given.
 *
 * Both entry points first match every argument to a field ("plan"), raising
 * TypeError for unknown, duplicate or missing ones before anything is
 * created; then the object comes from the type's creator (or its
 * `__ffi_new__` attribute) and every field is assigned, ancestors first:
 * a given value through the setter, else the default (a value, or the
 * result of calling the factory with DefaultFromFactory).  A field without
 * value or default keeps what the creator put there.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ext.h"
#include "internal.h"

/* ---- sentinels and type attributes ----------------------------------------- */

/* The object a core sentinel global returns, fetched once (sentinels live for
 * the whole process, so a borrowed pointer is enough).  NULL after raising. */
static TVMFFIObject* sentinel(const char* name, TVMFFIObject** cache) {
  TVMFFIObject* obj = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (obj != NULL) return obj;
  TVMFFIByteArray n = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0) return NULL;
  if (f == NULL) {
    tvmffi__raise("RuntimeError", "global function %s is not registered", name);
    return NULL;
  }
  TVMFFIAny r;
  tvmffi__any_set_none(&r);
  int rc = tvmffi__function_call(f, NULL, 0, &r);
  tvmffi__decref((TVMFFIObject*)f);
  if (rc != 0) return NULL;
  if (r.type_index < kTVMFFIStaticObjectBegin) {
    tvmffi__any_release(&r);
    tvmffi__raise("RuntimeError", "%s did not return an object", name);
    return NULL;
  }
  obj = r.v_obj;
  tvmffi__any_release(&r); /* the sentinel keeps itself alive */
  __atomic_store_n(cache, obj, __ATOMIC_RELEASE);
  return obj;
}

static TVMFFIObject* g_kwargs;
static TVMFFIObject* g_missing;

static int is_obj(const TVMFFIAny* v, const TVMFFIObject* obj) {
  return v->type_index >= kTVMFFIStaticObjectBegin && v->v_obj == obj;
}

/* ---- plan: one slot per reflected field, ancestors first ------------------- */

typedef struct {
  const TVMFFIFieldInfo* field;
  const TVMFFIAny* value; /* the argument view; NULL when not given */
  int32_t pos;            /* positional parameter index of __ffi_init__, or -1 */
} slot;

#define PLAN_INLINE 32

typedef struct {
  int32_t type_index;
  const TVMFFITypeInfo* info;
  int32_t n;
  slot* slots;
  slot inline_slots[PLAN_INLINE];
} plan;

static int same_name(const TVMFFIByteArray* a, const TVMFFIByteArray* b) {
  return a->size == b->size && (a->size == 0 || memcmp(a->data, b->data, a->size) == 0);
}

/* Fills p with the fields of type t.  A field shadowed by a descendant's field
 * of the same name is left out: names must select one field. */
static int plan_init(plan* p, int32_t t) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(t);
  p->type_index = t;
  p->info = info;
  p->n = 0;
  p->slots = p->inline_slots;
  int64_t total = 0;
  for (int32_t d = 0; d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* ti = d < info->type_depth ? info->type_ancestors[d] : info;
    total += __atomic_load_n(&ti->num_fields, __ATOMIC_ACQUIRE);
  }
  if (total > PLAN_INLINE) {
    p->slots = malloc((size_t)total * sizeof(slot));
    if (p->slots == NULL) return tvmffi__raise_oom();
  }
  for (int32_t d = 0; d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* ti = d < info->type_depth ? info->type_ancestors[d] : info;
    int32_t nf = __atomic_load_n(&ti->num_fields, __ATOMIC_ACQUIRE);
    const TVMFFIFieldInfo* fields = __atomic_load_n(&ti->fields, __ATOMIC_ACQUIRE);
    for (int32_t i = 0; i < nf && p->n < total; ++i) {
      for (int32_t j = 0; j < p->n; ++j) {
        if (same_name(&p->slots[j].field->name, &fields[i].name)) {
          memmove(&p->slots[j], &p->slots[j + 1], (size_t)(p->n - j - 1) * sizeof(slot));
          --p->n;
          break;
        }
      }
      p->slots[p->n].field = &fields[i];
      p->slots[p->n].value = NULL;
      p->slots[p->n].pos = -1;
      ++p->n;
    }
  }
  return 0;
}

static void plan_free(plan* p) {
  if (p->slots != p->inline_slots) free(p->slots);
}

static slot* plan_find(plan* p, const TVMFFIByteArray* name) {
  for (int32_t i = 0; i < p->n; ++i)
    if (same_name(&p->slots[i].field->name, name)) return &p->slots[i];
  return NULL;
}

/* Types that can be created: a creator, or a `__ffi_new__` function. */
static int can_create(int32_t t) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(t);
  if (info == NULL || t < kTVMFFIStaticObjectBegin) return 0;
  const TVMFFITypeMetadata* md = __atomic_load_n(&info->metadata, __ATOMIC_ACQUIRE);
  if (md != NULL && md->creator != NULL) return 1;
  const TVMFFIAny* f = tvmffi__ext_type_attr(t, "__ffi_new__");
  return f != NULL && f->type_index == kTVMFFIFunction;
}

static int raise_cannot_create(const char* who, int32_t t) {
  return tvmffi__raise("TypeError",
                       "%s: type `%s` cannot be created by reflection (it has no creator and "
                       "no __ffi_new__ type attribute)",
                       who, tvmffi__type_key(t));
}

/* A fresh object of type t, from the creator or `__ffi_new__`. */
TVMFFIObject* tvmffi__object_create(const char* who, int32_t t) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(t);
  if (info == NULL || t < kTVMFFIStaticObjectBegin) {
    raise_cannot_create(who, t);
    return NULL;
  }
  const TVMFFITypeMetadata* md = __atomic_load_n(&info->metadata, __ATOMIC_ACQUIRE);
  TVMFFIObject* obj = NULL;
  if (md != NULL && md->creator != NULL) {
    TVMFFIObjectHandle h = NULL;
    if (md->creator(&h) != 0) return NULL;
    obj = (TVMFFIObject*)h;
  } else {
    const TVMFFIAny* f = tvmffi__ext_type_attr(t, "__ffi_new__");
    if (f == NULL || f->type_index != kTVMFFIFunction) {
      raise_cannot_create(who, t);
      return NULL;
    }
    TVMFFIAny r;
    tvmffi__any_set_none(&r);
    if (tvmffi__function_call(f->v_obj, NULL, 0, &r) != 0) return NULL;
    if (r.type_index >= kTVMFFIStaticObjectBegin)
      obj = r.v_obj;
    else
      tvmffi__any_release(&r);
  }
  if (obj == NULL || obj->type_index != t) {
    int32_t got = obj ? obj->type_index : kTVMFFINone;
    tvmffi__decref(obj);
    tvmffi__raise("RuntimeError", "%s: the creator of `%s` returned `%s`", who, tvmffi__type_key(t),
                  tvmffi__type_key(got));
    return NULL;
  }
  return obj;
}

/* Re-raises the pending error as "<who> <what> '<field>':" and, on the next lines, its message
 * indented by two spaces (upstream's layout), keeping kind and backtrace, so a setter's
 * complaint names the field (what: "field", or "default for field" when the field's own
 * default is refused).  Returns -1. */
static int prefix_error(const char* who, const char* what, const TVMFFIByteArray* field) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == NULL)
    return tvmffi__raise("RuntimeError", "%s: %s '%.*s': the setter failed without raising", who,
                         what, (int)field->size, field->data);
  TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(err);
  tvmffi__buf msg = {NULL, 0, 0};
  TVMFFIObjectHandle wrapped = NULL;
  int ok =
      tvmffi__buf_printf(&msg, "%s %s '%.*s':\n  ", who, what, (int)field->size, field->data) == 0;
  for (size_t i = 0; ok && i < c->message.size; ++i) /* indent every line of the message */
    ok = c->message.data[i] == '\n' ? tvmffi__buf_printf(&msg, "\n  ") == 0
                                    : tvmffi__buf_printf(&msg, "%c", c->message.data[i]) == 0;
  if (ok) {
    TVMFFIByteArray m = {msg.data, msg.size};
    if (TVMFFIErrorCreate(&c->kind, &m, &c->backtrace, &wrapped) != 0) wrapped = NULL;
  }
  tvmffi__buf_free(&msg);
  /* Out of memory while wrapping: the original error is still accurate. */
  TVMFFIErrorSetRaised(wrapped ? wrapped : err);
  if (wrapped) tvmffi__decref((TVMFFIObject*)wrapped);
  tvmffi__decref((TVMFFIObject*)err);
  return -1;
}

/* Stores v through f's setter (a C setter or a Function): the raw call, no message. */
int tvmffi__field_store(const TVMFFIFieldInfo* f, TVMFFIObject* obj, const TVMFFIAny* v) {
  void* addr = (char*)obj + f->offset;
  if (f->flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) {
    TVMFFIAny args[2], res;
    args[0].type_index = kTVMFFIOpaquePtr;
    args[0].zero_padding = 0;
    args[0].v_ptr = addr;
    args[1] = *v;
    tvmffi__any_set_none(&res);
    int rc = tvmffi__function_call((TVMFFIObjectHandle)f->setter, args, 2, &res);
    tvmffi__any_release(&res);
    return rc;
  }
  return ((TVMFFIFieldSetter)f->setter)(addr, v);
}

static int set_field(const char* who, const char* what, const TVMFFIFieldInfo* f, TVMFFIObject* obj,
                     const TVMFFIAny* v) {
  if (f->setter == NULL)
    return tvmffi__raise("TypeError", "%s: field `%.*s` of `%s` has no setter", who,
                         (int)f->name.size, f->name.data, tvmffi__type_key(obj->type_index));
  return tvmffi__field_store(f, obj, v) == 0 ? 0 : prefix_error(who, what, &f->name);
}

/* Assigns a field its default, if it has one. */
static int set_default(const char* who, const TVMFFIFieldInfo* f, TVMFFIObject* obj) {
  if (!(f->flags & kTVMFFIFieldFlagBitMaskHasDefault) || f->setter == NULL) return 0;
  if (!(f->flags & kTVMFFIFieldFlagBitMaskDefaultFromFactory))
    return set_field(who, "default for field", f, obj, &f->default_value_or_factory);
  if (f->default_value_or_factory.type_index != kTVMFFIFunction)
    return tvmffi__raise(
        "TypeError", "%s: the default factory of field `%.*s` is `%s`, not a function", who,
        (int)f->name.size, f->name.data, tvmffi__any_type_key(&f->default_value_or_factory));
  TVMFFIAny v;
  tvmffi__any_set_none(&v);
  if (tvmffi__function_call(f->default_value_or_factory.v_obj, NULL, 0, &v) != 0)
    return prefix_error(who, "default factory of field", &f->name);
  int rc = set_field(who, "default for field", f, obj, &v);
  tvmffi__any_release(&v);
  return rc;
}

int tvmffi__field_set_missing(const char* who, const TVMFFIFieldInfo* f, TVMFFIObject* obj) {
  if (!(f->flags & kTVMFFIFieldFlagBitMaskHasDefault))
    return tvmffi__raise("TypeError", "%s: missing required field `%.*s` of `%s`", who,
                         (int)f->name.size, f->name.data, tvmffi__type_key(obj->type_index));
  return set_default(who, f, obj);
}

/* Creates the object and assigns every slot; the result is an owned Any. */
static int plan_run(const plan* p, const char* who, TVMFFIAny* result) {
  TVMFFIObject* obj = tvmffi__object_create(who, p->type_index);
  if (obj == NULL) return -1;
  for (int32_t i = 0; i < p->n; ++i) {
    const slot* s = &p->slots[i];
    int rc = s->value ? set_field(who, "field", s->field, obj, s->value)
                      : set_default(who, s->field, obj);
    if (rc != 0) {
      tvmffi__decref(obj);
      return -1;
    }
  }
  tvmffi__any_set_obj(result, obj);
  return 0;
}

static int required(const TVMFFIFieldInfo* f) {
  return !(f->flags & kTVMFFIFieldFlagBitMaskHasDefault);
}

/* ---- ffi.MakeObjectFromPackedArgs ------------------------------------------- */

#define MAKE_NAME "ffi.MakeObjectFromPackedArgs"

/* The type named by a key (str) or index (int) argument. */
static int resolve_type(const TVMFFIAny* v, int32_t* out) {
  TVMFFIByteArray key;
  if (tvmffi__any_as_str(v, &key)) {
    int32_t t = TVMFFITypeGetOrAllocIndex(&key, -1, 0, 0, 0, -2); /* query only */
    if (t < 0)
      return tvmffi__raise("ValueError", MAKE_NAME ": cannot find type `%.*s`", (int)key.size,
                           key.data);
    *out = t;
    return 0;
  }
  if (v->type_index == kTVMFFIInt) {
    if (v->v_int64 < 0 || v->v_int64 > INT32_MAX ||
        tvmffi__type_info_lookup((int32_t)v->v_int64) == NULL)
      return tvmffi__raise("ValueError", MAKE_NAME ": type index %lld is not registered",
                           (long long)v->v_int64);
    *out = (int32_t)v->v_int64;
    return 0;
  }
  return tvmffi__raise("TypeError",
                       MAKE_NAME
                       ": argument #0 must be a type key (str) or type index (int), "
                       "got `%s`",
                       tvmffi__any_type_key(v));
}

static int make_object(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  if (num_args < 1)
    return tvmffi__raise("TypeError", MAKE_NAME
                         " expects a type key or index followed by "
                         "name/value pairs, got no arguments");
  int32_t t = -1;
  if (resolve_type(&args[0], &t) != 0) return -1;
  if (!can_create(t)) return raise_cannot_create(MAKE_NAME, t);
  if ((num_args - 1) % 2 != 0)
    return tvmffi__raise("TypeError",
                         MAKE_NAME
                         ": expected name/value pairs after the type, got %d "
                         "argument(s) after it",
                         (int)(num_args - 1));
  TVMFFIObject* missing = sentinel("ffi.GetInvalidObject", &g_missing);
  if (missing == NULL) return -1;
  plan p;
  if (plan_init(&p, t) != 0) return -1;
  int rc = -1;
  for (int32_t i = 1; i < num_args; i += 2) {
    TVMFFIByteArray name;
    if (!tvmffi__any_as_str(&args[i], &name)) {
      tvmffi__raise("TypeError", MAKE_NAME ": argument #%d must be a field name (str), got `%s`",
                    (int)i, tvmffi__any_type_key(&args[i]));
      goto out;
    }
    slot* s = plan_find(&p, &name);
    if (s == NULL) {
      tvmffi__raise("TypeError", "Type `%s` does not have field `%.*s`", tvmffi__type_key(t),
                    (int)name.size, name.data);
      goto out;
    }
    if (s->value != NULL) {
      tvmffi__raise("TypeError", "Field `%.*s` of type `%s` is given more than once",
                    (int)name.size, name.data, tvmffi__type_key(t));
      goto out;
    }
    if (!is_obj(&args[i + 1], missing)) s->value = &args[i + 1];
  }
  for (int32_t i = 0; i < p.n; ++i) {
    const TVMFFIFieldInfo* f = p.slots[i].field;
    if (p.slots[i].value == NULL && required(f) && f->setter != NULL) {
      tvmffi__raise("TypeError", "Required field `%.*s` not set in type `%s`", (int)f->name.size,
                    f->name.data, tvmffi__type_key(t));
      goto out;
    }
  }
  rc = plan_run(&p, MAKE_NAME, result);
out:
  plan_free(&p);
  return rc;
}

/* ---- the generated __ffi_init__ -------------------------------------------- */

static int init_param(const TVMFFIFieldInfo* f) {
  return !(f->flags & kTVMFFIFieldFlagBitMaskInitOff);
}
static int kw_only(const TVMFFIFieldInfo* f) {
  return (f->flags & kTVMFFIFieldFlagBitMaskKwOnly) != 0;
}

/* self is the type index itself (no allocation, nothing to free). */
static int generated_init(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  int32_t t = (int32_t)(intptr_t)self;
  char who[256];
  snprintf(who, sizeof(who), "%s.__ffi_init__()", tvmffi__type_key(t));
  if (!can_create(t)) return raise_cannot_create(who, t);
  TVMFFIObject* kwargs = sentinel("ffi.GetKwargsObject", &g_kwargs);
  TVMFFIObject* missing = kwargs ? sentinel("ffi.GetInvalidObject", &g_missing) : NULL;
  if (missing == NULL) return -1;
  plan p;
  if (plan_init(&p, t) != 0) return -1;
  int rc = -1;
  int32_t npos = num_args;
  for (int32_t i = 0; i < num_args; ++i) {
    if (is_obj(&args[i], kwargs)) {
      npos = i;
      break;
    }
  }
  /* Positional parameters: required ones first, then defaulted ones. */
  int32_t nparams = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (int32_t i = 0; i < p.n; ++i) {
      const TVMFFIFieldInfo* f = p.slots[i].field;
      if (!init_param(f) || kw_only(f) || required(f) != (pass == 0)) continue;
      p.slots[i].pos = nparams;
      if (nparams < npos && !is_obj(&args[nparams], missing)) p.slots[i].value = &args[nparams];
      ++nparams;
    }
  }
  if (npos > nparams) {
    tvmffi__raise("TypeError", "%s takes at most %d positional argument(s), but %d were given", who,
                  (int)nparams, (int)npos);
    goto out;
  }
  if (npos < num_args && (num_args - npos - 1) % 2 != 0) {
    tvmffi__raise("TypeError", "%s KWARGS requires an even number of key-value arguments", who);
    goto out;
  }
  for (int32_t i = npos + 1; i + 1 < num_args; i += 2) {
    TVMFFIByteArray name;
    if (!tvmffi__any_as_str(&args[i], &name)) {
      tvmffi__raise("TypeError", "%s keyword names must be str, got `%s`", who,
                    tvmffi__any_type_key(&args[i]));
      goto out;
    }
    slot* s = plan_find(&p, &name);
    if (s == NULL || !init_param(s->field)) {
      tvmffi__raise("TypeError", "%s got an unexpected keyword argument '%.*s'", who,
                    (int)name.size, name.data);
      goto out;
    }
    /* A positional argument counts as given even when it was MISSING. */
    if (s->value != NULL || (s->pos >= 0 && s->pos < npos)) {
      tvmffi__raise("TypeError", "%s got multiple values for argument '%.*s'", who, (int)name.size,
                    name.data);
      goto out;
    }
    if (!is_obj(&args[i + 1], missing)) s->value = &args[i + 1];
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (int32_t i = 0; i < p.n; ++i) {
      const TVMFFIFieldInfo* f = p.slots[i].field;
      if (!init_param(f) || kw_only(f) != (pass == 1) || !required(f) || p.slots[i].value) continue;
      tvmffi__raise("TypeError", "%s missing required %sargument: '%.*s'", who,
                    pass ? "keyword-only " : "", (int)f->name.size, f->name.data);
      goto out;
    }
  }
  rc = plan_run(&p, who, result);
out:
  plan_free(&p);
  return rc;
}

/* ---- ffi._RegisterFFIInit ---------------------------------------------------- */

#define REG_SIG "ffi._RegisterFFIInit(0: int) -> None"

static int register_ffi_init(void* self, const TVMFFIAny* args, int32_t num_args,
                             TVMFFIAny* result) {
  (void)self;
  (void)result;
  int64_t t;
  if (tvmffi__args_count(REG_SIG, num_args, 1) || tvmffi__arg_int(REG_SIG, args, 0, &t)) return -1;
  if (t < 0 || t > INT32_MAX || tvmffi__type_info_lookup((int32_t)t) == NULL)
    return tvmffi__raise("ValueError", "ffi._RegisterFFIInit: type index %lld is not registered",
                         (long long)t);
  if (t < kTVMFFIStaticObjectBegin)
    return tvmffi__raise("TypeError", "ffi._RegisterFFIInit: `%s` is not an object type",
                         tvmffi__type_key((int32_t)t));
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate((void*)(intptr_t)t, generated_init, NULL, &f) != 0) return -1;
  TVMFFIAny v;
  tvmffi__any_set_obj(&v, (TVMFFIObject*)f);
  TVMFFIByteArray name = {"__ffi_init__", 12};
  int rc = TVMFFITypeRegisterAttr((int32_t)t, &name, &v);
  tvmffi__any_release(&v);
  return rc;
}

void tvmffi__make_object_globals_init(void) {
  tvmffi__register_global(MAKE_NAME, make_object,
                          "Creates an object of a reflected type (key or index), assigning the "
                          "named fields; the others take their defaults.",
                          "{\"type\":\"ffi.Function\"}");
  tvmffi__register_global("ffi._RegisterFFIInit", register_ffi_init,
                          "Installs a generated __ffi_init__ type attribute built from the "
                          "type's reflected fields.",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"None\"},"
                          "{\"type\":\"int\"}]}");
}
