/*
 * serialization.c -- the JSON graph (docs/abi.md §14.4, docs/python.md §4.1 pickling):
 * ffi.ToJSONGraph / ToJSONGraphString / FromJSONGraph / FromJSONGraphString.
 *
 * Format (byte-compatible with the reference implementation's writer):
 *   {"root_index": R, "nodes": [node, ...], "metadata": M}   (metadata only
 *   when not None)
 * and each node is {"type": T} or {"type": T, "data": D}:
 *   "None"                              no data
 *   "bool" / "int" / "float"            the JSON value
 *   "ffi.String"                        the text
 *   "ffi.Bytes"                         base64 text
 *   "DataType"                          "float32"
 *   "Device"                            [device_type, device_id]
 *   "ffi.BigInt"                        decimal text ([+-]digits, nothing else)
 *   "ffi.Shape"                         [extents]
 *   "ffi.Array" / "ffi.List"            [node indices]
 *   "ffi.Map" / "ffi.Dict"              [key index, value index, ...]
 *   any reflected type key              {"field": value, ...}
 *   a type with `__data_to_json__`       whatever that hook returns
 * Nodes are written children first, so the root comes last, and a value met
 * again reuses its node: POD values and strings by value (Map-key equality),
 * objects by identity, so sharing survives a round trip.  A reflected field
 * whose static type is None, bool, int, float or DataType holds its value
 * inline (a DataType as its string); other fields hold a node index.  A
 * container or object that contains itself cannot be written (ValueError).
 * Reflected objects are rebuilt with their type's creator and field setters; a
 * field the data leaves out takes its default, and a required one is TypeError.
 * A type attribute `__data_to_json__` (a Function (value) -> JSON value) takes
 * precedence over the fields of any object but the built-in containers and enum
 * members, and `__data_from_json__` ((data) -> value) reads that form back, as
 * upstream's serializer does: that is how libraries give tensors and modules a
 * JSON form.  Without one, tensors, functions, modules and raw pointers have
 * none: TypeError.
 * Malformed graphs are ValueError naming the node.
 */
#include <string.h>

#include "ext.h"

#define GRAPH_MAX_DEPTH 1000

/* ---- small JSON-value builders ---------------------------------------------------- */

static int map_put_str(TVMFFIObject** map, const char* key, TVMFFIAny* value) {
  TVMFFIAny k;
  if (tvmffi__str_to_any(kTVMFFIStr, key, strlen(key), &k) != 0) {
    tvmffi__any_release(value);
    return -1;
  }
  if (tvmffi__map_set(map, &k, value) != 0) {
    tvmffi__any_release(&k);
    tvmffi__any_release(value);
    return -1;
  }
  return 0;
}

/* Borrowed value of `key` in a Map/Dict, or NULL. */
static const TVMFFIAny* map_get(TVMFFIObject* map, const char* key) {
  TVMFFIAny k;
  k.type_index = kTVMFFIRawStr;
  k.zero_padding = 0;
  k.v_c_str = key;
  TVMFFIAny owned;
  if (tvmffi__container_key_acquire(&k, &owned) != 0) return NULL;
  uint64_t pos;
  TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(map);
  int rc = TVMFFIMapCellFind(cell, &owned, &pos);
  tvmffi__any_release(&owned);
  if (rc != 0 || pos == TVMFFI_MAP_ITER_END) return NULL;
  return TVMFFIMapCellValue(cell, pos);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int base64_encode(const char* data, size_t n, TVMFFIAny* out) {
  tvmffi__buf b = {NULL, 0, 0};
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)(unsigned char)data[i] << 16;
    if (i + 1 < n) v |= (uint32_t)(unsigned char)data[i + 1] << 8;
    if (i + 2 < n) v |= (uint32_t)(unsigned char)data[i + 2];
    char q[4] = {b64[(v >> 18) & 63], b64[(v >> 12) & 63], i + 1 < n ? b64[(v >> 6) & 63] : '=',
                 i + 2 < n ? b64[v & 63] : '='};
    if (tvmffi__buf_append(&b, q, 4) != 0) {
      tvmffi__buf_free(&b);
      return tvmffi__raise_oom();
    }
  }
  int rc = tvmffi__str_to_any(kTVMFFIStr, b.data ? b.data : "", b.size, out);
  tvmffi__buf_free(&b);
  return rc;
}

static int b64_val(char c) {
  const char* p = c ? strchr(b64, c) : NULL;
  return p ? (int)(p - b64) : -1;
}

