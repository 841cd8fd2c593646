#!/usr/bin/env python3
"""Writes pipewhy-canonical-v1.json: PipeWhy's own graphforge-canonical/1 vectors.

Every canonical payload below is spelled out BY HAND from the contract text
(docs/contracts/graphforge-canonical-1.md) and docs/contracts/graphforge-vectors-json.md, piece by
piece with the contract's grammar as comments. This script shares no code with the Go
implementation it tests: its only helpers are the contract's primitive encodings
(big-endian integers, a text item = u64 length + UTF-8 bytes). It then wraps each payload
in the fingerprint envelope (GFFP, u8 1, u16 domain length, domain, u32 1, u64 length),
hashes it with Python's hashlib and projects the UUIDv8 (byte 6 high nibble 8, byte 8
high bits 10).

Run: python3 mkvectors.py > pipewhy-canonical-v1.json
"""
import hashlib
import json
import sys


def be(n, width, signed=True):
    return (n % (1 << (8 * width))).to_bytes(width, "big").hex() if signed or n >= 0 else None


def u8(n): return be(n, 1)
def u32(n): return be(n, 4)
def u64(n): return be(n, 8)
def i16(n): return be(n, 2)
def i32(n): return be(n, 4)
def i64(n): return be(n, 8)


def text(s):
    b = s.encode() if isinstance(s, str) else s
    return u64(len(b)) + b.hex()


NOMD = u32(0)  # empty metadata: u32 entry_count 0


def field(name, nullable, typ, md=NOMD):
    # text name, u8 nullable, data_type, metadata
    return text(name) + (u8(1) if nullable else u8(0)) + typ + md


def schema(*fields, md=NOMD):
    return "47465331" + u32(len(fields)) + "".join(fields) + md  # "GFS1"


