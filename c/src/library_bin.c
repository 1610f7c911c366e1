/*
 * library_bin.c -- the __tvm_ffi__library_bin blob (docs/abi.md §13.5): a
 * little-endian import tree whose entries are the library itself ("_lib") or
 * modules rebuilt by ffi.Module.load_from_bytes.<kind>.  Every length is
 * checked against what is left of the blob before it is used; the error
 * texts follow the ORC JIT add-on's (docs/dlpack-and-addons.md C.6).
 */
#include <stdlib.h>
#include <string.h>

#include "module.h"

typedef struct {
  const unsigned char* p;
  uint64_t left;
} reader;

static int rd_u64(reader* r, uint64_t* out) {
  if (r->left < 8)
    return tvmffi__raise("RuntimeError", "Corrupt library binary: unexpected end of blob");
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | r->p[i]; /* little endian */
  r->p += 8;
  r->left -= 8;
  *out = v;
  return 0;
}

static int rd_vec(reader* r, uint64_t** out, uint64_t* count) {
  if (rd_u64(r, count) != 0) return -1;
  if (*count > r->left / 8)
    return tvmffi__raise("RuntimeError",
                         "Corrupt library binary: vector size exceeds remaining blob");
  *out = (uint64_t*)malloc((*count ? *count : 1) * sizeof(uint64_t));
  if (*out == NULL) return tvmffi__raise_oom();
  for (uint64_t i = 0; i < *count; ++i) rd_u64(r, &(*out)[i]);
  return 0;
}

static int rd_str(reader* r, TVMFFIByteArray* out) {
  uint64_t n = 0;
  if (rd_u64(r, &n) != 0) return -1;
  if (n > r->left)
    return tvmffi__raise("RuntimeError", "Corrupt library binary: string length exceeds blob");
  out->data = (const char*)r->p;
  out->size = (size_t)n;
  r->p += n;
  r->left -= n;
  return 0;
}

/* Calls ffi.Module.load_from_bytes.<kind>(payload).  New reference or NULL. */
static tvmffi__module* load_from_bytes(TVMFFIByteArray kind, TVMFFIByteArray payload) {
  static const char kPrefix[] = "ffi.Module.load_from_bytes.";
  size_t nl = sizeof(kPrefix) - 1 + kind.size;
  char* lname = (char*)malloc(nl + 1);
  if (lname == NULL) {
    tvmffi__raise_oom();
    return NULL;
  }
  memcpy(lname, kPrefix, sizeof(kPrefix) - 1);
  memcpy(lname + sizeof(kPrefix) - 1, kind.data, kind.size);
  lname[nl] = '\0';
  TVMFFIByteArray ln = {lname, nl};
  TVMFFIObjectHandle loader = NULL;
  tvmffi__module* mod = NULL;
  if (TVMFFIFunctionGetGlobal(&ln, &loader) != 0) goto done;
  if (loader == NULL) {
    tvmffi__raise("RuntimeError",
                  "Library binary embeds a {%.*s} module but loader %s is not registered",
                  (int)kind.size, kind.data, lname);
    goto done;
  }
  TVMFFIAny arg, out;
  if (TVMFFIBytesFromByteArray(&payload, &arg) != 0) goto done;
  tvmffi__any_set_none(&out);
  int rc = tvmffi__function_call(loader, &arg, 1, &out);
  tvmffi__any_release(&arg);
  if (rc != 0) goto done;
  if (out.type_index != kTVMFFIModule) {
    tvmffi__raise("TypeError", "Cannot convert from type `%s` to `ffi.Module`: %s returned it",
                  tvmffi__any_type_key(&out), lname);
    tvmffi__any_release(&out);
    goto done;
  }
  mod = (tvmffi__module*)out.v_obj;
done:
  tvmffi__decref((TVMFFIObject*)loader);
  free(lname);
  return mod;
}

tvmffi__module* tvmffi__library_bin_load(const void* bin, uint64_t limit, tvmffi__module* lib) {
  const char* corrupt = "Corrupt library binary: ";
  reader r = {(const unsigned char*)bin, limit < 8 ? limit : 8};
  uint64_t nbytes = 0;
  if (rd_u64(&r, &nbytes) != 0) return NULL;
  if (nbytes > limit - 8) {
    tvmffi__raise("RuntimeError",
                  "%sunexpected end of blob (header says %llu bytes, the symbol holds %llu)",
                  corrupt, (unsigned long long)nbytes, (unsigned long long)(limit - 8));
    return NULL;
  }
  r.left = nbytes;
  uint64_t *indptr = NULL, *child = NULL, nind = 0, nchild = 0;
  tvmffi__module** mods = NULL;
  uint64_t nmod = 0, made = 0;
  tvmffi__module* root = NULL;
  if (rd_vec(&r, &indptr, &nind) != 0 || rd_vec(&r, &child, &nchild) != 0) goto done;
  if (nind < 2) {
    tvmffi__raise("RuntimeError", "%simport tree indptr must have at least 2 entries", corrupt);
    goto done;
  }
  if (indptr[0] != 0) {
    tvmffi__raise("RuntimeError", "%simport tree indptr must start at 0", corrupt);
    goto done;
  }
  for (uint64_t i = 1; i < nind; ++i) {
    if (indptr[i] < indptr[i - 1]) {
      tvmffi__raise("RuntimeError", "%simport tree indptr must be non-decreasing", corrupt);
      goto done;
    }
  }
  if (indptr[nind - 1] > nchild) {
    tvmffi__raise("RuntimeError", "%simport tree indptr exceeds child index count", corrupt);
    goto done;
  }
  nmod = nind - 1;
  for (uint64_t j = 0; j < indptr[nind - 1]; ++j) {
    if (child[j] >= nmod) {
      tvmffi__raise("RuntimeError", "%schild index out of range", corrupt);
      goto done;
    }
  }
  mods = (tvmffi__module**)calloc(nmod, sizeof(*mods));
  if (mods == NULL) {
    tvmffi__raise_oom();
    goto done;
  }
  for (; made < nmod; ++made) {
    TVMFFIByteArray kind, payload;
    if (rd_str(&r, &kind) != 0) goto done;
    if (kind.size == 4 && memcmp(kind.data, "_lib", 4) == 0) {
      tvmffi__incref(&lib->header);
      mods[made] = lib;
      continue;
    }
    if (rd_str(&r, &payload) != 0) goto done;
    mods[made] = load_from_bytes(kind, payload);
    if (mods[made] == NULL) goto done;
  }
  for (uint64_t i = 0; i < nmod; ++i)
    for (uint64_t j = indptr[i]; j < indptr[i + 1]; ++j)
      if (tvmffi__module_import(mods[i], mods[child[j]]) != 0) goto done;
  root = mods[0];
  tvmffi__incref(&root->header);
done:
  for (uint64_t i = 0; i < made; ++i) tvmffi__decref(&mods[i]->header);
  free(mods);
  free(indptr);
  free(child);
  return root;
}