static int base64_decode(TVMFFIByteArray s, int64_t node, TVMFFIAny* out) {
  if (s.size % 4 != 0)
    return tvmffi__raise("ValueError", "ffi.FromJSONGraph: node %lld: invalid base64 data",
                         (long long)node);
  tvmffi__buf b = {NULL, 0, 0};
  for (size_t i = 0; i < s.size; i += 4) {
    int v[4], pad = 0;
    for (int k = 0; k < 4; ++k) {
      char c = s.data[i + k];
      if (c == '=' && i + 4 == s.size && k >= 2) {
        v[k] = 0;
        ++pad;
      } else if (pad || (v[k] = b64_val(c)) < 0) {
        tvmffi__buf_free(&b);
        return tvmffi__raise("ValueError", "ffi.FromJSONGraph: node %lld: invalid base64 data",
                             (long long)node);
      }
    }
    uint32_t x = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
    char bytes[3] = {(char)(x >> 16), (char)(x >> 8), (char)x};
    if (tvmffi__buf_append(&b, bytes, (size_t)(3 - pad)) != 0) {
      tvmffi__buf_free(&b);
      return tvmffi__raise_oom();
    }
  }
  int rc = tvmffi__str_to_any(kTVMFFIBytes, b.data ? b.data : "", b.size, out);
  tvmffi__buf_free(&b);
  return rc;
}

/* ---- writer ------------------------------------------------------------------------ */

typedef struct {
  tvmffi__buf nodes;  /* TVMFFIAny[]: owned node maps */
  TVMFFIObject* memo; /* ffi.Dict: value -> node index (-1 while an object is being written) */
  int depth;
} graph_writer;

static int64_t num_nodes(const graph_writer* w) {
  return (int64_t)(w->nodes.size / sizeof(TVMFFIAny));
}

/* Appends a node {"type": type, "data": *data} (data moved; NULL: none). */
static int64_t add_node(graph_writer* w, const char* type, TVMFFIAny* data) {
  TVMFFIObject* node = tvmffi__map_new(kTVMFFIMap);
  if (node == NULL) {
    if (data) tvmffi__any_release(data);
    return -1;
  }
  TVMFFIAny t;
  if (tvmffi__str_to_any(kTVMFFIStr, type, strlen(type), &t) != 0 ||
      map_put_str(&node, "type", &t) != 0 || (data && map_put_str(&node, "data", data) != 0)) {
    if (data) tvmffi__any_release(data);
    tvmffi__decref(node);
    return -1;
  }
  TVMFFIAny v;
  tvmffi__any_set_obj(&v, node);
  if (tvmffi__buf_append(&w->nodes, (const char*)&v, sizeof(v)) != 0) {
    tvmffi__decref(node);
    tvmffi__raise_oom();
    return -1;
  }
  return num_nodes(w) - 1;
}

/* memo[key] = index (key copied). */
static int memo_set(graph_writer* w, const TVMFFIAny* key, int64_t index) {
  TVMFFIAny k, v;
  tvmffi__any_copy(key, &k);
  tvmffi__any_set_int(&v, index);
  if (tvmffi__map_set(&w->memo, &k, &v) != 0) {
    tvmffi__any_release(&k);
    return -1;
  }
  return 0;
}

static int64_t write_any(graph_writer* w, const TVMFFIAny* v);

/* Array of owned Ints, built from a staging buffer. */
static int ints_to_array(tvmffi__buf* ints, TVMFFIAny* out) {
  size_t n = ints->size / sizeof(int64_t);
  TVMFFIObject* arr = tvmffi__array_new((int64_t)n);
  if (arr == NULL) return -1;
  for (size_t i = 0; i < n; ++i) {
    TVMFFIAny x;
    tvmffi__any_set_int(&x, ((int64_t*)ints->data)[i]);
    tvmffi__array_push_move(arr, &x);
  }
  tvmffi__any_set_obj(out, arr);
  return 0;
}

static int push_i64(tvmffi__buf* b, int64_t x) {
  return tvmffi__buf_append(b, (const char*)&x, sizeof(x)) ? tvmffi__raise_oom() : 0;
}

/* Does a field of this static type keep its value inline in the object's data? */
static int field_inline(int32_t static_type_index) {
  return static_type_index == kTVMFFINone || static_type_index == kTVMFFIBool ||
         static_type_index == kTVMFFIInt || static_type_index == kTVMFFIFloat ||
         static_type_index == kTVMFFIDataType;
}

typedef struct {
  graph_writer* w;
  TVMFFIObject* fields; /* ffi.Map name -> inline value or node index */
} field_write_ctx;

