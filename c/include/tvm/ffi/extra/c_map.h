/*
 * tvm/ffi/extra/c_map.h -- the map cell of ffi.Map and ffi.Dict (docs/abi.md §7.8): layout,
 * lookup, iteration, insertion, growth and removal, part of <tvm/ffi/extra/c_container.h>.
 * Conventions (ownership, errors, storage): c_container.h.
 */
#ifndef TVM_FFI_EXTRA_C_MAP_H_
#define TVM_FFI_EXTRA_C_MAP_H_

#include <tvm/ffi/extra/c_container_base.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================================== */
/* Section: maps (ffi.Map, ffi.Dict)                                     */
/* ===================================================================== */

/*
 * The map cell at handle + 24 (docs/abi.md §7.8).  The last three fields exist
 * only in the dense layout: a small-layout object may end right after
 * data_deleter (or hold its pairs inline at handle + 56), so touch them only
 * when the cell is dense.
 */
typedef struct {
  void* data;          /* small: TVMFFIMapKV[capacity]; dense: blocks */
  uint64_t size;       /* number of entries */
  uint64_t slots;      /* bit 63 set: small, low bits capacity; else dense slot count */
  void (*data_deleter)(void* data); /* NULL when data is inline */
  uint32_t fib_shift;  /* dense: 64 - log2(slots) */
  uint32_t padding;
  uint64_t iter_list_head; /* dense: first slot in insertion order */
  uint64_t iter_list_tail; /* dense: last slot in insertion order */
} TVMFFIMapCell;

/* A key/value pair of the small layout (32 bytes). */
typedef struct {
  TVMFFIAny key;
  TVMFFIAny value;
} TVMFFIMapKV;

/* An item of the dense layout (48 bytes); prev/next are slot indices. */
typedef struct {
  TVMFFIAny key;
  TVMFFIAny value;
  uint64_t prev;
  uint64_t next;
} TVMFFIMapDenseItem;

#define TVMFFI_MAP_SMALL_TAG (UINT64_C(1) << 63)
#define TVMFFI_MAP_SMALL_MAX 4      /* largest small capacity */
#define TVMFFI_MAP_SMALL_INIT 2     /* capacity of a default-constructed map */
#define TVMFFI_MAP_BLOCK_CAP 16     /* slots per dense block */
#define TVMFFI_MAP_BLOCK_BYTES 784  /* 16 metadata bytes + 16 * 48 */
#define TVMFFI_MAP_META_EMPTY 0xFF
#define TVMFFI_MAP_META_PROTECTED 0xFE
#define TVMFFI_MAP_NUM_JUMPS 126
#define TVMFFI_MAP_ITER_END UINT64_MAX /* end of iteration; also "absent" */
#define TVMFFI_MAP_FIB_MUL UINT64_C(11400714819323198485)

/* The map cell of an ffi.Map / ffi.Dict object. */
TVMFFI_CONTAINER_INLINE TVMFFIMapCell* TVMFFIMapGetCellPtr(TVMFFIObjectHandle obj) {
  return (TVMFFIMapCell*)((char*)obj + sizeof(TVMFFIObject));
}

TVMFFI_CONTAINER_INLINE int TVMFFIMapCellIsSmall(const TVMFFIMapCell* cell) {
  return (cell->slots & TVMFFI_MAP_SMALL_TAG) != 0;
}

/* Small: pair capacity.  Dense: slot count. */
TVMFFI_CONTAINER_INLINE uint64_t TVMFFIMapCellNumSlots(const TVMFFIMapCell* cell) {
  return cell->slots & ~TVMFFI_MAP_SMALL_TAG;
}

