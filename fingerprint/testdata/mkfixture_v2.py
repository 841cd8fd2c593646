#!/usr/bin/env python3
"""Writes tests/fixtures/fingerprint_v2.json from the C3 contract text (section 13) alone.

It never runs PipeWhy code: descriptors, identities and derived keys come from hashlib,
XXH3-128 digests from Debian's xxhsum -H2 (an independent C implementation), and state
sums from Python integers mod 2**64. Records are framed by hand from C2 (PW-03.03 and
docs/contracts/C2-extensions.md).

Usage (from the repository root): python3 fingerprint/testdata/mkfixture_v2.py
"""
import datetime, hashlib, json, os, struct, subprocess, tempfile

M = 2**64
ALG = "pipewhy.fingerprint/xxh3-128-columnar/v2"
LABELS = {"field": b"pipewhy.fingerprint.v2/field",
          "record": b"pipewhy.fingerprint.v2/record",
          "value": b"pipewhy.fingerprint.v2/value"}


def sha(b): return hashlib.sha256(b).hexdigest()


# The C2 extension 1 strict profile: every type code 0..14 is valid under it.
profile = "pipewhy.normalization/strict-v1+ext1/wire-1/sha256:" + sha(
    b'{"domain":"pipewhy.normalization","extension":"pipewhy.c2-ext1","profile":"strict-v1+ext1","wire_version":1}')

# Fields 1..12 cover every value type; 100..163 are 64 int fields for the wide records.
schema_fields = [(1, "int"), (2, "bool"), (3, "float64"), (4, "text"), (5, "bytes"), (6, "decimal"),
                 (7, "timestamp"), (8, "date"), (9, "time"), (10, "duration"), (11, "nested"), (12, "any")]
schema_fields += [(100 + i, "int") for i in range(64)]
schema_desc = ('{"domain":"pipewhy.fingerprint.schema","fields":['
               + ",".join('{"id":"%d","type":"%s"}' % f for f in schema_fields)
               + '],"rename_policy":"keep-identity","version":1}')
schema_id = "pipewhy.schema/sha256:" + sha(schema_desc.encode())


def packed(b):
    """C2 text/bytes payload: [byte_count, bytes packed into little-endian words, zero padded]."""
    b = bytes(b)
    pad = b + b"\0" * (-len(b) % 8)
    return [len(b)] + [struct.unpack("<Q", pad[i:i + 8])[0] for i in range(0, len(pad), 8)]


def frame(fid, code, payload):
    return [fid, code, len(payload)] + list(payload)


def record(*frames):
    w = [1, 2, len(frames)]
    for f in frames:
        w += f
    return w


MISSING, NULL, BOOL, INT64, UINT64, FLOAT64, TEXT, BYTES, DECIMAL, TIMESTAMP = range(10)
DATE, TIME, DURATION, TIMESTAMP_NS, NESTED = range(10, 15)

days = (datetime.date(2026, 11, 1) - datetime.date(1970, 1, 1)).days
utc_ts = [2026, 11, 1, 12, 30, 45, 123456, 0, 1, 0] + packed(b"UTC")       # TIMESTAMP, fixed zone UTC
ns_ts = [2026, 11, 1, 12, 30, 45, 123456789, 0, 0, 0] + packed(b"")         # TIMESTAMP_NS, naive
berlin = [1999, 12, 31, 23, 59, 59, 999999, 1, 2, 3600000000] + packed(b"Europe/Berlin")

records = {
    # Every type code with a value.
    "R1": record(frame(1, UINT64, [42]), frame(2, BOOL, [1]), frame(3, FLOAT64, [0x3FF8000000000000]),
                 frame(4, TEXT, packed(b"abc")), frame(5, BYTES, packed(b"\x00\x01\x00")),
                 frame(6, DECIMAL, [0, 0, 1, 2, 4, 1, 1234]), frame(7, TIMESTAMP, utc_ts),
                 frame(8, DATE, [days]), frame(9, TIME, [45045123456789]), frame(10, DURATION, [M - 1, M - 1]),
                 frame(11, NESTED, packed(b"GFS1") + packed(b"\x01")), frame(12, INT64, [M - 1])),
    # Absence and emptiness: NULL, MISSING, empty text and bytes, false; INT64 -1; TIMESTAMP_NS.
    "R2": record(frame(1, INT64, [M - 1]), frame(2, BOOL, [0]), frame(3, NULL, []), frame(4, TEXT, packed(b"")),
                 frame(5, BYTES, packed(b"")), frame(6, MISSING, []), frame(7, TIMESTAMP_NS, ns_ts),
                 frame(12, NULL, [])),
    # One field.
    "R3": record(frame(1, UINT64, [0])),
    # No field at all.
    "R4": record(),
    # A 200-byte text (a 29-word frame: a long XXH3 message) and an IANA-zone timestamp.
    "R5": record(frame(1, UINT64, [7]), frame(4, TEXT, packed(bytes(range(32, 232)))), frame(7, TIMESTAMP, berlin)),
    # 14 fields: a 256-byte record message (XXH3's long path).
    "R6": record(*[frame(100 + i, UINT64, [i]) for i in range(14)]),
    # 64 fields: a 1056-byte record message (more than one 1024-byte block).
    "R7": record(*[frame(100 + i, INT64, [M - 1 - i]) for i in range(64)]),
}
KEY_FIELDS = [1, 4]


def frames_of(rec):
    out, p = [], 3
    while p < len(rec):
        n = rec[p + 2]
        out.append(rec[p:p + 3 + n])
        p += 3 + n
    return out


def le(words): return b"".join(struct.pack("<Q", w) for w in words)