static int write_field(void* ctx, const TVMFFIFieldInfo* f, const TVMFFIAny* value) {
  field_write_ctx* fc = (field_write_ctx*)ctx;
  TVMFFIAny k, v;
  if (field_inline(f->field_static_type_index) && value->type_index < kTVMFFIStaticObjectBegin) {
    if (value->type_index == kTVMFFIDataType) {
      if (TVMFFIDataTypeToString(&value->v_dtype, &v) != 0) return -1;
    } else {
      v = *value;
    }
  } else {
    int64_t idx = write_any(fc->w, value);
    if (idx < 0) return -1;
    tvmffi__any_set_int(&v, idx);
  }
  if (tvmffi__str_to_any(kTVMFFIStr, f->name.data, f->name.size, &k) != 0) {
    tvmffi__any_release(&v);
    return -1;
  }
  if (tvmffi__map_set(&fc->fields, &k, &v) != 0) {
    tvmffi__any_release(&k);
    tvmffi__any_release(&v);
    return -1;
  }
  return 0;
}

static const TVMFFITypeAttrColumn* g_to_json_col;
static const TVMFFITypeAttrColumn* g_from_json_col;

/* The type's `__data_to_json__` hook (borrowed), or NULL. */
static TVMFFIObject* to_json_hook(int32_t t) {
  return tvmffi__ext_type_hook("__data_to_json__", &g_to_json_col, t);
}

/* The "data" of an object node; its children are written first. */
static int object_data(graph_writer* w, TVMFFIObject* obj, TVMFFIAny* data) {
  int32_t t = obj->type_index;
  tvmffi__buf idx = {NULL, 0, 0};
  int rc = 0;
  TVMFFIObject* hook;
  if (t == kTVMFFIArray || t == kTVMFFIList) {
    TVMFFISeqCell* c = TVMFFISeqGetCellPtr(obj);
    for (int64_t i = 0; rc == 0 && i < c->size; ++i) {
      int64_t k = write_any(w, &((TVMFFIAny*)c->data)[i]);
      rc = k < 0 ? -1 : push_i64(&idx, k);
    }
  } else if (t == kTVMFFIMap || t == kTVMFFIDict) {
    TVMFFIMapCell* c = TVMFFIMapGetCellPtr(obj);
    for (uint64_t p = TVMFFIMapCellIterBegin(c); rc == 0 && p != TVMFFI_MAP_ITER_END;
         p = TVMFFIMapCellIterNext(c, p)) {
      int64_t k = write_any(w, TVMFFIMapCellKey(c, p));
      int64_t v = k < 0 ? -1 : write_any(w, TVMFFIMapCellValue(c, p));
      rc = v < 0 || push_i64(&idx, k) != 0 || push_i64(&idx, v) != 0 ? -1 : 0;
    }
  } else if (t == kTVMFFIShape) {
    TVMFFIShapeCell* c = TVMFFIShapeGetCellPtr(obj);
    for (size_t i = 0; rc == 0 && i < c->size; ++i) rc = push_i64(&idx, c->data[i]);
  } else if (tvmffi__enum_is_instance_type(t)) {
    return tvmffi__enum_index_of(obj, data); /* a singleton: read back by its index */
  } else if ((hook = to_json_hook(t)) != NULL) {
    TVMFFIAny self;
    tvmffi__any_set_obj(&self, obj); /* borrowed for the call */
    return tvmffi__function_call(hook, &self, 1, data);
  } else {
    field_write_ctx fc = {w, tvmffi__map_new(kTVMFFIMap)};
    if (fc.fields == NULL) return -1;
    if (tvmffi__ext_visit_fields(obj, 0, write_field, &fc) != 0) {
      tvmffi__decref(fc.fields);
      return -1;
    }
    tvmffi__any_set_obj(data, fc.fields);
    return 0;
  }
  if (rc == 0) rc = ints_to_array(&idx, data);
  tvmffi__buf_free(&idx);
  return rc;
}

/* Node data and type of a value that is not an object; 1 when v is an object. */
static int pod_data(const TVMFFIAny* v, const char** type, TVMFFIAny* data) {
  TVMFFIByteArray ba;
  *type = NULL;
  if (tvmffi__any_as_str(v, &ba)) {
    *type = "ffi.String";
    return tvmffi__str_to_any(kTVMFFIStr, ba.data, ba.size, data);
  }
  if (tvmffi__any_as_bytes(v, &ba)) {
    *type = "ffi.Bytes";
    return base64_encode(ba.data, ba.size, data);
  }
  switch (v->type_index) {
    case kTVMFFINone:
      *type = "None";
      tvmffi__any_set_none(data);
      return 0;
    case kTVMFFIBool:
    case kTVMFFIInt:
    case kTVMFFIFloat:
      *data = *v;
      *type = v->type_index == kTVMFFIBool ? "bool" : v->type_index == kTVMFFIInt ? "int" : "float";
      return 0;
    case kTVMFFIDataType:
      *type = "DataType";
      return TVMFFIDataTypeToString(&v->v_dtype, data);
    case kTVMFFIBigInt: { /* decimal text, as upstream writes it */
      tvmffi__buf b = {NULL, 0, 0};
      int rc =
          tvmffi__big_int_to_decimal(v, &b) || tvmffi__str_to_any(kTVMFFIStr, b.data, b.size, data);
      tvmffi__buf_free(&b);
      *type = "ffi.BigInt";
      return rc ? -1 : 0;
    }
    case kTVMFFIDevice: {
      tvmffi__buf b = {NULL, 0, 0};
      int rc = push_i64(&b, v->v_device.device_type) || push_i64(&b, v->v_device.device_id) ||
               ints_to_array(&b, data);
      tvmffi__buf_free(&b);
      *type = "Device";
      return rc ? -1 : 0;
    }
    default:
      break;
  }
  if (v->type_index < kTVMFFIStaticObjectBegin)
    return tvmffi__raise("TypeError", "ffi.ToJSONGraph: cannot serialize a value of type `%s`",
                         tvmffi__any_type_key(v));
  return 1;
}