/* Probe distances P[j] of docs/abi.md §7.8 (0 <= j < 126). */
/* clang-format off */
#define TVMFFI_MAP_JUMP_VALUES {                                                           \
    UINT64_C(0), UINT64_C(1), UINT64_C(2), UINT64_C(3), UINT64_C(4), UINT64_C(5),           \
    UINT64_C(6), UINT64_C(7), UINT64_C(8), UINT64_C(9), UINT64_C(10), UINT64_C(11),         \
    UINT64_C(12), UINT64_C(13), UINT64_C(14), UINT64_C(15), UINT64_C(21), UINT64_C(28),     \
    UINT64_C(36), UINT64_C(45), UINT64_C(55), UINT64_C(66), UINT64_C(78), UINT64_C(91),     \
    UINT64_C(105), UINT64_C(120), UINT64_C(136), UINT64_C(153), UINT64_C(171),              \
    UINT64_C(190), UINT64_C(210), UINT64_C(231), UINT64_C(253), UINT64_C(276),              \
    UINT64_C(300), UINT64_C(325), UINT64_C(351), UINT64_C(378), UINT64_C(406),              \
    UINT64_C(435), UINT64_C(465), UINT64_C(496), UINT64_C(528), UINT64_C(561),              \
    UINT64_C(595), UINT64_C(630), UINT64_C(666), UINT64_C(703), UINT64_C(741),              \
    UINT64_C(780), UINT64_C(820), UINT64_C(861), UINT64_C(903), UINT64_C(946),              \
    UINT64_C(990), UINT64_C(1035), UINT64_C(1081), UINT64_C(1128), UINT64_C(1176),          \
    UINT64_C(1225), UINT64_C(1275), UINT64_C(1326), UINT64_C(1378), UINT64_C(1431),         \
    UINT64_C(1485), UINT64_C(1540), UINT64_C(1596), UINT64_C(1653), UINT64_C(1711),         \
    UINT64_C(1770), UINT64_C(1830), UINT64_C(1891), UINT64_C(1953), UINT64_C(2016),         \
    UINT64_C(2080), UINT64_C(2145), UINT64_C(2211), UINT64_C(2278), UINT64_C(2346),         \
    UINT64_C(2415), UINT64_C(2485), UINT64_C(2556), UINT64_C(2628), UINT64_C(8515),         \
    UINT64_C(19110), UINT64_C(42778), UINT64_C(96141), UINT64_C(216153), UINT64_C(486591),  \
    UINT64_C(1092981), UINT64_C(2458653), UINT64_C(5532801), UINT64_C(12442566),            \
    UINT64_C(27993903), UINT64_C(62983476), UINT64_C(141717030), UINT64_C(318844378),       \
    UINT64_C(717352503), UINT64_C(1614057336), UINT64_C(3631522476), UINT64_C(8170957530),  \
    UINT64_C(18384510628), UINT64_C(41364789378), UINT64_C(93070452520),                    \
    UINT64_C(209408356380), UINT64_C(471168559170), UINT64_C(1060128894105),                \
    UINT64_C(2385289465695), UINT64_C(5366898840628), UINT64_C(12075518705635),             \
    UINT64_C(27169915244790), UINT64_C(61132312065111), UINT64_C(137547689707000),          \
    UINT64_C(309482283181501), UINT64_C(696335127828753), UINT64_C(1566753995631385),       \
    UINT64_C(3525196511162271), UINT64_C(7931691992677701), UINT64_C(17846306936293605),    \
    UINT64_C(40154190677507445), UINT64_C(90346928918121501), UINT64_C(203280589587557251), \
    UINT64_C(457381325854679626), UINT64_C(1029107982097042876),                            \
    UINT64_C(2315492959180353330), UINT64_C(5209859154120846435)                            \
}
/* clang-format on */
#ifdef TVMFFI_MAP_JUMP_TABLE
/* The runtime builds with -DTVMFFI_MAP_JUMP_TABLE=<name>: one table, defined in
 * c/src/map.c, for all its sources instead of a copy in each (6 KB of the library). */
#if defined(__GNUC__)
__attribute__((visibility("hidden")))
#endif
extern const uint64_t TVMFFI_MAP_JUMP_TABLE[TVMFFI_MAP_NUM_JUMPS];
TVMFFI_CONTAINER_INLINE uint64_t TVMFFIMapJump(unsigned j) { return TVMFFI_MAP_JUMP_TABLE[j]; }
#else
TVMFFI_CONTAINER_INLINE uint64_t TVMFFIMapJump(unsigned j) {
  static const uint64_t kP[TVMFFI_MAP_NUM_JUMPS] = TVMFFI_MAP_JUMP_VALUES;
  return kP[j];
}
#endif

/* Metadata byte of dense slot s. */
TVMFFI_CONTAINER_INLINE uint8_t* TVMFFIMapDenseMeta(const TVMFFIMapCell* cell, uint64_t s) {
  return (uint8_t*)cell->data + (s / TVMFFI_MAP_BLOCK_CAP) * TVMFFI_MAP_BLOCK_BYTES +
         s % TVMFFI_MAP_BLOCK_CAP;
}

/* Item of dense slot s. */
TVMFFI_CONTAINER_INLINE TVMFFIMapDenseItem* TVMFFIMapDenseItemPtr(const TVMFFIMapCell* cell,
                                                                  uint64_t s) {
  return (TVMFFIMapDenseItem*)((char*)cell->data +
                               (s / TVMFFI_MAP_BLOCK_CAP) * TVMFFI_MAP_BLOCK_BYTES +
                               TVMFFI_MAP_BLOCK_CAP +
                               sizeof(TVMFFIMapDenseItem) * (s % TVMFFI_MAP_BLOCK_CAP));
}

/* Pair i of a small table. */
TVMFFI_CONTAINER_INLINE TVMFFIMapKV* TVMFFIMapImplSmallKV(const TVMFFIMapCell* cell, uint64_t i) {
  return (TVMFFIMapKV*)cell->data + i;
}

/* Makes an empty small table over `data` (room for `capacity` pairs; may be
 * NULL when capacity is 0), released by data_deleter (NULL when inline). */
TVMFFI_CONTAINER_INLINE void TVMFFIMapCellInitSmall(TVMFFIMapCell* cell, void* data,
                                                    uint64_t capacity,
                                                    void (*data_deleter)(void*)) {
  cell->data = data;
  cell->size = 0;
  cell->slots = TVMFFI_MAP_SMALL_TAG | capacity;
  cell->data_deleter = data_deleter;
}

/* Dense sizing of docs/abi.md §7.8: smallest power of two above `count`, doubled
 * once more when below 2*count; at least 8 slots. */
TVMFFI_CONTAINER_INLINE void TVMFFIMapImplDenseSize(uint64_t count, uint64_t* slots,
                                                    uint32_t* fib_shift) {
  uint32_t shift = 64;
  uint64_t n = 1;
  if (count < TVMFFI_MAP_SMALL_MAX) count = TVMFFI_MAP_SMALL_MAX;
  for (uint64_t c = count; c != 0; c >>= 1) {
    --shift;
    n <<= 1;
  }
  if (n < count * 2) {
    --shift;
    n <<= 1;
  }
  *slots = n;
  *fib_shift = shift;
}

