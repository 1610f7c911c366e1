/*
 * test_visit_error_context.c -- ffi.VisitErrorContext.FindAccessPaths
 * (tvm_ffi_extra(3)): full matches through fields, arrays and maps in
 * depth-first order, unanchored patterns, no match, None entries and repeated
 * entries in the recorded pattern, allow_prefix_match, a root-only match,
 * argument errors and refcounts.  The context object is built the way C++
 * code compiled against the reference headers builds it: its own allocation
 * of the registered type, members after the header.
 */
#include "check.h"

typedef struct {
  TVMFFIObject header;
  TVMFFIAny f[2]; /* +24 "a", +40 "b" */
} node;

typedef struct {
  TVMFFIObject header;
  TVMFFIObject* reverse_visit_pattern; /* +24 */
  TVMFFIObject* prev_error_context;    /* +32 */
} context;

static int g_live;
static int32_t t_node, t_context;

static void node_deleter(void* self, int flags) {
  node* n = (node*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong)
    for (int i = 0; i < 2; ++i) check_any_release(&n->f[i]);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    free(self);
    --g_live;
  }
}

static void context_deleter(void* self, int flags) {
  context* c = (context*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    if (c->reverse_visit_pattern) TVMFFIObjectDecRef(c->reverse_visit_pattern);
    if (c->prev_error_context) TVMFFIObjectDecRef(c->prev_error_context);
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    free(self);
    --g_live;
  }
}

static void register_node(void) {
  static const char* const names[2] = {"a", "b"};
  t_node = check_type_with_any_fields("vectest.Node", (int32_t)sizeof(node), names, 2,
                                      check_field_get_any);
}

static TVMFFIAny none(void) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  return a;
}

/* New node owning copies of the two field views. */
static TVMFFIAny mk(TVMFFIAny a, TVMFFIAny b) {
  node* n = (node*)calloc(1, sizeof(node));
  CHECK(n != NULL);
  n->header.combined_ref_count = UINT64_C(0x100000001);
  n->header.type_index = t_node;
  n->header.deleter = node_deleter;
  ++g_live;
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&a, &n->f[0]));
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&b, &n->f[1]));
  return check_any_obj(n);
}

static TVMFFIAny container(const char* ctor, TVMFFIAny* items, int32_t n) {
  TVMFFIAny r;
  CHECK_OK(check_call_global(ctor, items, n, &r));
  return r;
}

/* A context whose pattern is a List of the given views (innermost first). */
static TVMFFIAny make_context(TVMFFIAny* pattern, int32_t n) {
  TVMFFIAny list = container("ffi.List", pattern, n);
  context* c = (context*)calloc(1, sizeof(context));
  CHECK(c != NULL);
  c->header.combined_ref_count = UINT64_C(0x100000001);
  c->header.type_index = t_context;
  c->header.deleter = context_deleter;
  c->reverse_visit_pattern = list.v_obj; /* takes the list's reference */
  ++g_live;
  return check_any_obj(c);
}

/* Steps of a path as "kind:key" text joined by spaces ("" for the root). */
static void path_text(TVMFFIObject* path, char* out, size_t cap) {
  TVMFFIObject* steps[16];
  int n = 0;
  for (TVMFFIObject* p = path; *(TVMFFIObject**)((char*)p + 24) != NULL;
       p = *(TVMFFIObject**)((char*)p + 24)) {
    CHECK(n < 16);
    steps[n++] = *(TVMFFIObject**)((char*)p + 32);
  }
  out[0] = '\0';
  for (int i = n - 1; i >= 0; --i) {
    int32_t kind = *(int32_t*)((char*)steps[i] + 24);
    TVMFFIAny* key = (TVMFFIAny*)((char*)steps[i] + 32);
    char buf[64];
    const char* sep = i == n - 1 ? "" : " ";
    if (key->type_index == kTVMFFIInt)
      snprintf(buf, sizeof(buf), "%s%d:%lld", sep, kind, (long long)key->v_int64);
    else if (key->type_index == kTVMFFISmallStr)
      snprintf(buf, sizeof(buf), "%s%d:%.*s", sep, kind, (int)key->small_str_len, key->v_bytes);
    else
      snprintf(buf, sizeof(buf), "%s%d:?", sep, kind);
    strncat(out, buf, cap - strlen(out) - 1);
  }
}

/* FindAccessPaths(root, ctx, prefix) rendered as path texts joined by " | ". */
static void find(TVMFFIAny root, TVMFFIAny ctx, int prefix, const char* expect) {
  TVMFFIAny args[3] = {root, ctx, check_any_int(prefix)};
  args[2].type_index = kTVMFFIBool;
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.VisitErrorContext.FindAccessPaths", args, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIArray);
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(r.v_obj);
  char all[512] = "", one[128];
  for (int64_t i = 0; i < cell->size; ++i) {
    TVMFFIAny* item = &((TVMFFIAny*)cell->data)[i];
    CHECK_EQ_STR(TVMFFIGetTypeInfo(item->type_index)->type_key.data, "ffi.reflection.AccessPath");
    path_text(item->v_obj, one, sizeof(one));
    if (i) strcat(all, " | ");
    strcat(all, "[");
    strcat(all, one);
    strcat(all, "]");
  }
  CHECK_EQ_STR(all, expect);
  check_any_release(&r);
}