static int64_t write_object(graph_writer* w, const TVMFFIAny* key) {
  TVMFFIObject* obj = key->v_obj;
  int32_t t = obj->type_index;
  int ok = t == kTVMFFIArray || t == kTVMFFIList || t == kTVMFFIMap || t == kTVMFFIDict ||
           t == kTVMFFIShape || (t >= kTVMFFIDynObjectBegin && tvmffi__ext_num_fields(t) > 0) ||
           to_json_hook(t) != NULL;
  if (!ok)
    return tvmffi__raise("TypeError", "ffi.ToJSONGraph: cannot serialize an object of type `%s`",
                         tvmffi__type_key(t));
  if (w->depth >= GRAPH_MAX_DEPTH)
    return tvmffi__raise("ValueError", "ffi.ToJSONGraph: nesting deeper than %d levels",
                         GRAPH_MAX_DEPTH);
  if (memo_set(w, key, -1) != 0) return -1; /* in progress: meeting it again is a cycle */
  w->depth++;
  TVMFFIAny data;
  int rc = object_data(w, obj, &data);
  w->depth--;
  if (rc != 0) return -1;
  return add_node(w, tvmffi__type_key(t), &data);
}

static int64_t write_any(graph_writer* w, const TVMFFIAny* view) {
  TVMFFIAny key;
  if (tvmffi__container_key_acquire(view, &key) != 0) return -1;
  uint64_t pos;
  TVMFFIMapCell* mc = TVMFFIMapGetCellPtr(w->memo);
  if (TVMFFIMapCellFind(mc, &key, &pos) == 0 && pos != TVMFFI_MAP_ITER_END) {
    int64_t index = TVMFFIMapCellValue(mc, pos)->v_int64;
    tvmffi__any_release(&key);
    if (index < 0)
      return tvmffi__raise("ValueError",
                           "ffi.ToJSONGraph: cycle detected: a value contains itself");
    return index;
  }
  const char* type;
  TVMFFIAny data;
  int64_t index;
  int rc = pod_data(&key, &type, &data);
  if (rc < 0) {
    index = -1;
  } else if (rc == 0) {
    index = add_node(w, type, key.type_index == kTVMFFINone ? NULL : &data);
  } else {
    index = write_object(w, &key);
  }
  if (index >= 0 && memo_set(w, &key, index) != 0) index = -1;
  tvmffi__any_release(&key);
  return index;
}

static int to_json_graph(const TVMFFIAny* value, const TVMFFIAny* metadata, TVMFFIAny* out) {
  graph_writer w = {{NULL, 0, 0}, tvmffi__map_new(kTVMFFIDict), 0};
  if (w.memo == NULL) return -1;
  int rc = -1;
  TVMFFIObject* top = NULL;
  int64_t root = write_any(&w, value);
  if (root < 0) goto done;
  int64_t n = num_nodes(&w);
  TVMFFIObject* nodes = tvmffi__array_new(n);
  if (nodes == NULL) goto done;
  for (int64_t i = 0; i < n; ++i) tvmffi__array_push_move(nodes, &((TVMFFIAny*)w.nodes.data)[i]);
  w.nodes.size = 0;
  top = tvmffi__map_new(kTVMFFIMap);
  if (top == NULL) {
    tvmffi__decref(nodes);
    goto done;
  }
  TVMFFIAny ri, nv, md;
  tvmffi__any_set_int(&ri, root);
  tvmffi__any_set_obj(&nv, nodes);
  if (map_put_str(&top, "root_index", &ri) != 0 || map_put_str(&top, "nodes", &nv) != 0) goto done;
  TVMFFIAny mv = tvmffi__ext_peek(metadata);
  if (mv.type_index != kTVMFFINone) {
    if (TVMFFIAnyViewToOwnedAny(&mv, &md) != 0 || map_put_str(&top, "metadata", &md) != 0)
      goto done;
  }
  tvmffi__any_set_obj(out, top);
  top = NULL;
  rc = 0;
done:
  if (top) tvmffi__decref(top);
  for (int64_t i = 0; i < num_nodes(&w); ++i) tvmffi__any_release(&((TVMFFIAny*)w.nodes.data)[i]);
  tvmffi__buf_free(&w.nodes);
  tvmffi__decref(w.memo);
  return rc;
}