/* Allocates empty dense storage of `slots` slots into *cell (whole 56-byte
 * cell written).  Returns 0/-1 (MemoryError). */
TVMFFI_CONTAINER_INLINE int TVMFFIMapImplDenseAlloc(TVMFFIMapCell* cell, uint64_t slots,
                                                    uint32_t fib_shift) {
  uint64_t blocks = (slots + TVMFFI_MAP_BLOCK_CAP - 1) / TVMFFI_MAP_BLOCK_CAP;
  if (slots == 0 || slots > (UINT64_C(1) << 58) || blocks > SIZE_MAX / TVMFFI_MAP_BLOCK_BYTES)
    return TVMFFIContainerImplOOM();
  char* data = (char*)malloc((size_t)blocks * TVMFFI_MAP_BLOCK_BYTES);
  if (data == NULL) return TVMFFIContainerImplOOM();
  for (uint64_t b = 0; b < blocks; ++b)
    memset(data + b * TVMFFI_MAP_BLOCK_BYTES, TVMFFI_MAP_META_EMPTY, TVMFFI_MAP_BLOCK_CAP);
  cell->data = data;
  cell->size = 0;
  cell->slots = slots;
  cell->data_deleter = free;
  cell->fib_shift = fib_shift;
  cell->padding = 0;
  cell->iter_list_head = TVMFFI_MAP_ITER_END;
  cell->iter_list_tail = TVMFFI_MAP_ITER_END;
  return 0;
}

/* Makes an empty dense table sized for `count` entries (the layout C++
 * builds for a range of count >= 4 entries).  The object must have room for
 * the whole 56-byte cell.  Returns 0/-1. */
TVMFFI_CONTAINER_INLINE int TVMFFIMapCellInitDense(TVMFFIMapCell* cell, uint64_t count) {
  uint64_t slots;
  uint32_t shift;
  TVMFFIMapImplDenseSize(count, &slots, &shift);
  return TVMFFIMapImplDenseAlloc(cell, slots, shift);
}

/* ---- iteration: positions are pair indices (small) or slot indices (dense);
 * TVMFFI_MAP_ITER_END ends both directions. ---- */

TVMFFI_CONTAINER_INLINE uint64_t TVMFFIMapCellIterBegin(const TVMFFIMapCell* cell) {
  if (TVMFFIMapCellIsSmall(cell)) return cell->size > 0 ? 0 : TVMFFI_MAP_ITER_END;
  return cell->size > 0 ? cell->iter_list_head : TVMFFI_MAP_ITER_END;
}

TVMFFI_CONTAINER_INLINE uint64_t TVMFFIMapCellIterNext(const TVMFFIMapCell* cell, uint64_t pos) {
  if (pos == TVMFFI_MAP_ITER_END) return pos;
  if (TVMFFIMapCellIsSmall(cell)) return pos + 1 < cell->size ? pos + 1 : TVMFFI_MAP_ITER_END;
  return TVMFFIMapDenseItemPtr(cell, pos)->next;
}

/* Previous position; from TVMFFI_MAP_ITER_END gives the last entry. */
TVMFFI_CONTAINER_INLINE uint64_t TVMFFIMapCellIterPrev(const TVMFFIMapCell* cell, uint64_t pos) {
  if (cell->size == 0) return TVMFFI_MAP_ITER_END;
  if (TVMFFIMapCellIsSmall(cell)) {
    if (pos == TVMFFI_MAP_ITER_END) return cell->size - 1;
    return pos == 0 ? TVMFFI_MAP_ITER_END : pos - 1;
  }
  if (pos == TVMFFI_MAP_ITER_END) return cell->iter_list_tail;
  return TVMFFIMapDenseItemPtr(cell, pos)->prev;
}

/* Key / value stored at a valid position (owned by the table). */
TVMFFI_CONTAINER_INLINE TVMFFIAny* TVMFFIMapCellKey(const TVMFFIMapCell* cell, uint64_t pos) {
  if (TVMFFIMapCellIsSmall(cell)) return &TVMFFIMapImplSmallKV(cell, pos)->key;
  return &TVMFFIMapDenseItemPtr(cell, pos)->key;
}

TVMFFI_CONTAINER_INLINE TVMFFIAny* TVMFFIMapCellValue(const TVMFFIMapCell* cell, uint64_t pos) {
  if (TVMFFIMapCellIsSmall(cell)) return &TVMFFIMapImplSmallKV(cell, pos)->value;
  return &TVMFFIMapDenseItemPtr(cell, pos)->value;
}

/* ---- lookup ---- */

TVMFFI_CONTAINER_INLINE uint64_t TVMFFIMapImplHome(const TVMFFIMapCell* cell, uint64_t hash) {
  return (TVMFFI_MAP_FIB_MUL * hash) >> cell->fib_shift;
}

/* Slot after s in its chain, or TVMFFI_MAP_ITER_END at the chain's end. */
TVMFFI_CONTAINER_INLINE uint64_t TVMFFIMapImplChainNext(const TVMFFIMapCell* cell, uint64_t s,
                                                        uint8_t meta) {
  unsigned j = meta & 0x7F;
  if (j == 0) return TVMFFI_MAP_ITER_END;
  return (s + TVMFFIMapJump(j)) & (cell->slots - 1);
}

