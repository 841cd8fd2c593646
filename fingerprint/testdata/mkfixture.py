#!/usr/bin/env python3
"""Writes tests/fixtures/fingerprint_v1.json from the C3 contract text alone.

It never runs PipeWhy code: descriptors and identities come from hashlib, XXH3-128
digests from Debian's xxhsum -H2 (an independent C implementation), SHA-256 digests
from hashlib, and state sums from Python integers mod 2**64.

Usage (from the repository root): python3 fingerprint/testdata/mkfixture.py
"""
import hashlib, json, os, struct, subprocess, tempfile

M = 2**64

def sha(b): return hashlib.sha256(b).hexdigest()

profile = "pipewhy.normalization/strict-v1/wire-1/sha256:" + sha(
    b'{"domain":"pipewhy.normalization","profile":"strict-v1","wire_version":1}')

schema_fields = [("1", "int"), ("7", "text")]
schema_desc = ('{"domain":"pipewhy.fingerprint.schema","fields":['
               + ",".join('{"id":"%s","type":"%s"}' % f for f in schema_fields)
               + '],"rename_policy":"keep-identity","version":1}')
schema_id = "pipewhy.schema/sha256:" + sha(schema_desc.encode())

# Records, framed by hand (C2 PW-03.03): [1, 2, field_count, (id, type_code, n, payload...)...]
R1 = [1, 2, 2, 1, 4, 1, 42, 7, 6, 2, 3, 0x636261]          # id=42 (UINT64), name="abc" (TEXT)
R2 = [1, 2, 2, 1, 3, 1, M - 1, 7, 1, 0]                     # id=-1 (INT64), name=NULL
R3 = [1, 2, 1, 1, 4, 1, 0]                                  # id=0, name absent
records = {"R1": R1, "R2": R2, "R3": R3}
K1 = [1, 2, 1, 1, 4, 1, 42]                                 # R1 projected onto key field 1
V1 = [7, 6, 2, 3, 0x636261]                                 # R1's frame of field 7

def le(words): return b"".join(struct.pack("<Q", w) for w in words)

def message(key, words, pos):
    """M = K || [position, 8 bytes LE] || words as 8 bytes LE each (contract section 4)."""
    return key + (struct.pack("<Q", pos) if pos is not None else b"") + le(words)

out = {
    "contract": "docs/contracts/C3-fingerprint.md",
    "note": "Written by fingerprint/testdata/mkfixture.py from hashlib, xxhsum -H2 and Python integers; "
            "words and digest words are decimal strings; digest_hex is xxhsum's canonical form (hi then lo, "
            "big-endian) for xxh3-128 and the first 16 SHA-256 bytes for sha256-128.",
    "profile": profile,
    "schema": {"rename_policy": "keep-identity",
               "fields": [{"id": i, "type": t} for i, t in schema_fields],
               "descriptor": schema_desc, "id": schema_id},
    "records": {k: [str(w) for w in v] for k, v in records.items()},
    "contexts": [],
}

pending = []  # (entry, msg) for xxhsum
for alg in ("xxh3-128", "sha256-128"):
    for mode in ("multiset", "ordered"):
        alg_id = "pipewhy.fingerprint/%s/v1" % alg
        desc = ('{"algorithm":"%s","domain":"pipewhy.fingerprint.context","mode":"%s",'
                '"profile":"%s","schema":"%s"}') % (alg_id, mode, profile, schema_id)
        key = hashlib.sha256(desc.encode()).digest()
        ctx = {"algorithm": alg_id, "mode": mode, "descriptor": desc,
               "id": "pipewhy.fingerprint.context/sha256:" + key.hex(), "datasets": [], "extra": []}
        sets = [("R1 R2 R3", ["R1", "R2", "R3"]), ("R1 R1", ["R1", "R1"]), ("R3 R2 R1", ["R3", "R2", "R1"]),
                ("empty", [])]
        for name, names in sets:
            ds = {"name": name, "records": names, "digests": []}
            for pos, rn in enumerate(names):
                p = pos if mode == "ordered" else None
                msg = message(key, records[rn], p)
                e = {"record": rn, "message_hex": msg.hex()}
                if p is not None:
                    e["position"] = str(p)
                pending.append((alg, e, msg))
                ds["digests"].append(e)
            ctx["datasets"].append(ds)
        for kind, words, positional in (("key", K1, False), ("value", V1, True)):
            p = 0 if (positional and mode == "ordered") else None
            msg = message(key, words, p)
            e = {"kind": kind, "of": "R1", "words": [str(w) for w in words], "message_hex": msg.hex()}
            if p is not None:
                e["position"] = str(p)
            pending.append((alg, e, msg))
            ctx["extra"].append(e)
        out["contexts"].append(ctx)

with tempfile.TemporaryDirectory() as d:
    files = []
    for i, (alg, e, msg) in enumerate(pending):
        if alg == "xxh3-128":
            fn = os.path.join(d, "m%03d" % i)
            open(fn, "wb").write(msg)
            files.append((fn, e))
        else:
            h = hashlib.sha256(msg).digest()[:16]
            e["digest_hex"] = h.hex()
            e["lo"] = str(struct.unpack("<Q", h[:8])[0])
            e["hi"] = str(struct.unpack("<Q", h[8:16])[0])
    res = subprocess.run(["xxhsum", "-H2"] + [f for f, _ in files], check=True, capture_output=True, text=True).stdout
    got = {}
    for line in res.strip().splitlines():
        h, path = line.split("  ", 1)
        got[path] = h.replace("XXH3_", "")
    for fn, e in files:
        h = got[fn]
        e["digest_hex"] = h
        e["hi"] = str(int(h[:16], 16))
        e["lo"] = str(int(h[16:], 16))

for ctx in out["contexts"]:
    for ds in ctx["datasets"]:
        lo = sum(int(e["lo"]) for e in ds["digests"]) % M
        hi = sum(int(e["hi"]) for e in ds["digests"]) % M
        ds["state"] = [str(w) for w in (1, 2, len(ds["digests"]), lo, hi)]

path = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "fingerprint_v1.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