/* ---- reader ------------------------------------------------------------------------ */

typedef struct {
  const TVMFFIAny* nodes; /* items of the nodes array */
  int64_t n;
  TVMFFIAny* built; /* per node: owned result, or None until built */
  char* state;      /* 0 unbuilt, 1 in progress, 2 done */
  int depth;
} graph_reader;

static int bad(int64_t node, const char* what) {
  return tvmffi__raise("ValueError", "ffi.FromJSONGraph: node %lld: %s", (long long)node, what);
}

static int read_node(graph_reader* r, int64_t i, TVMFFIAny* out);

/* The node index stored in v (an int within range). */
static int node_ref(graph_reader* r, int64_t from, const TVMFFIAny* v, int64_t* out) {
  if (v->type_index != kTVMFFIInt || v->v_int64 < 0 || v->v_int64 >= r->n)
    return bad(from, "reference is not a valid node index");
  *out = v->v_int64;
  return 0;
}

/* The int array in `data` (Array/List of Int). */
static int int_items(const TVMFFIAny* data, int64_t node, const TVMFFIAny** items, int64_t* n) {
  if (data == NULL || (data->type_index != kTVMFFIArray && data->type_index != kTVMFFIList))
    return bad(node, "\"data\" must be an array");
  TVMFFISeqCell* c = TVMFFISeqGetCellPtr(data->v_obj);
  *items = (const TVMFFIAny*)c->data;
  *n = c->size;
  for (int64_t i = 0; i < *n; ++i)
    if ((*items)[i].type_index != kTVMFFIInt) return bad(node, "\"data\" must hold integers");
  return 0;
}

/* Reads node j (a child of node i) into an owned value. */
static int read_child(graph_reader* r, int64_t i, const TVMFFIAny* ref, TVMFFIAny* out) {
  int64_t j = 0;
  if (node_ref(r, i, ref, &j) != 0) return -1;
  return read_node(r, j, out);
}

/* The value a field of a POD static type holds inline in its object's data. */
static int read_inline_field(int64_t i, const char* name, int32_t static_type, const TVMFFIAny* v,
                             TVMFFIAny* out) {
  TVMFFIByteArray text;
  if (static_type == kTVMFFIDataType && tvmffi__any_as_str(v, &text)) {
    out->type_index = kTVMFFIDataType;
    out->zero_padding = 0;
    out->v_int64 = 0;
    return TVMFFIDataTypeFromString(&text, &out->v_dtype);
  }
  int ok =
      v->type_index == kTVMFFINone ||
      (v->type_index == kTVMFFIBool && static_type == kTVMFFIBool) ||
      (v->type_index == kTVMFFIInt && (static_type == kTVMFFIInt || static_type == kTVMFFIFloat)) ||
      (v->type_index == kTVMFFIFloat && static_type == kTVMFFIFloat);
  if (!ok)
    return tvmffi__raise("ValueError",
                         "ffi.FromJSONGraph: node %lld: field `%s` holds a `%s`, "
                         "expected its value inline",
                         (long long)i, name, tvmffi__any_type_key(v));
  *out = *v;
  return 0;
}