/* Position of `key` (hash already computed) or TVMFFI_MAP_ITER_END in *out.
 * Returns 0/-1 (an equality hook failed). */
TVMFFI_CONTAINER_INLINE int TVMFFIMapImplFindHashed(const TVMFFIMapCell* cell, const TVMFFIAny* key,
                                                    uint64_t hash, uint64_t* out) {
  *out = TVMFFI_MAP_ITER_END;
  if (TVMFFIMapCellIsSmall(cell)) {
    for (uint64_t i = 0; i < cell->size; ++i) {
      int eq = TVMFFIContainerAnyEqual(key, &TVMFFIMapImplSmallKV(cell, i)->key);
      if (eq < 0) return -1;
      if (eq) {
        *out = i;
        return 0;
      }
    }
    return 0;
  }
  if (cell->size == 0) return 0;
  uint64_t s = TVMFFIMapImplHome(cell, hash);
  uint8_t meta = *TVMFFIMapDenseMeta(cell, s);
  if (meta & 0x80) return 0; /* empty, protected or inside a foreign chain */
  while (s != TVMFFI_MAP_ITER_END) {
    meta = *TVMFFIMapDenseMeta(cell, s);
    int eq = TVMFFIContainerAnyEqual(key, &TVMFFIMapDenseItemPtr(cell, s)->key);
    if (eq < 0) return -1;
    if (eq) {
      *out = s;
      return 0;
    }
    s = TVMFFIMapImplChainNext(cell, s, meta);
  }
  return 0;
}

/*
 * Finds `key` (owned form).  *out_pos receives its position or
 * TVMFFI_MAP_ITER_END when absent.  Returns 0/-1 (hash/equal hook failed).
 */
TVMFFI_CONTAINER_INLINE int TVMFFIMapCellFind(const TVMFFIMapCell* cell, const TVMFFIAny* key,
                                              uint64_t* out_pos) {
  uint64_t hash = 0;
  *out_pos = TVMFFI_MAP_ITER_END;
  if (cell->size == 0) return 0;
  if (!TVMFFIMapCellIsSmall(cell) && TVMFFIContainerAnyHash(key, &hash) != 0) return -1;
  return TVMFFIMapImplFindHashed(cell, key, hash, out_pos);
}

/* ---- dense internals ---- */

TVMFFI_CONTAINER_INLINE void TVMFFIMapImplIterPushBack(TVMFFIMapCell* cell, uint64_t s) {
  TVMFFIMapDenseItem* it = TVMFFIMapDenseItemPtr(cell, s);
  it->prev = cell->iter_list_tail;
  it->next = TVMFFI_MAP_ITER_END;
  if (cell->iter_list_tail != TVMFFI_MAP_ITER_END)
    TVMFFIMapDenseItemPtr(cell, cell->iter_list_tail)->next = s;
  else
    cell->iter_list_head = s;
  cell->iter_list_tail = s;
}

TVMFFI_CONTAINER_INLINE void TVMFFIMapImplIterUnlink(TVMFFIMapCell* cell, uint64_t s) {
  TVMFFIMapDenseItem* it = TVMFFIMapDenseItemPtr(cell, s);
  if (it->prev != TVMFFI_MAP_ITER_END)
    TVMFFIMapDenseItemPtr(cell, it->prev)->next = it->next;
  else
    cell->iter_list_head = it->next;
  if (it->next != TVMFFI_MAP_ITER_END)
    TVMFFIMapDenseItemPtr(cell, it->next)->prev = it->prev;
  else
    cell->iter_list_tail = it->prev;
}

/* Slot `to` takes over the iteration position of slot `from`. */
TVMFFI_CONTAINER_INLINE void TVMFFIMapImplIterReplace(TVMFFIMapCell* cell, uint64_t from,
                                                      uint64_t to) {
  TVMFFIMapDenseItem* src = TVMFFIMapDenseItemPtr(cell, from);
  TVMFFIMapDenseItem* dst = TVMFFIMapDenseItemPtr(cell, to);
  uint64_t prev = src->prev, next = src->next;
  dst->prev = prev;
  dst->next = next;
  if (prev != TVMFFI_MAP_ITER_END)
    TVMFFIMapDenseItemPtr(cell, prev)->next = to;
  else
    cell->iter_list_head = to;
  if (next != TVMFFI_MAP_ITER_END)
    TVMFFIMapDenseItemPtr(cell, next)->prev = to;
  else
    cell->iter_list_tail = to;
}

/* First empty slot reachable from s by a jump; *jump receives its index. */
TVMFFI_CONTAINER_INLINE int TVMFFIMapImplNextEmpty(const TVMFFIMapCell* cell, uint64_t s,
                                                   unsigned* jump, uint64_t* out) {
  for (unsigned j = 1; j < TVMFFI_MAP_NUM_JUMPS; ++j) {
    uint64_t c = (s + TVMFFIMapJump(j)) & (cell->slots - 1);
    if (*TVMFFIMapDenseMeta(cell, c) == TVMFFI_MAP_META_EMPTY) {
      *jump = j;
      *out = c;
      return 1;
    }
  }
  return 0;
}