class XXH:
    """Collects messages, then digests them all with one xxhsum -H2 call."""

    def __init__(self): self.pending = []

    def add(self, entry, msg):
        entry["message_hex"] = msg.hex()
        self.pending.append((entry, msg))
        return entry

    def run(self):
        with tempfile.TemporaryDirectory() as d:
            names = []
            for i, (_, msg) in enumerate(self.pending):
                fn = os.path.join(d, "m%04d" % i)
                with open(fn, "wb") as f:
                    f.write(msg)
                names.append(fn)
            res = subprocess.run(["xxhsum", "-H2"] + names, check=True, capture_output=True, text=True).stdout
            got = {}
            for line in res.strip().splitlines():
                h, path = line.split("  ", 1)
                got[path] = h.replace("XXH3_", "")
            for fn, (e, _) in zip(names, self.pending):
                h = got[fn]
                e["digest_hex"] = h
                e["hi"] = str(int(h[:16], 16))
                e["lo"] = str(int(h[16:], 16))
        self.pending = []


def dig(e): return int(e["lo"]), int(e["hi"])


def d16(e):
    lo, hi = dig(e)
    return struct.pack("<QQ", lo, hi)


out = {
    "contract": "docs/contracts/C3-fingerprint.md",
    "section": "13",
    "note": "Written by fingerprint/testdata/mkfixture_v2.py from hashlib, xxhsum -H2 and Python integers; "
            "words and digest words are decimal strings; digest_hex is xxhsum's canonical form (hi then lo, "
            "big-endian); a field digest enters a record message as lo then hi, 8 bytes little-endian each.",
    "algorithm": ALG,
    "labels": {k: v.decode() for k, v in LABELS.items()},
    "profile": profile,
    "schema": {"rename_policy": "keep-identity",
               "fields": [{"id": str(i), "type": t} for i, t in schema_fields],
               "descriptor": schema_desc, "id": schema_id},
    "records": {k: [str(w) for w in v] for k, v in records.items()},
    "key_fields": [str(k) for k in KEY_FIELDS],
    "contexts": [],
}

sets = [("R1 R2 R3", ["R1", "R2", "R3"]), ("R1 R1", ["R1", "R1"]), ("R3 R2 R1", ["R3", "R2", "R1"]),
        ("empty", []), ("all", ["R1", "R2", "R3", "R4", "R5", "R6", "R7"])]

for mode in ("multiset", "ordered"):
    desc = ('{"algorithm":"%s","domain":"pipewhy.fingerprint.context","mode":"%s",'
            '"profile":"%s","schema":"%s"}') % (ALG, mode, profile, schema_id)
    key = hashlib.sha256(desc.encode()).digest()
    keys = {k: hashlib.sha256(key + label).digest() for k, label in LABELS.items()}
    ctx = {"mode": mode, "descriptor": desc, "id": "pipewhy.fingerprint.context/sha256:" + key.hex(),
           "keys": {k: v.hex() for k, v in keys.items()}, "fields": {}, "datasets": [], "extra": []}
    out["contexts"].append(ctx)

    # Pass 1: the field digest of every frame of every record (section 13.3).
    x = XXH()
    for rn, rec in records.items():
        ctx["fields"][rn] = [x.add({"words": [str(w) for w in fr]}, keys["field"] + le(fr)) for fr in frames_of(rec)]
    x.run()

    # Pass 2: record digests (13.4), value digests (13.5), key digests (13.5).
    for name, names in sets:
        ds = {"name": name, "records": names, "digests": [], "columns": []}
        for pos, rn in enumerate(names):
            e = {"record": rn}
            p = b""
            if mode == "ordered":
                e["position"] = str(pos)
                p = struct.pack("<Q", pos)
            ds["digests"].append(x.add(e, keys["record"] + p + b"".join(d16(f) for f in ctx["fields"][rn])))
        ctx["datasets"].append(ds)
    # The key digest of R1 (key fields 1 and 4) and the value digest of R1's field 4 at position 0.
    fr = {int(f["words"][0]): f for f in ctx["fields"]["R1"]}
    ctx["extra"].append(x.add({"kind": "key", "of": "R1", "fields": [str(k) for k in KEY_FIELDS]},
                              keys["record"] + b"".join(d16(fr[k]) for k in KEY_FIELDS)))
    if mode == "ordered":
        ctx["extra"].append(x.add({"kind": "value", "of": "R1", "field": "4", "position": "0"},
                                  keys["value"] + struct.pack("<Q", 0) + d16(fr[4])))
    x.run()

    # Value digests of each dataset's records: the field digests in multiset mode, the
    # positional value digests in ordered mode (pass 3).
    for ds in ctx["datasets"]:
        vals = []
        for pos, rn in enumerate(ds["records"]):
            for f in ctx["fields"][rn]:
                if mode == "multiset":
                    vals.append((int(f["words"][0]), dig(f)))
                else:
                    vals.append((int(f["words"][0]), None, x.add({}, keys["value"] + struct.pack("<Q", pos) + d16(f))))
        x.run()
        cols = {}
        for v in vals:
            fid, d = v[0], (v[1] if v[1] is not None else dig(v[2]))
            c = cols.setdefault(fid, [0, 0, 0])
            c[0] += 1
            c[1] = (c[1] + d[0]) % M
            c[2] = (c[2] + d[1]) % M
        ds["columns"] = [{"field": str(fid), "state": [str(w) for w in (1, 2, c[0], c[1], c[2])]}
                         for fid, c in sorted(cols.items())]
        lo = sum(int(e["lo"]) for e in ds["digests"]) % M
        hi = sum(int(e["hi"]) for e in ds["digests"]) % M
        ds["state"] = [str(w) for w in (1, 2, len(ds["digests"]), lo, hi)]

path = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "fingerprint_v2.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