static int read_object(graph_reader* r, int64_t i, const char* type, const TVMFFIAny* data,
                       TVMFFIAny* out) {
  TVMFFIByteArray key = {type, strlen(type)};
  int32_t t;
  if (TVMFFITypeKeyToIndex(&key, &t) != 0) {
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    TVMFFIObjectDecRef(err);
    return bad(i, "unknown type key");
  }
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(t);
  if (tvmffi__enum_is_instance_type(t)) {
    if (data == NULL) return bad(i, "\"data\" of an enum member must be its index");
    return tvmffi__enum_member_at(t, data, out);
  }
  TVMFFIObject* hook = tvmffi__ext_type_hook("__data_from_json__", &g_from_json_col, t);
  if (hook != NULL) {
    TVMFFIAny none;
    tvmffi__any_set_none(&none);
    return tvmffi__function_call(hook, (TVMFFIAny*)(data != NULL ? data : &none), 1, out);
  }
  if (data == NULL || (data->type_index != kTVMFFIMap && data->type_index != kTVMFFIDict))
    return bad(i, "\"data\" of an object must be a map of field -> node index");
  /* rebuilt like ffi.MakeObjectFromPackedArgs builds: creator or __ffi_new__ */
  TVMFFIObject* obj = tvmffi__object_create("ffi.FromJSONGraph", t);
  if (obj == NULL) return -1;
  /* Publish before reading fields: a field may lead back here. */
  tvmffi__incref(obj);
  tvmffi__any_set_obj(&r->built[i], obj);
  for (int32_t d = 0; d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* ti = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t k = 0; k < ti->num_fields; ++k) {
      const TVMFFIFieldInfo* f = &ti->fields[k];
      char name[256];
      if (f->name.size >= sizeof(name)) continue;
      memcpy(name, f->name.data, f->name.size);
      name[f->name.size] = '\0';
      const TVMFFIAny* ref = map_get(data->v_obj, name);
      if (ref == NULL) { /* the field's default, or TypeError for a required one */
        if (tvmffi__field_set_missing("ffi.FromJSONGraph", f, obj) != 0) goto fail;
        continue;
      }
      if (f->setter == NULL) {
        tvmffi__raise("TypeError", "ffi.FromJSONGraph: node %lld: field `%s` of `%s` has no setter",
                      (long long)i, name, type);
        goto fail;
      }
      TVMFFIAny v;
      if (field_inline(f->field_static_type_index)) {
        if (read_inline_field(i, name, f->field_static_type_index, ref, &v) != 0) goto fail;
      } else if (read_child(r, i, ref, &v) != 0) {
        goto fail;
      }
      int rc = tvmffi__field_store(f, obj, &v);
      tvmffi__any_release(&v);
      if (rc != 0) goto fail;
    }
  }
  tvmffi__any_set_obj(out, obj);
  return 0;
fail:
  tvmffi__decref(obj);
  return -1;
}

static int read_container(graph_reader* r, int64_t i, int32_t t, const TVMFFIAny* data,
                          TVMFFIAny* out) {
  const TVMFFIAny* items;
  int64_t n;
  if (int_items(data, i, &items, &n) != 0) return -1;
  if (t == kTVMFFIShape) {
    int64_t* ext = (int64_t*)malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (ext == NULL) return tvmffi__raise_oom();
    for (int64_t k = 0; k < n; ++k) ext[k] = items[k].v_int64;
    TVMFFIObject* s = tvmffi__shape_new(ext, (size_t)n);
    free(ext);
    if (s == NULL) return -1;
    tvmffi__any_set_obj(out, s);
    return 0;
  }
  int is_map = t == kTVMFFIMap || t == kTVMFFIDict;
  if (is_map && n % 2 != 0) return bad(i, "map \"data\" must hold key/value index pairs");
  TVMFFIObject* obj = t == kTVMFFIArray  ? tvmffi__array_new(n)
                      : t == kTVMFFIList ? tvmffi__list_new(n)
                                         : tvmffi__map_new(t);
  if (obj == NULL) return -1;
  /* Lists and Dicts keep their identity while filled: publish them first so
   * cycles resolve to the object under construction. */
  int early = t == kTVMFFIList || t == kTVMFFIDict;
  if (early) {
    tvmffi__incref(obj);
    tvmffi__any_set_obj(&r->built[i], obj);
  }
  for (int64_t k = 0; k < n; k += is_map ? 2 : 1) {
    TVMFFIAny v;
    if (read_child(r, i, &items[is_map ? k + 1 : k], &v) != 0) goto fail;
    if (!is_map) {
      TVMFFISeqCell* c = TVMFFISeqGetCellPtr(obj);
      ((TVMFFIAny*)c->data)[c->size++] = v;
      continue;
    }
    TVMFFIAny key;
    if (read_child(r, i, &items[k], &key) != 0) {
      tvmffi__any_release(&v);
      goto fail;
    }
    if (tvmffi__map_set(&obj, &key, &v) != 0) {
      tvmffi__any_release(&key);
      tvmffi__any_release(&v);
      goto fail;
    }
  }
  tvmffi__any_set_obj(out, obj);
  return 0;
fail:
  tvmffi__decref(obj);
  return -1;
}