/* Predecessor of non-head slot s in its chain.  Exactly one occupied slot
 * jumps to s, so probing backwards finds it without hashing any key. */
TVMFFI_CONTAINER_INLINE uint64_t TVMFFIMapImplChainPrev(const TVMFFIMapCell* cell, uint64_t s) {
  for (unsigned j = 1; j < TVMFFI_MAP_NUM_JUMPS; ++j) {
    uint64_t w = (s - TVMFFIMapJump(j)) & (cell->slots - 1);
    uint8_t meta = *TVMFFIMapDenseMeta(cell, w);
    if (meta != TVMFFI_MAP_META_EMPTY && meta != TVMFFI_MAP_META_PROTECTED && (meta & 0x7F) == j)
      return w;
  }
  return TVMFFI_MAP_ITER_END; /* unreachable in a consistent table */
}

TVMFFI_CONTAINER_INLINE int TVMFFIMapImplIsFull(const TVMFFIMapCell* cell) {
  return (double)(cell->size + 1) > (double)cell->slots * 0.99;
}

TVMFFI_CONTAINER_INLINE void TVMFFIMapImplSetJump(TVMFFIMapCell* cell, uint64_t s, unsigned j) {
  uint8_t* m = TVMFFIMapDenseMeta(cell, s);
  *m = (uint8_t)((*m & 0x80) | j);
}

/*
 * Places a key known to be absent (copied bitwise from key and value) into a
 * dense table, appending it to the iteration order.  Returns 0 when placed,
 * 1 when the table must be rebuilt larger.  A chain relocation that runs out
 * of room midway returns 1 with the iteration list intact (the table may
 * then only be iterated, rebuilt or destroyed), as in the reference.
 */
TVMFFI_CONTAINER_INLINE int TVMFFIMapImplDensePlace(TVMFFIMapCell* cell, uint64_t hash,
                                                    const TVMFFIAny* key, const TVMFFIAny* value,
                                                    uint64_t* out_pos) {
  uint64_t home = TVMFFIMapImplHome(cell, hash), target;
  uint8_t meta = *TVMFFIMapDenseMeta(cell, home);
  if (meta == TVMFFI_MAP_META_EMPTY) {
    *TVMFFIMapDenseMeta(cell, home) = 0x00;
    target = home;
  } else if (meta & 0x80) {
    /* home lies inside a foreign chain: move that chain's suffix away. */
    if (TVMFFIMapImplIsFull(cell)) return 1;
    uint64_t w = TVMFFIMapImplChainPrev(cell, home), r = home;
    int first = 1;
    for (;;) {
      unsigned jump;
      uint64_t empty;
      if (!TVMFFIMapImplNextEmpty(cell, w, &jump, &empty)) return 1;
      uint8_t r_meta = *TVMFFIMapDenseMeta(cell, r);
      TVMFFIMapDenseItem* src = TVMFFIMapDenseItemPtr(cell, r);
      TVMFFIMapDenseItem* dst = TVMFFIMapDenseItemPtr(cell, empty);
      *TVMFFIMapDenseMeta(cell, empty) = 0x80;
      dst->key = src->key;
      dst->value = src->value;
      TVMFFIMapImplIterReplace(cell, r, empty);
      *TVMFFIMapDenseMeta(cell, r) = first ? TVMFFI_MAP_META_PROTECTED : TVMFFI_MAP_META_EMPTY;
      first = 0;
      TVMFFIMapImplSetJump(cell, w, jump);
      w = empty;
      r = TVMFFIMapImplChainNext(cell, r, r_meta);
      if (r == TVMFFI_MAP_ITER_END) break;
    }
    *TVMFFIMapDenseMeta(cell, home) = 0x00;
    target = home;
  } else {
    uint64_t tail = home;
    for (;;) {
      uint64_t nx = TVMFFIMapImplChainNext(cell, tail, *TVMFFIMapDenseMeta(cell, tail));
      if (nx == TVMFFI_MAP_ITER_END) break;
      tail = nx;
    }
    if (TVMFFIMapImplIsFull(cell)) return 1;
    unsigned jump;
    if (!TVMFFIMapImplNextEmpty(cell, tail, &jump, &target)) return 1;
    *TVMFFIMapDenseMeta(cell, target) = 0x80;
    TVMFFIMapImplSetJump(cell, tail, jump);
  }
  TVMFFIMapDenseItem* it = TVMFFIMapDenseItemPtr(cell, target);
  it->key = *key;
  it->value = *value;
  TVMFFIMapImplIterPushBack(cell, target);
  cell->size += 1;
  *out_pos = target;
  return 0;
}

/* ---- growth ---- */

/*
 * Layout the next table takes when `cell` is full: a small capacity
 * min(max(2*cap, 2), 4) while the capacity is below 4, else 0 meaning
 * "dense" (from a full small table: sized for its entries; from a dense
 * table: twice the slots).
 */
TVMFFI_CONTAINER_INLINE uint64_t TVMFFIMapCellGrowCapacity(const TVMFFIMapCell* cell) {
  if (!TVMFFIMapCellIsSmall(cell)) return 0;
  uint64_t cap = TVMFFIMapCellNumSlots(cell);
  if (cap >= TVMFFI_MAP_SMALL_MAX) return 0;
  uint64_t next = cap * 2 > TVMFFI_MAP_SMALL_INIT ? cap * 2 : TVMFFI_MAP_SMALL_INIT;
  return next < TVMFFI_MAP_SMALL_MAX ? next : TVMFFI_MAP_SMALL_MAX;
}

