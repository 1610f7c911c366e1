/* slots.c -- byte offsets of __slots__ members, read from their member descriptors.
 *
 * The hot paths read a few wrapper attributes (CObject._h, Function.release_gil, ...) straight
 * from the instance.  Where they live is what the class's member descriptor says: CPython
 * serves each __slots__ name with a descriptor of type PyMemberDescr_Type (stable ABI) whose
 * PyMemberDef (stable ABI) holds the offset.  The descriptor object itself is not in the
 * limited API, so its layout is spelled out below (CPython's PyDescr_COMMON followed by
 * d_member, the same in 3.9 to 3.13); the answer is accepted only when the PyMemberDef it
 * points at names the attribute as an object slot inside the instance, and when setting the
 * attribute on a fresh instance stores exactly there.  Anything else: -1, and the binding
 * reads the attribute through the generic API. */
#include <structmember.h>

typedef struct {
  PyObject_HEAD PyTypeObject* d_type;
  PyObject* d_name;
  PyObject* d_qualname;
  PyMemberDef* d_member;
} member_descr;

#ifndef T_OBJECT_EX
#define T_OBJECT_EX 16 /* Py_T_OBJECT_EX: an object slot, AttributeError when unset */
#endif

/* The offset the descriptor claims, or -1. */
static Py_ssize_t descr_offset(PyObject* cls, const char* name) {
  PyObject* d = PyObject_GetAttrString(cls, name); /* on the class: the descriptor itself */
  PyObject* size = PyObject_GetAttrString(cls, "__basicsize__");
  Py_ssize_t basic = size != NULL ? PyLong_AsSsize_t(size) : -1;
  Py_ssize_t off = -1;
  if (d != NULL && Py_TYPE(d) == &PyMemberDescr_Type) {
    const PyMemberDef* m = ((member_descr*)d)->d_member;
    if (m != NULL && m->name != NULL && strcmp(m->name, name) == 0 && m->type == T_OBJECT_EX &&
        m->offset >= (Py_ssize_t)(2 * sizeof(void*)) &&
        m->offset % (Py_ssize_t)sizeof(void*) == 0 &&
        m->offset + (Py_ssize_t)sizeof(PyObject*) <= basic)
      off = m->offset;
  }
  Py_XDECREF(d);
  Py_XDECREF(size);
  PyErr_Clear();
  return off;
}

/* Whether setting name on a fresh instance of cls stores the value at off. */
static int slot_stores_at(PyObject* cls, const char* name, Py_ssize_t off) {
  PyObject* obj = PyObject_CallMethod(cls, "__new__", "O", cls);
  PyObject* marker = PyList_New(0);
  int ok = 0;
  if (obj != NULL && marker != NULL && Py_TYPE(obj) == (PyTypeObject*)cls) {
    PyObject* old = PyObject_GetAttrString(obj, name);
    PyErr_Clear();
    if (PyObject_SetAttrString(obj, name, marker) == 0)
      ok = *(PyObject**)((char*)obj + off) == marker;
    if (old != NULL)
      PyObject_SetAttrString(obj, name, old);
    else
      PyObject_DelAttrString(obj, name);
    Py_XDECREF(old);
  }
  Py_XDECREF(marker);
  Py_XDECREF(obj);
  PyErr_Clear();
  return ok;
}

static Py_ssize_t slot_offset(PyObject* cls, const char* name) {
  Py_ssize_t off = descr_offset(cls, name);
  return off > 0 && slot_stores_at(cls, name, off) ? off : -1;
}

int64_t ffipy_slot_offset(intptr_t cls, const char* name) {
  return (int64_t)slot_offset((PyObject*)cls, name);
}

/* ---- sealed slots ------------------------------------------------------------------------
 * A slot the fast path trusts (CObject._h is an object address, Tensor._view a DLTensor
 * address, a container's _tvm_api an exchange table address) must not be writable from Python:
 * `obj._h = 12345` would hand the runtime a wild pointer.  Sealing replaces the class's
 * member descriptor by a READONLY one for the same offset (a member descriptor still: reads
 * stay as fast, and the interpreter's slot specialisation still applies); the writable one
 * stays with the binding, which alone stores into the slot. */

#ifndef READONLY
#define READONLY 1 /* Py_READONLY */
#endif

/* (name, writable descriptor) of each sealed slot: sealed_set() stores through them */
static struct {
  PyObject* name;
  PyObject* raw;
} sealed[8];
static int n_sealed;

int64_t ffipy_seal_slot(intptr_t cls_id, const char* name) {
  PyObject* cls = (PyObject*)cls_id;
  Py_ssize_t off = slot_offset(cls, name);
  if (off <= 0 || n_sealed == (int)(sizeof sealed / sizeof sealed[0])) return -1;
  /* the definition outlives the class (a type keeps pointers into it): never freed */
  PyMemberDef* def = (PyMemberDef*)calloc(1, sizeof(PyMemberDef));
  char* copy = (char*)malloc(strlen(name) + 1);
  PyObject* raw = PyObject_GetAttrString(cls, name);
  PyObject* key = PyUnicode_InternFromString(name);
  PyObject* d = NULL;
  if (def != NULL && copy != NULL && raw != NULL && key != NULL) {
    strcpy(copy, name);
    def->name = copy;
    def->type = T_OBJECT_EX;
    def->offset = off;
    def->flags = READONLY;
    d = PyDescr_NewMember((PyTypeObject*)cls, def);
  }
  if (d == NULL || PyObject_SetAttrString(cls, name, d) != 0) {
    Py_XDECREF(d);
    Py_XDECREF(raw);
    Py_XDECREF(key);
    free(def);
    free(copy);
    PyErr_Clear();
    return -1;
  }
  Py_DECREF(d);
  sealed[n_sealed].name = key;
  sealed[n_sealed].raw = raw;
  ++n_sealed;
  return (int64_t)off;
}

/* obj.name = v through the writable descriptor of a sealed slot (or plain setattr). */
static int sealed_set(PyObject* obj, PyObject* name, PyObject* v) {
  for (int i = 0; i < n_sealed; ++i) {
    if (sealed[i].name != name) continue; /* both interned */
    PyObject* r = PyObject_CallMethod(sealed[i].raw, "__set__", "OO", obj, v);
    Py_XDECREF(r);
    return r != NULL ? 0 : -1;
  }
  return PyObject_SetAttr(obj, name, v);
}