static int read_node(graph_reader* r, int64_t i, TVMFFIAny* out) {
  if (r->state[i] == 2 || (r->state[i] == 1 && r->built[i].type_index != kTVMFFINone)) {
    tvmffi__any_copy(&r->built[i], out);
    return 0;
  }
  if (r->state[i] == 1) return bad(i, "cycle through an immutable Array or Map");
  if (r->depth >= GRAPH_MAX_DEPTH) return bad(i, "nesting too deep");
  const TVMFFIAny* node = &r->nodes[i];
  if (node->type_index != kTVMFFIMap && node->type_index != kTVMFFIDict)
    return bad(i, "a node must be an object");
  const TVMFFIAny* tv = map_get(node->v_obj, "type");
  TVMFFIByteArray tba;
  char type[256];
  if (tv == NULL || !tvmffi__any_as_str(tv, &tba) || tba.size >= sizeof(type))
    return bad(i, "missing \"type\" string");
  memcpy(type, tba.data, tba.size);
  type[tba.size] = '\0';
  const TVMFFIAny* data = map_get(node->v_obj, "data");
  r->state[i] = 1;
  r->depth++;
  TVMFFIAny v;
  tvmffi__any_set_none(&v);
  int rc = 0;
  if (strcmp(type, "None") == 0) {
  } else if (strcmp(type, "int") == 0 || strcmp(type, "bool") == 0) {
    if (data == NULL || (data->type_index != kTVMFFIInt && data->type_index != kTVMFFIBool))
      rc = bad(i, "\"data\" must be an integer");
    else if (type[0] == 'b')
      tvmffi__any_set_bool(&v, (int)data->v_int64);
    else
      tvmffi__any_set_int(&v, data->v_int64);
  } else if (strcmp(type, "float") == 0) {
    if (data == NULL || (data->type_index != kTVMFFIFloat && data->type_index != kTVMFFIInt)) {
      rc = bad(i, "\"data\" must be a number");
    } else {
      v.type_index = kTVMFFIFloat;
      v.v_float64 = data->type_index == kTVMFFIFloat ? data->v_float64 : (double)data->v_int64;
    }
  } else if (strcmp(type, "ffi.String") == 0 || strcmp(type, "ffi.Bytes") == 0 ||
             strcmp(type, "DataType") == 0) {
    TVMFFIByteArray s;
    if (data == NULL || !tvmffi__any_as_str(data, &s)) {
      rc = bad(i, "\"data\" must be a string");
    } else if (type[0] == 'D') {
      v.type_index = kTVMFFIDataType;
      rc = TVMFFIDataTypeFromString(&s, &v.v_dtype);
    } else if (strcmp(type, "ffi.Bytes") == 0) {
      rc = base64_decode(s, i, &v);
    } else {
      rc = tvmffi__str_to_any(kTVMFFIStr, s.data, s.size, &v);
    }
  } else if (strcmp(type, "ffi.BigInt") == 0) {
    TVMFFIByteArray s;
    if (data == NULL || !tvmffi__any_as_str(data, &s)) {
      rc = bad(i, "\"data\" of an ffi.BigInt must be a decimal string");
    } else {
      rc = tvmffi__big_int_from_decimal(s.data, s.size, &v);
      if (rc == 1) rc = bad(i, "\"data\" of an ffi.BigInt must be a decimal string");
    }
  } else if (strcmp(type, "Device") == 0) {
    const TVMFFIAny* items;
    int64_t n;
    rc = int_items(data, i, &items, &n);
    if (rc == 0 && n != 2) rc = bad(i, "a Device is [device_type, device_id]");
    if (rc == 0) {
      v.type_index = kTVMFFIDevice;
      v.v_device.device_type = (DLDeviceType)items[0].v_int64;
      v.v_device.device_id = (int32_t)items[1].v_int64;
    }
  } else if (strcmp(type, "ffi.Array") == 0 || strcmp(type, "ffi.List") == 0 ||
             strcmp(type, "ffi.Map") == 0 || strcmp(type, "ffi.Dict") == 0 ||
             strcmp(type, "ffi.Shape") == 0) {
    int32_t t = type[4] == 'A'   ? kTVMFFIArray
                : type[4] == 'L' ? kTVMFFIList
                : type[4] == 'M' ? kTVMFFIMap
                : type[4] == 'D' ? kTVMFFIDict
                                 : kTVMFFIShape;
    rc = read_container(r, i, t, data, &v);
  } else {
    rc = read_object(r, i, type, data, &v);
  }
  r->depth--;
  if (rc != 0) return -1;
  tvmffi__any_release(&r->built[i]);
  tvmffi__any_copy(&v, &r->built[i]);
  r->state[i] = 2;
  *out = v;
  return 0;
}