/*
 * Rebuilds the entries of `src` plus the pair (key, value) into `dst`, in
 * the layout TVMFFIMapCellGrowCapacity(src) names.  If the key is already
 * in src its value is replaced (and, in a dense result, the entry moves to
 * the end of the iteration order), otherwise the pair is appended.  For a
 * small result `small_data` has room for that many pairs (e.g. inline in a
 * new object; data_deleter NULL) or is NULL to malloc it; a dense result
 * needs the whole 56-byte cell in dst.  Key and value are moved in.  On
 * success src is left empty (data NULL, size 0, slots 0, data_deleter NULL):
 * its entries moved, its storage released.  Returns 0/-1; on failure
 * nothing changed.  `dst` may be a local copied into the object afterwards
 * (the first 32 bytes for small, all 56 for dense).
 */
TVMFFI_CONTAINER_INLINE int TVMFFIMapCellGrowInto(TVMFFIMapCell* src, TVMFFIMapCell* dst,
                                                  void* small_data, TVMFFIAny* key,
                                                  TVMFFIAny* value) {
  uint64_t cap = TVMFFIMapCellGrowCapacity(src), n = src->size, found;
  uint64_t* hashes = NULL;
  TVMFFIAny old_value;
  old_value.type_index = kTVMFFINone;
  old_value.zero_padding = 0;
  old_value.v_int64 = 0;
  if (cap == 0) {
    /* Hash everything first: hooks may fail, and nothing may move before. */
    hashes = (uint64_t*)malloc((size_t)(n + 1) * sizeof(uint64_t));
    if (hashes == NULL) return TVMFFIContainerImplOOM();
    uint64_t i = 0;
    for (uint64_t p = TVMFFIMapCellIterBegin(src); p != TVMFFI_MAP_ITER_END;
         p = TVMFFIMapCellIterNext(src, p), ++i) {
      if (TVMFFIContainerAnyHash(TVMFFIMapCellKey(src, p), &hashes[i]) != 0) {
        free(hashes);
        return -1;
      }
    }
    if (TVMFFIContainerAnyHash(key, &hashes[n]) != 0 ||
        TVMFFIMapImplFindHashed(src, key, hashes[n], &found) != 0) {
      free(hashes);
      return -1;
    }
  } else if (TVMFFIMapImplFindHashed(src, key, 0, &found) != 0) {
    return -1;
  }
  if (cap != 0) {
    /* small -> larger small: pairs keep their order. */
    void* data = small_data;
    void (*deleter)(void*) = NULL;
    if (data == NULL) {
      data = malloc((size_t)cap * sizeof(TVMFFIMapKV));
      if (data == NULL) return TVMFFIContainerImplOOM();
      deleter = free;
    }
    TVMFFIMapKV* pairs = (TVMFFIMapKV*)data;
    if (n > 0) memcpy(pairs, src->data, (size_t)n * sizeof(TVMFFIMapKV));
    if (found != TVMFFI_MAP_ITER_END) {
      old_value = pairs[found].value;
      pairs[found].value = *value;
    } else {
      pairs[n].key = *key;
      pairs[n].value = *value;
    }
    if (src->data_deleter != NULL) src->data_deleter(src->data);
    TVMFFIMapCellInitSmall(dst, data, cap, deleter);
    dst->size = found != TVMFFI_MAP_ITER_END ? n : n + 1;
  } else {
    uint64_t slots, new_pos = TVMFFI_MAP_ITER_END;
    uint32_t shift;
    if (TVMFFIMapCellIsSmall(src) || src->slots == 0) {
      TVMFFIMapImplDenseSize(n, &slots, &shift);
    } else {
      slots = src->slots * 2;
      shift = src->fib_shift - 1;
    }
    /* Insert in iteration order, then the new pair; a table that fills up
     * is retried twice as large, which yields the same layout as growing
     * it midway and re-inserting. */
    TVMFFIMapCell tmp;
    for (;;) {
      if (TVMFFIMapImplDenseAlloc(&tmp, slots, shift) != 0) {
        free(hashes);
        return -1;
      }
      int full = 0;
      uint64_t i = 0, pos;
      for (uint64_t p = TVMFFIMapCellIterBegin(src); p != TVMFFI_MAP_ITER_END && !full;
           p = TVMFFIMapCellIterNext(src, p), ++i)
        full = TVMFFIMapImplDensePlace(&tmp, hashes[i], TVMFFIMapCellKey(src, p),
                                       TVMFFIMapCellValue(src, p), &pos);
      if (!full && found == TVMFFI_MAP_ITER_END)
        full = TVMFFIMapImplDensePlace(&tmp, hashes[n], key, value, &pos);
      if (!full) break;
      free(tmp.data);
      slots *= 2;
      shift -= 1;
    }
    if (found != TVMFFI_MAP_ITER_END) {
      /* Later placements may have relocated the entry: find its bits again
       * along its chain (a raw compare, so no hook runs after moving). */
      const TVMFFIAny* want = TVMFFIMapCellKey(src, found);
      for (new_pos = TVMFFIMapImplHome(&tmp, hashes[n]);;) {
        const TVMFFIAny* k = &TVMFFIMapDenseItemPtr(&tmp, new_pos)->key;
        if (memcmp(k, want, sizeof(TVMFFIAny)) == 0) break;
        new_pos = TVMFFIMapImplChainNext(&tmp, new_pos, *TVMFFIMapDenseMeta(&tmp, new_pos));
      }
      TVMFFIAny* slot = &TVMFFIMapDenseItemPtr(&tmp, new_pos)->value;
      old_value = *slot;
      *slot = *value;
      TVMFFIMapImplIterUnlink(&tmp, new_pos);
      TVMFFIMapImplIterPushBack(&tmp, new_pos);
    }
    free(hashes);
    if (src->data_deleter != NULL) src->data_deleter(src->data);
    *dst = tmp;
  }
  src->data = NULL;
  src->size = 0;
  src->slots = 0;
  src->data_deleter = NULL;
  if (found != TVMFFI_MAP_ITER_END) {
    TVMFFIContainerImplRelease(key); /* the stored key stays */
    TVMFFIContainerImplRelease(&old_value);
  } else {
    TVMFFIContainerImplReset(key);
  }
  TVMFFIContainerImplReset(value);
  return 0;
}

