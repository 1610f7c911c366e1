/*
 * memo.c -- the identity memo of the recursive walks (docs/python.md §13.2): what a walk
 * found for a node (or a pair of nodes) it met before, so that a value whose nodes are
 * shared (a DAG: a = [a, a] sixty times over) is walked in time linear in its distinct
 * nodes, not in its paths.
 *
 * Only nodes with more than one owner go into a memo (tvmffi__ext_shared says why that is
 * enough).  A walk counts the ones it enters; the table is allocated only once the count passes
 * TVMFFI__MEMO_AFTER, so small values (almost all of them, and every tree of that size)
 * cost one increment per node and no allocation.  Nodes entered before that are walked
 * again when met again: at most TVMFFI__MEMO_AFTER of them, whatever the sharing.  A walk
 * whose results must agree for every meeting of a node (structural map: one result per
 * shared node) starts the memo at once (tvmffi__memo_start) for the nodes with more than
 * one owner, the only ones that can be met twice.
 * Keys are addresses.  A walk's callbacks and hooks may make and drop objects of their own
 * (whose addresses a later object could take), so the memo holds a reference to each key
 * object (TVMFFI__MEMO_HOLD_A/B) until it is freed.
 */
#include <stdlib.h>

#include "ext.h"

static uint64_t memo_slot_hash(const void* a, const void* b) {
  uint64_t x = (uint64_t)(uintptr_t)a * UINT64_C(0x9e3779b97f4a7c15);
  x ^= (uint64_t)(uintptr_t)b * UINT64_C(0xc2b2ae3d27d4eb4f);
  return x ^ (x >> 29);
}

int tvmffi__memo_enter(tvmffi__memo* m) {
  if (m->slots != NULL) return 1;
  if (++m->visits <= TVMFFI__MEMO_AFTER) return 0;
  return tvmffi__memo_start(m);
}

int tvmffi__memo_start(tvmffi__memo* m) {
  if (m->slots != NULL) return 1;
  m->cap = 64;
  m->slots = (tvmffi__memo_entry*)calloc(m->cap, sizeof(tvmffi__memo_entry));
  if (m->slots == NULL) {
    m->visits = 0; /* out of memory: walk on without a memo, try again later */
    return 0;
  }
  return 1;
}

static tvmffi__memo_entry* memo_find(const tvmffi__memo* m, const void* a, const void* b) {
  size_t mask = m->cap - 1;
  for (size_t i = (size_t)memo_slot_hash(a, b) & mask;; i = (i + 1) & mask) {
    tvmffi__memo_entry* e = &m->slots[i];
    if (e->a == NULL || (e->a == a && e->b == b)) return e;
  }
}

int tvmffi__memo_get(const tvmffi__memo* m, const void* a, const void* b, uint64_t* value) {
  if (m->slots == NULL || a == NULL) return 0;
  const tvmffi__memo_entry* e = memo_find(m, a, b);
  if (e->a == NULL) return 0;
  *value = e->value;
  return 1;
}

void tvmffi__memo_put(tvmffi__memo* m, const void* a, const void* b, uint64_t value) {
  if (m->slots == NULL || a == NULL) return;
  if ((m->n + 1) * 4 > m->cap * 3) { /* keep the load under 3/4 */
    tvmffi__memo bigger = *m;
    bigger.cap = m->cap * 2;
    bigger.n = 0;
    bigger.slots = (tvmffi__memo_entry*)calloc(bigger.cap, sizeof(tvmffi__memo_entry));
    if (bigger.slots == NULL) return; /* a memo is an optimisation: skip the entry */
    for (size_t i = 0; i < m->cap; ++i)
      if (m->slots[i].a != NULL) {
        *memo_find(&bigger, m->slots[i].a, m->slots[i].b) = m->slots[i];
        ++bigger.n;
      }
    free(m->slots);
    *m = bigger;
  }
  tvmffi__memo_entry* e = memo_find(m, a, b);
  if (e->a == NULL) {
    ++m->n;
    if (m->hold & TVMFFI__MEMO_HOLD_A) tvmffi__incref((TVMFFIObject*)a);
    if ((m->hold & TVMFFI__MEMO_HOLD_B) && b != NULL) tvmffi__incref((TVMFFIObject*)b);
  }
  e->a = a;
  e->b = b;
  e->value = value;
}

void tvmffi__memo_free(tvmffi__memo* m) {
  for (size_t i = 0; m->hold && i < m->cap; ++i) {
    if (m->slots[i].a == NULL) continue;
    if (m->hold & TVMFFI__MEMO_HOLD_A) tvmffi__decref((TVMFFIObject*)m->slots[i].a);
    if (m->hold & TVMFFI__MEMO_HOLD_B) tvmffi__decref((TVMFFIObject*)m->slots[i].b);
  }
  free(m->slots);
  m->slots = NULL;
  m->n = m->cap = 0;
  m->visits = 0;
}