int main(void) {
  register_node();
  TVMFFIByteArray ck = check_ba("ffi.VisitErrorContext");
  /* What the reference header's type declaration does: get the index. */
  t_context = TVMFFITypeGetOrAllocIndex(&ck, -1, 1, 0, 0, kTVMFFIObject);
  const TVMFFITypeInfo* ci = TVMFFIGetTypeInfo(t_context);
  CHECK(ci->metadata != NULL);
  CHECK_EQ_INT(ci->num_fields, 2);
  CHECK_EQ_STR(ci->fields[0].name.data, "reverse_visit_pattern");
  CHECK_EQ_INT(ci->fields[0].offset, 24);
  CHECK_EQ_INT(ci->fields[1].offset, 32);

  /* root = N(a=[x, y], b={"k": z}); x = N(leaf1); y = N(leaf2); z = N(y). */
  TVMFFIAny leaf1 = mk(none(), none());
  TVMFFIAny leaf2 = mk(check_any_int(5), none());
  TVMFFIAny x = mk(leaf1, none());
  TVMFFIAny y = mk(leaf2, none());
  TVMFFIAny z = mk(y, none());
  TVMFFIAny xy[2] = {x, y};
  TVMFFIAny arr = container("ffi.Array", xy, 2);
  TVMFFIAny kv[2] = {check_any_cstr("k"), z};
  TVMFFIAny map = container("ffi.Map", kv, 2);
  TVMFFIAny root = mk(arr, map);
  TVMFFIAny stranger = mk(none(), none());
  uint32_t root_uses = check_use_count(root.v_obj), y_uses = check_use_count(y.v_obj);

  /* Full match, found at both places y sits, in depth-first order. */
  TVMFFIAny p1[3] = {leaf2, y, root};
  TVMFFIAny c1 = make_context(p1, 3);
  find(root, c1, 0, "[0:a 1:1 0:a] | [0:b 2:k 0:a 0:a]");
  /* With prefixes, leaf1 (below the matched root, off the pattern) adds itself. */
  find(root, c1, 1, "[0:a 1:0 0:a] | [0:a 1:1 0:a] | [0:b 2:k 0:a 0:a]");

  /* The pattern need not start at the root. */
  TVMFFIAny p2[1] = {y};
  TVMFFIAny c2 = make_context(p2, 1);
  find(root, c2, 0, "[0:a 1:1] | [0:b 2:k 0:a]");

  /* No match: leaf1 is not below y; an object outside the graph. */
  TVMFFIAny p3[2] = {leaf1, y};
  TVMFFIAny c3 = make_context(p3, 2);
  find(root, c3, 0, "");
  TVMFFIAny p4[1] = {stranger};
  TVMFFIAny c4 = make_context(p4, 1);
  find(root, c4, 0, "");
  find(root, c4, 1, "");

  /* Repeats (throw site + catch) collapse; None entries are dropped. */
  TVMFFIAny p5[7] = {leaf2, leaf2, y, none(), y, root, root};
  TVMFFIAny c5 = make_context(p5, 7);
  find(root, c5, 0, "[0:a 1:1 0:a] | [0:b 2:k 0:a 0:a]");

  /* Prefix: root and y match but the innermost entry is nowhere; every
   * visited object under the partial match whose subtree found nothing
   * reports itself. */
  TVMFFIAny p6[3] = {stranger, y, root};
  TVMFFIAny c6 = make_context(p6, 3);
  find(root, c6, 0, "");
  find(root, c6, 1, "[0:a 1:0 0:a] | [0:a 1:1 0:a] | [0:b 2:k 0:a 0:a]");

  /* The root itself completes the pattern: the root path. */
  TVMFFIAny p7[1] = {root};
  TVMFFIAny c7 = make_context(p7, 1);
  find(root, c7, 0, "[]");

  /* An empty pattern and a None root find nothing. */
  TVMFFIAny c8 = make_context(NULL, 0);
  find(root, c8, 1, "");
  find(none(), c1, 1, "");

  /* Argument errors. */
  TVMFFIAny bad[3] = {root, root, check_any_int(0)};
  TVMFFIAny r;
  CHECK_RAISED(check_call_global("ffi.VisitErrorContext.FindAccessPaths", bad, 3, &r), "TypeError",
               "ffi.VisitErrorContext");
  bad[0] = check_any_int(3);
  bad[1] = c1;
  bad[2].type_index = kTVMFFIBool;
  CHECK_RAISED(check_call_global("ffi.VisitErrorContext.FindAccessPaths", bad, 3, &r), "TypeError",
               "FindAccessPaths");
  CHECK_RAISED(check_call_global("ffi.VisitErrorContext.FindAccessPaths", bad, 2, &r), "TypeError",
               "FindAccessPaths");

  /* Once the contexts (whose Lists hold pattern entries) are gone, the
   * searches left no references behind. */
  TVMFFIAny* contexts[] = {&c1, &c2, &c3, &c4, &c5, &c6, &c7, &c8};
  for (size_t i = 0; i < sizeof(contexts) / sizeof(contexts[0]); ++i)
    check_any_release(contexts[i]);
  CHECK_EQ_INT(check_use_count(root.v_obj), root_uses);
  CHECK_EQ_INT(check_use_count(y.v_obj), y_uses);

  TVMFFIAny* owned[] = {&root, &stranger, &arr, &map, &leaf1, &leaf2, &x, &y, &z};
  for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); ++i) check_any_release(owned[i]);
  CHECK_EQ_INT(g_live, 0);
  printf("test_visit_error_context: ok\n");
  return 0;
}