/*
 * Inserts or assigns.  `key` and `value` are owned and moved in on success
 * (an existing key keeps its stored key object; the passed one is released).
 * Assigning keeps the position in a small table and moves the entry to the
 * end of the iteration order in a dense one.  Like the reference, a full
 * small table of capacity 4 turns dense on any set, even of a present key.
 *
 * When the table needs new storage: with `allow_realloc` it is rebuilt in
 * place through TVMFFIMapCellGrowInto (the object needs room for the whole
 * 56-byte cell: any Dict, or a Map only its creator owns); without it
 * nothing is moved and 1 is returned, and the caller grows into a new
 * object with TVMFFIMapCellGrowInto (how C++ grows a copy-on-write Map).
 * Returns 0, 1, or -1 (error raised; key and value still the caller's).
 */
TVMFFI_CONTAINER_INLINE int TVMFFIMapCellInsert(TVMFFIMapCell* cell, TVMFFIAny* key,
                                                TVMFFIAny* value, int allow_realloc) {
  int small = TVMFFIMapCellIsSmall(cell);
  uint64_t hash = 0, pos;
  if (small && cell->size >= TVMFFIMapCellNumSlots(cell) && TVMFFIMapCellGrowCapacity(cell) == 0)
    goto grow;
  if (!small && cell->slots == 0) goto grow; /* a moved-from cell has no storage */
  if (!small && TVMFFIContainerAnyHash(key, &hash) != 0) return -1;
  if (TVMFFIMapImplFindHashed(cell, key, hash, &pos) != 0) return -1;
  if (pos != TVMFFI_MAP_ITER_END) {
    TVMFFIAny* slot = TVMFFIMapCellValue(cell, pos);
    TVMFFIAny old = *slot;
    *slot = *value;
    TVMFFIContainerImplReset(value);
    if (!small) {
      TVMFFIMapImplIterUnlink(cell, pos);
      TVMFFIMapImplIterPushBack(cell, pos);
    }
    /* Release last: a deleter may re-enter and look at this table. */
    TVMFFIContainerImplRelease(key);
    TVMFFIContainerImplRelease(&old);
    return 0;
  }
  if (small) {
    if (cell->size < TVMFFIMapCellNumSlots(cell)) {
      TVMFFIMapKV* kv = TVMFFIMapImplSmallKV(cell, cell->size);
      kv->key = *key;
      kv->value = *value;
      cell->size += 1;
      TVMFFIContainerImplReset(key);
      TVMFFIContainerImplReset(value);
      return 0;
    }
  } else if (TVMFFIMapImplDensePlace(cell, hash, key, value, &pos) == 0) {
    TVMFFIContainerImplReset(key);
    TVMFFIContainerImplReset(value);
    return 0;
  }
grow:
  if (!allow_realloc) return 1;
  {
    TVMFFIMapCell tmp;
    if (TVMFFIMapCellGrowInto(cell, &tmp, NULL, key, value) != 0) return -1;
    if (TVMFFIMapCellIsSmall(&tmp))
      memcpy(cell, &tmp, 32);
    else
      *cell = tmp;
  }
  return 0;
}

/* ---- removal ---- */

/*
 * Erases the entry at a valid position, releasing its key and value.
 * Small: the tail shifts left.  Dense: the chain's last element fills the
 * hole (docs/abi.md §7.8).  Never fails.
 */