def table(sch, rows, values):
    # "GFT1", u64 schema length, schema, u64 row_count, row values
    return "47465431" + u64(len(sch) // 2) + sch + u64(rows) + "".join(values)


P = "01"  # presence: present
N = "00"  # presence: null

vectors = []
negatives = []


def vec(id, sources, payload, domain="graphforge/arrow-result", uuid=True, registry=None):
    pre = ("47464650" + u8(1) + be(len(domain), 2) + domain.encode().hex() + u32(1)
           + u64(len(payload) // 2) + payload)
    h = hashlib.sha256(bytes.fromhex(pre)).digest()
    u = bytearray(h[:16])
    u[6] = (u[6] & 0x0F) | 0x80
    u[8] = (u[8] & 0x3F) | 0x80
    x = u.hex()
    v = {"id": id, "domain": domain, "canonical_version": 1, "source_cases": sources,
         "canonical_payload_hex": payload, "fingerprint_preimage_hex": pre, "sha256": h.hex()}
    if uuid:
        v["uuid_v8"] = f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"
    if registry is not None:
        v["metadata_registry"] = registry
    vectors.append(v)


def neg(id, error, source, **kw):
    n = {"id": id, "error": error, "source": source}
    n.update(kw)
    negatives.append(n)


def tbl(fields, batches, **kw):
    s = {"kind": "table", "fields": fields, "batches": batches}
    s.update(kw)
    return s


def F(name, nullable, typ, **kw):
    f = {"name": name, "nullable": nullable, "type": typ}
    f.update(kw)
    return f


# ---------------------------------------------------------------- integers: tags 10..17
ints = [("i8", "int8", "10"), ("i16", "int16", "11"), ("i32", "int32", "12"), ("i64", "int64", "13"),
        ("u8", "uint8", "14"), ("u16", "uint16", "15"), ("u32", "uint32", "16"), ("u64", "uint64", "17")]
fs = [F(n, True, t) for n, t, _ in ints]
row1 = [-1, -2, -3, "-4", 255, 65535, 4294967295, "18446744073709551615"]
row2 = [None] * 8
row3 = [-128, 32767, "-2147483648", "9223372036854775807", 0, 1, 2, "3"]
sch = schema(*[field(n, True, tag) for n, _, tag in ints])
vec("integers-all-widths", [
    tbl(fs, [[row1, row2, row3]]),
    tbl(fs, [[row1], [row2, row3]]),  # batch boundaries do not participate
], table(sch, 3, [
    P + "ff", P + "fffe", P + "fffffffd", P + "fffffffffffffffc",
    P + "ff", P + "ffff", P + "ffffffff", P + "ffffffffffffffff",
    N * 8,
    P + "80", P + "7fff", P + "80000000", P + "7fffffffffffffff",
    P + "00", P + "0001", P + "00000002", P + "0000000000000003",
]))

# ---------------------------------------------------------------- bool (02) and null (01)
fs = [F("b", True, "bool"), F("n", True, "null")]
vec("bool-and-null", [tbl(fs, [[[True, None], [False, None], [None, None]]])],
    table(schema(field("b", True, "02"), field("n", True, "01")), 3,
          [P + "01", N, P + "00", N, N, N]))

# ---------------------------------------------------------------- floats 20..22
fs = [F("h", False, "float16"), F("f", False, "float32"), F("d", False, "float64")]
vec("float-canonicalisation", [
    tbl(fs, [[["bits:8000", "bits:80000000", "bits:8000000000000000"],      # -0 -> +0
              ["bits:fc01", "bits:ff800001", "bits:fff0000000000001"],      # NaNs, sign and payload
              [1.5, -2.5, "bits:fff0000000000000"],                        # finite, -inf
              ["bits:7c00", "bits:7f800000", "bits:0000000000000001"]]]),  # +inf, subnormal kept
    tbl(fs, [[["bits:0000", 0, 0.0],
              ["bits:7d55", "bits:7fc00001", "bits:7ff8000000000001"]],
             [["bits:3e00", "bits:c0200000", "bits:fff0000000000000"],
              [ "bits:7c00", "bits:7f800000", "bits:0000000000000001"]]]),
], table(schema(field("h", False, "20"), field("f", False, "21"), field("d", False, "22")), 4, [
    P + "0000", P + "00000000", P + "0000000000000000",
    P + "7e00", P + "7fc00000", P + "7ff8000000000000",
    P + "3e00", P + "c0200000", P + "fff0000000000000",
    P + "7c00", P + "7f800000", P + "0000000000000001",
]))

# ---------------------------------------------------------------- UTF-8 (30): utf8, large_utf8 and dictionary converge
vals = ["", "h\u00e9llo", None]
vec("utf8-large-utf8-dictionary", [
    tbl([F("s", True, "utf8")], [[[v] for v in vals]]),
    tbl([F("s", True, "large_utf8")], [[[v] for v in vals[:1]], [[v] for v in vals[1:]]]),
    tbl([F("s", True, {"dictionary": {"index": "uint8", "value": "large_utf8"}})],
        [[[2], [0]], [[None]]], batch_dictionaries=[{"s": ["h\u00e9llo", "x", ""]}, {"s": []}]),
    tbl([F("s", True, {"dictionary": {"index": "int64", "value": "utf8"}})],
        [[[0], [1], [2]]], dictionaries={"s": ["", "h\u00e9llo", None]}),  # null dictionary slot
], table(schema(field("s", True, "30")), 3, [
    P + text(""), P + text("h\u00e9llo"), N,
]))

# ---------------------------------------------------------------- binary (31), fixed-size binary (32)
vec("binary-large-binary", [
    tbl([F("b", True, "binary")], [[["hex:"], ["hex:00ff"], [None]]]),
    tbl([F("b", True, "large_binary")], [[["hex:"]], [["hex:00ff"], [None]]]),
], table(schema(field("b", True, "31")), 3, [P + u64(0), P + u64(2) + "00ff", N]))

vec("fixed-size-binary", [
    tbl([F("k", True, {"fixed_size_binary": 3})], [[["hex:010203"], [None]]]),
], table(schema(field("k", True, "32" + u32(3))), 2, [P + "010203", N]))

vec("uuid-text-nil-and-max", [
    tbl([F("u", False, {"fixed_size_binary": 16})],
        [[["00000000-0000-0000-0000-000000000000"], ["FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"]]]),
    tbl([F("u", False, {"fixed_size_binary": 16})],
        [[["hex:00000000000000000000000000000000"], ["hex:ffffffffffffffffffffffffffffffff"]]]),
], table(schema(field("u", False, "32" + u32(16))), 2, [P + "00" * 16, P + "ff" * 16]))

# ---------------------------------------------------------------- decimals 40, 41
vec("decimal128", [
    tbl([F("x", True, {"decimal128": {"precision": 5, "scale": 2}})], [[["-12.30"], ["999.99"], [None]]]),
    tbl([F("x", True, {"decimal128": {"precision": 5, "scale": 2}})], [[["-1.23E+1"], ["99999E-2"], [None]]]),
], table(schema(field("x", True, "40" + u8(5) + u8(2))), 3, [
    P + "ff" * 14 + "fb32",            # -1230 in 16 bytes two's complement
    P + "00" * 13 + "01869f",          # 99999
    N,
]))
vec("decimal256-negative-scale", [
    tbl([F("x", False, {"decimal256": {"precision": 40, "scale": -2}})], [[["12300"], ["-100"]]]),
], table(schema(field("x", False, "41" + u8(40) + "fe")), 2, [
    P + "00" * 31 + "7b",              # 12300 / 10^2 = 123
    P + "ff" * 32,                     # -100 / 10^2 = -1
]))

# ---------------------------------------------------------------- date (50)
vec("date32-date64", [
    tbl([F("d", False, "date32")], [[[0], [-1], [19000]]]),
    tbl([F("d", False, "date64")], [[[0], ["-86400000"], ["1641600000000"]]]),
], table(schema(field("d", False, "50")), 3, [P + i32(0), P + i32(-1), P + i32(19000)]))

# ---------------------------------------------------------------- time (51): every exact unit
vec("time-every-unit", [
    tbl([F("t", False, {"time32": {"unit": "s"}})], [[[1], [86399]]]),
    tbl([F("t", False, {"time32": {"unit": "ms"}})], [[[1000], [86399000]]]),
    tbl([F("t", False, {"time64": {"unit": "us"}})], [[[1000000], ["86399000000"]]]),
    tbl([F("t", False, {"time64": {"unit": "ns"}})], [[["1000000000"], ["86399000000000"]]]),
], table(schema(field("t", False, "51")), 2, [P + u64(1_000_000), P + u64(86_399_000_000)]))
vec("time-last-microsecond", [
    tbl([F("t", False, {"time64": {"unit": "us"}})], [[["86399999999"], [0]]]),
    tbl([F("t", False, {"time64": {"unit": "ns"}})], [[["86399999999000"], [0]]]),
], table(schema(field("t", False, "51")), 2, [P + u64(86_399_999_999), P + u64(0)]))

# ---------------------------------------------------------------- timestamp (52): every UTC spelling and unit
tz_sources = []
for unit, mult in (("s", 1), ("ms", 1000), ("us", 1000000), ("ns", 1000000000)):
    for tz in ("UTC", "Etc/UTC", "Z", "+00:00"):
        tz_sources.append(tbl([F("ts", True, {"timestamp": {"unit": unit, "timezone": tz}})],
                              [[[str(1 * mult)], [str(-2 * mult)], [None]]]))
vec("timestamp-utc-spellings", tz_sources,
    table(schema(field("ts", True, "52" + "01")), 3, [P + i64(1_000_000), P + i64(-2_000_000), N]))
vec("timestamp-naive", [
    tbl([F("ts", False, {"timestamp": {"unit": "ms", "timezone": None}})], [[["1700000000123"]]]),
    tbl([F("ts", False, {"timestamp": {"unit": "us"}})], [[["1700000000123000"]]]),
], table(schema(field("ts", False, "52" + "00")), 1, [P + i64(1_700_000_000_123_000)]))

# ---------------------------------------------------------------- duration (53)
vec("duration-every-unit", [
    tbl([F("d", False, {"duration": {"unit": u}})], [[[str(-2 * m)], [str(3 * m)]]])
    for u, m in (("s", 1), ("ms", 1000), ("us", 1000000), ("ns", 1000000000))
], table(schema(field("d", False, "53")), 2, [P + i64(-2_000_000), P + i64(3_000_000)]))

# ---------------------------------------------------------------- intervals 54, 55, 56
vec("intervals", [
    tbl([F("ym", True, {"interval": "year_month"}), F("dt", True, {"interval": "day_time"}),
         F("mdn", True, {"interval": "month_day_nano"})],
        [[[14, [-1, 500], [1, -2, "-3"]], [None, None, None]]]),
], table(schema(field("ym", True, "54"), field("dt", True, "55"), field("mdn", True, "56")), 2, [
    P + i32(14), P + i32(-1) + i32(500), P + i32(1) + i32(-2) + i64(-3),
    N, N, N,
]))

# ---------------------------------------------------------------- lists (60), fixed-size list (61)
item_i32 = field("item", True, "12")
vec("list-large-list", [
    tbl([F("l", True, {"list": {"item": "int32", "item_nullable": True}})], [[[[1, None]], [[]], [None]]]),
    tbl([F("l", True, {"large_list": {"item": "int32", "item_nullable": True}})], [[[[1, None]]], [[[]], [None]]]),
], table(schema(field("l", True, "60" + item_i32)), 3, [
    P + u64(2) + P + i32(1) + N,
    P + u64(0),
    N,
]))
vec("list-item-name-and-metadata", [
    tbl([F("l", False, {"list": {"item": "utf8", "item_nullable": False, "item_name": "element",
                                 "item_metadata": {"zz-comment": "x", "graphforge.contract.kind": "tag",
                                                   "graphforge.query_id": "q1"}}})],
        [[[["a"]]]]),
], table(schema(field("l", False, "60" + field("element", False, "30",
                                                u32(1) + text("graphforge.contract.kind") + text("tag")))), 1, [
    P + u64(1) + P + text("a"),
]))
vec("fixed-size-list", [
    tbl([F("p", True, {"fixed_size_list": {"item": "int64", "item_nullable": False, "size": 2}})],
        [[[[1, 2]], [None], [["-1", "9"]]]]),
], table(schema(field("p", True, "61" + u32(2) + field("item", False, "13"))), 3, [
    P + P + i64(1) + P + i64(2),   # no element count; each element has its presence byte
    N,                             # a null fixed-size list encodes no elements
    P + P + i64(-1) + P + i64(9),
]))

# ---------------------------------------------------------------- struct (62)
vec("struct", [
    tbl([F("s", True, {"struct": [F("a", False, "int32"), F("b", True, "utf8")]})],
        [[[[7, "x"]], [[8, None]], [None]]]),
], table(schema(field("s", True, "62" + u32(2) + field("a", False, "12") + field("b", True, "30"))), 3, [
    P + P + i32(7) + P + text("x"),
    P + P + i32(8) + N,
    N,                              # a null struct encodes no children
]))

# ---------------------------------------------------------------- map (63): sorted by full key bytes
map_t = {"map": {"key": "utf8", "value": "int64", "value_nullable": True}}
map_sorted = {"map": {"key": "utf8", "value": "int64", "value_nullable": True, "keys_sorted": True}}
map_schema = schema(field("m", True, "63" + field("key", False, "30") + field("value", True, "13")))
vec("map-sort-by-full-key-bytes", [
    tbl([F("m", True, map_t)], [[[[["aa", 1], ["b", 2], ["c", None]]], [[]], [None]]]),
    tbl([F("m", True, map_sorted)], [[[[["c", None], ["aa", 1], ["b", 2]]]], [[[]], [None]]]),
], table(map_schema, 3, [
    # "b" (length 1) sorts before "aa" (length 2): the u64 length prefix is compared first
    P + u64(3) + P + text("b") + P + i64(2) + P + text("c") + N + P + text("aa") + P + i64(1),
    P + u64(0),
    N,
]))
vec("map-int-keys-unsigned-byte-order", [
    tbl([F("m", False, {"map": {"key": "int32", "value": "bool", "value_nullable": False}})],
        [[[[[-1, True], [1, False]]]]]),
], table(schema(field("m", False, "63" + field("key", False, "12") + field("value", False, "02"))), 1, [
    P + u64(2) + P + i32(1) + P + "00" + P + i32(-1) + P + "01",   # 00000001 < ffffffff
]))

# ---------------------------------------------------------------- schema metadata filtering
vec("schema-metadata-filtering", [
    {"kind": "schema",
     "fields": [{"name_hex": "c3a9", "nullable": True, "type": "int8",
                 "metadata": [["graphforge.contract.z", "2"], ["graphforge.contract.a", "1"],
                              ["graphforge.ontology_mode", "x"], ["ARROW:comment", "c"]]}],
     "metadata": {"graphforge.contract.schema": "s", "graphforge.ontology_version": "7",
                  "writer": "pipewhy", "created_at": "2026-01-01"}},
], schema(field("\u00e9", True, "10",
                u32(2) + text("graphforge.contract.a") + text("1") + text("graphforge.contract.z") + text("2")),
          md=u32(1) + text("graphforge.contract.schema") + text("s")),
    domain="graphforge/schema")

# Result-contract keys participate when the owning registry declares them. The default
# registry of graphforge/arrow-result is GraphForge's standard result registry, which
# declares the keys GraphForge's engine writes; graphforge.query_id stays volatile.
# Sorted by raw key bytes: algorithm < algorithm_schema_version < verb.
vec("result-contract-keys-default-registry", [
    tbl([F("x", True, "int8")], [], metadata={"graphforge.verb": "rank", "graphforge.algorithm": "pagerank",
                                             "graphforge.algorithm_schema_version": "1", "graphforge.query_id": "q"}),
], table(schema(field("x", True, "10"),
                md=u32(3) + text("graphforge.algorithm") + text("pagerank")
                + text("graphforge.algorithm_schema_version") + text("1") + text("graphforge.verb") + text("rank")),
         0, []))
# A vector declares its own registry: a semantic key participates, a volatile one does not.
vec("metadata-registry-declared-by-vector", [
    {"kind": "schema", "fields": [F("x", True, "int8", metadata={"graphforge.build": "b1", "graphforge.algorithm": "pagerank"})]},
], schema(field("x", True, "10", u32(1) + text("graphforge.algorithm") + text("pagerank"))),
    domain="graphforge/schema",
    registry={"semantic_keys": ["graphforge.algorithm"], "volatile_keys": ["graphforge.build"]})

# ---------------------------------------------------------------- zero columns, zero rows
vec("zero-column-table-keeps-rows", [
    tbl([], [[[], [], []]]),
    tbl([], [[[]], [[], []]]),
    tbl([], [[[], []], [], [[]]]),
], table(schema(), 3, []))
vec("empty-table", [
    tbl([F("x", False, "int64")], []),
    tbl([F("x", False, "int64")], [[]]),
    tbl([F("x", False, "int64")], [[], []]),
], table(schema(field("x", False, "13")), 0, []), domain="graphforge/lineage")

# ---------------------------------------------------------------- other domains, same payload
for d in ("graphforge/evidence-link", "graphforge/confidence-assessment", "graphforge/provenance-event",
          "graphforge/invocation-descriptor", "graphforge/graph-projection"):
    vec("domain-" + d.split("/")[1], [tbl([F("v", False, "bool")], [[[True]]])],
        table(schema(field("v", False, "02")), 1, [P + "01"]), domain=d)

# ================================================================= negative vectors
for t in ("dense_union", "sparse_union", "run_end_encoded", "utf8_view", "binary_view",
          "list_view", "large_list_view", "opaque"):
    neg("rejected-" + t, "GF_CANONICAL_ARROW_TYPE", tbl([F("x", True, t)], []))
neg("rejected-type-nested-in-list", "GF_CANONICAL_ARROW_TYPE",
    tbl([F("x", True, {"list": {"item": "utf8_view", "item_nullable": True}})], []))
neg("extension-unregistered", "GF_CANONICAL_ARROW_TYPE",
    tbl([F("x", True, {"extension": {"name": "graphforge.test", "version": 1, "storage": "int64"}})], [[[1]]]))
neg("extension-without-version", "GF_CANONICAL_ARROW_TYPE",
    tbl([F("x", True, {"extension": {"name": "graphforge.test", "storage": "int64"}})], []))

neg("utf8-invalid-value", "GF_CANONICAL_UTF8", tbl([F("s", True, "utf8")], [[[{"utf8_hex": "ff"}]]]))
neg("large-utf8-invalid-value", "GF_CANONICAL_UTF8", tbl([F("s", True, "large_utf8")], [[[{"utf8_hex": "e282"}]]]))
neg("utf8-invalid-in-dictionary", "GF_CANONICAL_UTF8",
    tbl([F("s", True, {"dictionary": {"index": "int8", "value": "utf8"}})], [[[0]]],
        dictionaries={"s": [{"utf8_hex": "c0af"}]}))
neg("utf8-invalid-field-name", "GF_CANONICAL_UTF8",
    {"kind": "schema", "fields": [{"name_hex": "ff", "nullable": True, "type": "int8"}]})
neg("utf8-invalid-metadata-value", "GF_CANONICAL_UTF8",
    {"kind": "schema", "fields": [F("x", True, "int8", metadata={"graphforge.contract.u": {"utf8_hex": "80"}})]})

neg("timestamp-sub-microsecond", "GF_CANONICAL_TEMPORAL",
    tbl([F("t", True, {"timestamp": {"unit": "ns", "timezone": "UTC"}})], [[["1500"]]]))
neg("timestamp-seconds-overflow", "GF_CANONICAL_TEMPORAL",
    tbl([F("t", True, {"timestamp": {"unit": "s", "timezone": None}})], [[["9223372036855"]]]))
neg("duration-ms-overflow", "GF_CANONICAL_TEMPORAL",
    tbl([F("d", True, {"duration": {"unit": "ms"}})], [[["-9223372036854776"]]]))
neg("duration-sub-microsecond", "GF_CANONICAL_TEMPORAL",
    tbl([F("d", True, {"duration": {"unit": "ns"}})], [[["-1"]]]))
neg("time64-ns-sub-microsecond", "GF_CANONICAL_TEMPORAL",
    tbl([F("t", True, {"time64": {"unit": "ns"}})], [[["1001"]]]))
neg("time64-us-end-of-day", "GF_CANONICAL_TEMPORAL",
    tbl([F("t", True, {"time64": {"unit": "us"}})], [[["86400000000"]]]))
neg("time32-negative", "GF_CANONICAL_TEMPORAL", tbl([F("t", True, {"time32": {"unit": "s"}})], [[[-1]]]))
neg("date64-not-whole-day", "GF_CANONICAL_TEMPORAL", tbl([F("d", True, "date64")], [[["86400001"]]]))
neg("date64-days-overflow-i32", "GF_CANONICAL_TEMPORAL",
    tbl([F("d", True, "date64")], [[["185542587187200000"]]]))   # 2^31 days
neg("timestamp-non-utc-zone", "GF_CANONICAL_TEMPORAL",
    tbl([F("t", True, {"timestamp": {"unit": "us", "timezone": "Europe/Paris"}})], []),
    error_normative=False)
neg("timestamp-non-zero-offset", "GF_CANONICAL_TEMPORAL",
    tbl([F("t", True, {"timestamp": {"unit": "us", "timezone": "+01:00"}})], []),
    error_normative=False)
neg("timestamp-lowercase-utc", "GF_CANONICAL_TEMPORAL",
    tbl([F("t", True, {"timestamp": {"unit": "us", "timezone": "utc"}})], []),
    error_normative=False)

neg("map-duplicate-key", "GF_CANONICAL_MAP_KEY", tbl([F("m", True, map_t)], [[[[["k", 1], ["j", 2], ["k", 1]]]]]))
neg("map-duplicate-key-in-list", "GF_CANONICAL_MAP_KEY",
    tbl([F("l", True, {"list": {"item": map_t, "item_nullable": True}})], [[[[[], [["x", 1], ["x", None]]]]]]))
neg("map-null-key", "GF_CANONICAL_NULLABILITY", tbl([F("m", True, map_t)], [[[[[None, 1]]]]]),
    acceptable_errors=["GF_CANONICAL_MAP_KEY"])

neg("null-in-non-nullable-column", "GF_CANONICAL_NULLABILITY", tbl([F("x", False, "utf8")], [[["a"], [None]]]))
neg("null-in-non-nullable-list-item", "GF_CANONICAL_NULLABILITY",
    tbl([F("l", True, {"list": {"item": "int8", "item_nullable": False}})], [[[[1, None]]]]))
neg("null-in-non-nullable-struct-child", "GF_CANONICAL_NULLABILITY",
    tbl([F("s", True, {"struct": [F("a", False, "bool")]})], [[[[None]]]]))
neg("null-in-non-nullable-map-value", "GF_CANONICAL_NULLABILITY",
    tbl([F("m", True, {"map": {"key": "utf8", "value": "int8", "value_nullable": False}})], [[[[["a", None]]]]]))
neg("null-dictionary-slot-in-non-nullable", "GF_CANONICAL_NULLABILITY",
    tbl([F("s", False, {"dictionary": {"index": "int8", "value": "utf8"}})], [[[0]]], dictionaries={"s": [None]}))
neg("null-type-in-non-nullable", "GF_CANONICAL_NULLABILITY", tbl([F("n", False, "null")], [[[None]]]))

neg("nesting-depth-33-large-list", "GF_CANONICAL_LIMIT", {"type": "large_list", "nested_depth": 33})
neg("text-limit-plus-one", "GF_CANONICAL_LIMIT", {"simulated_text_byte_length": 16777217})
neg("binary-limit-plus-one", "GF_CANONICAL_LIMIT", {"simulated_binary_byte_length": 67108865})
neg("list-elements-plus-one", "GF_CANONICAL_LIMIT", {"simulated_list_element_count": 10000001})
neg("rows-plus-one", "GF_CANONICAL_LIMIT", {"simulated_row_count": 100000001})
neg("payload-plus-one", "GF_CANONICAL_LIMIT", {"simulated_payload_byte_length": 2147483649})
neg("metadata-entries-257", "GF_CANONICAL_LIMIT",
    {"kind": "schema", "fields": [], "metadata": [[f"k{i}", "v"] for i in range(257)]})
neg("fields-4097", "GF_CANONICAL_LIMIT",
    {"kind": "schema", "fields": [F(f"f{i}", True, "null") for i in range(4097)]})
neg("struct-fields-4097", "GF_CANONICAL_LIMIT",
    {"kind": "schema", "fields": [F("s", True, {"struct": [F(f"f{i}", True, "null") for i in range(4097)]})]})
neg("fixed-size-list-size-over-limit", "GF_CANONICAL_LIMIT",
    {"kind": "schema", "fields": [F("p", True, {"fixed_size_list": {"item": "null", "item_nullable": True,
                                                                     "size": 10000001}})]})

neg("decimal-precision-overflow", "GF_CANONICAL_ENCODING",
    tbl([F("x", True, {"decimal128": {"precision": 3, "scale": 0}})], [[["1000"]]]), error_normative=False)
neg("decimal256-precision-overflow", "GF_CANONICAL_ENCODING",
    tbl([F("x", True, {"decimal256": {"precision": 2, "scale": 1}})], [[["-10.0"]]]), error_normative=False)
neg("fixed-size-binary-width-mismatch", "GF_CANONICAL_ENCODING",
    tbl([F("k", True, {"fixed_size_binary": 4})], [[["hex:010203"]]]), error_normative=False)
neg("fixed-size-list-wrong-length", "GF_CANONICAL_ENCODING",
    tbl([F("p", True, {"fixed_size_list": {"item": "int8", "item_nullable": True, "size": 2}})], [[[[1]]]]),
    error_normative=False)
neg("duplicate-metadata-key", "GF_CANONICAL_ENCODING",
    {"kind": "schema", "fields": [F("x", True, "int8", metadata=[["a", "1"], ["a", "2"]])]}, error_normative=False)
neg("unknown-graphforge-metadata-key", "GF_CANONICAL_ENCODING",
    {"kind": "schema", "fields": [], "metadata": {"graphforge.future_key": "x"}}, error_normative=False)
neg("registry-does-not-declare-key", "GF_CANONICAL_ENCODING",
    tbl([F("x", True, "int8")], [], metadata={"graphforge.algorithm": "pagerank", "graphforge.verb": "rank"}),
    metadata_registry={"semantic_keys": ["graphforge.algorithm"]}, error_normative=False)
neg("undeclared-result-contract-key", "GF_CANONICAL_ENCODING",
    {"kind": "schema", "fields": [F("x", True, "int8", metadata={"graphforge.algorithm": "pagerank"})]},
    error_normative=False)
neg("invalid-dictionary-index", "GF_CANONICAL_ENCODING",
    tbl([F("s", True, {"dictionary": {"index": "int8", "value": "utf8"}})], [[[0], [2]]], dictionaries={"s": ["a", "b"]}),
    error_normative=False)
neg("negative-dictionary-index", "GF_CANONICAL_ENCODING",
    tbl([F("s", True, {"dictionary": {"index": "int16", "value": "utf8"}})], [[[-1]]], dictionaries={"s": ["a"]}),
    error_normative=False)
neg("uuid-text-braces", "GF_CANONICAL_ENCODING",
    tbl([F("u", True, {"fixed_size_binary": 16})], [[["{018f47d2-a1b2-7c3d-8e4f-001122334455}"]]]),
    error_normative=False)
neg("uuid-text-urn", "GF_CANONICAL_ENCODING",
    tbl([F("u", True, {"fixed_size_binary": 16})], [[["urn:uuid:018f47d2-a1b2-7c3d-8e4f-001122334455"]]]),
    error_normative=False)
neg("uuid-text-no-hyphens", "GF_CANONICAL_ENCODING",
    tbl([F("u", True, {"fixed_size_binary": 16})], [[["018f47d2a1b27c3d8e4f001122334455"]]]),
    error_normative=False)
neg("uuid-text-non-rfc-variant", "GF_CANONICAL_ENCODING",
    tbl([F("u", True, {"fixed_size_binary": 16})], [[["018f47d2-a1b2-7c3d-cf4f-001122334455"]]]),
    error_normative=False)
neg("unknown-domain", "GF_CANONICAL_ENCODING", tbl([F("x", True, "int8")], []),
    domain="graphforge/Arrow-Result", error_normative=False)
neg("contract-version-2", "GF_UNSUPPORTED_CONTRACT_VERSION", tbl([F("x", True, "int8")], []), canonical_version=2)

# One vector per line: diffable, and compact despite the 4097-field cases.
out = sys.stdout
out.write('{"format": "graphforge-canonical-golden-v1", "canonical_contract_version": 1,\n"vectors": [\n')
out.write(",\n".join(json.dumps(v, ensure_ascii=False) for v in vectors))
out.write('\n],\n"negative_vectors": [\n')
out.write(",\n".join(json.dumps(n, ensure_ascii=False) for n in negatives))
out.write("\n]}\n")