static int from_json_graph(const TVMFFIAny* view, TVMFFIAny* out) {
  TVMFFIAny g = tvmffi__ext_peek(view);
  if (g.type_index != kTVMFFIMap && g.type_index != kTVMFFIDict)
    return tvmffi__raise("TypeError", "ffi.FromJSONGraph: expected a JSON object (Map), got `%s`",
                         tvmffi__any_type_key(&g));
  const TVMFFIAny* root = map_get(g.v_obj, "root_index");
  const TVMFFIAny* nodes = map_get(g.v_obj, "nodes");
  if (nodes == NULL || (nodes->type_index != kTVMFFIArray && nodes->type_index != kTVMFFIList))
    return tvmffi__raise("ValueError", "ffi.FromJSONGraph: missing \"nodes\" array");
  TVMFFISeqCell* c = TVMFFISeqGetCellPtr(nodes->v_obj);
  if (root == NULL || root->type_index != kTVMFFIInt || root->v_int64 < 0 ||
      root->v_int64 >= c->size)
    return tvmffi__raise("ValueError", "ffi.FromJSONGraph: \"root_index\" must index \"nodes\"");
  graph_reader r = {(const TVMFFIAny*)c->data, c->size, NULL, NULL, 0};
  r.built = (TVMFFIAny*)calloc((size_t)r.n, sizeof(TVMFFIAny));
  r.state = (char*)calloc((size_t)r.n, 1);
  int rc = -1;
  if (r.built == NULL || r.state == NULL)
    tvmffi__raise_oom();
  else
    rc = read_node(&r, root->v_int64, out);
  for (int64_t i = 0; r.built != NULL && i < r.n; ++i) tvmffi__any_release(&r.built[i]);
  free(r.built);
  free(r.state);
  return rc;
}

/* ---- globals -------------------------------------------------------------------------- */

static int g_to_graph(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  static const char sig[] = "ffi.ToJSONGraph(0: Any, 1: Any) -> Any";
  if (n != 1 && tvmffi__args_count(sig, n, 2) != 0) return -1;
  TVMFFIAny none;
  tvmffi__any_set_none(&none);
  return to_json_graph(&args[0], n == 2 ? &args[1] : &none, result);
}

static int g_to_graph_string(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  static const char sig[] = "ffi.ToJSONGraphString(0: Any, 1: Any) -> str";
  if (n != 1 && tvmffi__args_count(sig, n, 2) != 0) return -1;
  TVMFFIAny none, graph;
  tvmffi__any_set_none(&none);
  if (to_json_graph(&args[0], n == 2 ? &args[1] : &none, &graph) != 0) return -1;
  TVMFFIByteArray name = {"ffi.json.Stringify", 18};
  TVMFFIObjectHandle f = NULL;
  int rc = TVMFFIFunctionGetGlobal(&name, &f);
  if (rc == 0) rc = tvmffi__function_call(f, &graph, 1, result);
  TVMFFIObjectDecRef(f);
  tvmffi__any_release(&graph);
  return rc;
}

static int g_from_graph(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  if (tvmffi__args_count("ffi.FromJSONGraph(0: Any) -> Any", n, 1) != 0) return -1;
  return from_json_graph(&args[0], result);
}

static int g_from_graph_string(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  static const char sig[] = "ffi.FromJSONGraphString(0: str) -> Any";
  TVMFFIByteArray s;
  if (tvmffi__args_count(sig, n, 1) != 0 || tvmffi__arg_str(sig, args, 0, &s) != 0) return -1;
  TVMFFIByteArray name = {"ffi.json.Parse", 14};
  TVMFFIObjectHandle f = NULL;
  TVMFFIAny graph;
  tvmffi__any_set_none(&graph);
  int rc = TVMFFIFunctionGetGlobal(&name, &f);
  if (rc == 0) rc = tvmffi__function_call(f, (TVMFFIAny*)&args[0], 1, &graph);
  TVMFFIObjectDecRef(f);
  if (rc == 0) rc = from_json_graph(&graph, result);
  tvmffi__any_release(&graph);
  return rc;
}

void tvmffi__serialization_globals_init(void) {
  /* Code built with upstream's headers looks these columns up before any type
   * registers a hook; upstream's runtime creates them empty. */
  static const char* const columns[] = {"__data_to_json__", "__data_from_json__"};
  for (int i = 0; i < 2; ++i) {
    TVMFFIByteArray name = {columns[i], strlen(columns[i])};
    TVMFFIAny none;
    tvmffi__any_set_none(&none);
    if (TVMFFITypeRegisterAttr(kTVMFFINone, &name, &none) != 0)
      tvmffi__fatal("cannot create the %s column", columns[i]);
  }
  tvmffi__register_global("ffi.ToJSONGraph", g_to_graph,
                          "Serializes a value as a JSON graph (JSON values).",
                          SCHEMA_FN("Any", ARG("Any") ARG("Any")));
  tvmffi__register_global("ffi.ToJSONGraphString", g_to_graph_string,
                          "Serializes a value as JSON graph text.",
                          SCHEMA_FN("str", ARG("Any") ARG("Any")));
  tvmffi__register_global("ffi.FromJSONGraph", g_from_graph,
                          "Rebuilds a value from a JSON graph (JSON values).",
                          SCHEMA_FN("Any", ARG("Any")));
  tvmffi__register_global("ffi.FromJSONGraphString", g_from_graph_string,
                          "Rebuilds a value from JSON graph text.", SCHEMA_FN("Any", ARG("str")));
}