TVMFFI_CONTAINER_INLINE void TVMFFIMapCellErase(TVMFFIMapCell* cell, uint64_t pos) {
  TVMFFIAny old_key, old_value;
  if (TVMFFIMapCellIsSmall(cell)) {
    TVMFFIMapKV* kv = TVMFFIMapImplSmallKV(cell, pos);
    old_key = kv->key;
    old_value = kv->value;
    if (pos + 1 < cell->size)
      memmove(kv, kv + 1, (size_t)(cell->size - pos - 1) * sizeof(TVMFFIMapKV));
    cell->size -= 1;
  } else {
    TVMFFIMapDenseItem* it = TVMFFIMapDenseItemPtr(cell, pos);
    uint8_t meta = *TVMFFIMapDenseMeta(cell, pos);
    old_key = it->key;
    old_value = it->value;
    cell->size -= 1;
    if ((meta & 0x7F) == 0) {
      if (meta & 0x80) TVMFFIMapImplSetJump(cell, TVMFFIMapImplChainPrev(cell, pos), 0);
      TVMFFIMapImplIterUnlink(cell, pos);
      *TVMFFIMapDenseMeta(cell, pos) = TVMFFI_MAP_META_EMPTY;
    } else {
      uint64_t prev = pos, last = TVMFFIMapImplChainNext(cell, pos, meta);
      for (;;) {
        uint64_t nx = TVMFFIMapImplChainNext(cell, last, *TVMFFIMapDenseMeta(cell, last));
        if (nx == TVMFFI_MAP_ITER_END) break;
        prev = last;
        last = nx;
      }
      TVMFFIMapImplIterUnlink(cell, pos);
      TVMFFIMapDenseItem* lt = TVMFFIMapDenseItemPtr(cell, last);
      it->key = lt->key;
      it->value = lt->value;
      TVMFFIMapImplIterReplace(cell, last, pos);
      *TVMFFIMapDenseMeta(cell, last) = TVMFFI_MAP_META_EMPTY;
      TVMFFIMapImplSetJump(cell, prev, 0);
    }
  }
  TVMFFIContainerImplRelease(&old_key);
  TVMFFIContainerImplRelease(&old_value);
}

/* Releases every entry without touching the storage (size becomes 0; a
 * dense table is reset to all-empty, keeping its slots). */
TVMFFI_CONTAINER_INLINE void TVMFFIMapCellClear(TVMFFIMapCell* cell) {
  uint64_t n = cell->size;
  if (n == 0) return;
  if (TVMFFIMapCellIsSmall(cell)) {
    /* Detach first so re-entrant deleters see an empty table. */
    TVMFFIMapKV* kv = (TVMFFIMapKV*)cell->data;
    cell->size = 0;
    for (uint64_t i = 0; i < n; ++i) {
      TVMFFIContainerImplRelease(&kv[i].key);
      TVMFFIContainerImplRelease(&kv[i].value);
    }
    return;
  }
  uint64_t blocks = (cell->slots + TVMFFI_MAP_BLOCK_CAP - 1) / TVMFFI_MAP_BLOCK_CAP;
  cell->size = 0;
  uint64_t head = cell->iter_list_head;
  cell->iter_list_head = cell->iter_list_tail = TVMFFI_MAP_ITER_END;
  /* Collect in iteration order via the links, then mark slots empty. */
  for (uint64_t s = head; s != TVMFFI_MAP_ITER_END;) {
    TVMFFIMapDenseItem* it = TVMFFIMapDenseItemPtr(cell, s);
    uint64_t next = it->next;
    *TVMFFIMapDenseMeta(cell, s) = TVMFFI_MAP_META_EMPTY;
    TVMFFIContainerImplRelease(&it->key);
    TVMFFIContainerImplRelease(&it->value);
    s = next;
  }
  for (uint64_t b = 0; b < blocks; ++b)
    memset((char*)cell->data + b * TVMFFI_MAP_BLOCK_BYTES, TVMFFI_MAP_META_EMPTY,
           TVMFFI_MAP_BLOCK_CAP);
}

/* Releases every entry and the storage (through data_deleter); the cell is
 * left empty (data NULL, size 0, slots 0).  For object deleters. */
TVMFFI_CONTAINER_INLINE void TVMFFIMapCellDestroy(TVMFFIMapCell* cell) {
  if (TVMFFIMapCellIsSmall(cell)) {
    TVMFFIMapCellClear(cell);
  } else if (cell->data != NULL) {
    /* Walk the metadata, not the links: robust even mid-relocation. */
    uint64_t slots = cell->slots;
    for (uint64_t s = 0; s < slots; ++s) {
      uint8_t meta = *TVMFFIMapDenseMeta(cell, s);
      if (meta == TVMFFI_MAP_META_EMPTY || meta == TVMFFI_MAP_META_PROTECTED) continue;
      TVMFFIMapDenseItem* it = TVMFFIMapDenseItemPtr(cell, s);
      TVMFFIContainerImplRelease(&it->key);
      TVMFFIContainerImplRelease(&it->value);
    }
  }
  if (cell->data_deleter != NULL && cell->data != NULL) cell->data_deleter(cell->data);
  cell->data = NULL;
  cell->size = 0;
  cell->slots = 0;
  cell->data_deleter = NULL;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#if defined(__cplusplus)
static_assert(sizeof(TVMFFIMapCell) == 56, "TVMFFIMapCell must be 56 bytes");
static_assert(sizeof(TVMFFIMapKV) == 32, "TVMFFIMapKV must be 32 bytes");
static_assert(sizeof(TVMFFIMapDenseItem) == 48, "TVMFFIMapDenseItem must be 48 bytes");
#else
_Static_assert(sizeof(TVMFFIMapCell) == 56, "TVMFFIMapCell must be 56 bytes");
_Static_assert(sizeof(TVMFFIMapKV) == 32, "TVMFFIMapKV must be 32 bytes");
_Static_assert(sizeof(TVMFFIMapDenseItem) == 48, "TVMFFIMapDenseItem must be 48 bytes");
#endif

#endif /* TVM_FFI_EXTRA_C_MAP_H_ */
