"""Print a GGUF file as the Python gguf package reads it, for engine/gguf's tests.

The tests compare these lines with what package gguf reads from the same
file. Each line is one fact:

    file SIZE SHA256
    version V
    alignment A
    data_offset BYTES
    kv KEY TYPE VALUE       (in file order)
    tensor NAME TYPE_ID TYPE_NAME DIMS OFFSET NBYTES DATA_HASH   (in file order)

A VALUE is an integer in decimal, "true" or "false", f32:BITS or f64:BITS
(the float's bits in hex), sLEN:HASH for a string (its length in bytes and
a hash of them), or a:ELEMTYPE:LEN:HASH for an array, the hash taken over
its elements' VALUEs joined by newlines. DIMS are in ggml order, joined by
commas ("-" for none); OFFSET is from the start of the data section. A
HASH is the first 16 hex digits of a SHA-256.

Usage (gguf 0.17.1, which needs numpy):

    python3 -m venv /tmp/ggufvenv && /tmp/ggufvenv/bin/pip install gguf==0.17.1
    /tmp/ggufvenv/bin/python ggufpy_dump.py FILE > OUT

smollm2.ggufpy.txt is its output for SmolLM2-135M-Instruct.Q4_1.gguf, and
written.ggufpy.txt for the file TestGGUFPyReadsWrittenFile writes with
-ggufpy.write=FILE.
"""

import hashlib
import sys

from gguf import GGUFReader, GGUFValueType

NAMES = {
    GGUFValueType.UINT8: "uint8",
    GGUFValueType.INT8: "int8",
    GGUFValueType.UINT16: "uint16",
    GGUFValueType.INT16: "int16",
    GGUFValueType.UINT32: "uint32",
    GGUFValueType.INT32: "int32",
    GGUFValueType.FLOAT32: "float32",
    GGUFValueType.BOOL: "bool",
    GGUFValueType.STRING: "string",
    GGUFValueType.ARRAY: "array",
    GGUFValueType.UINT64: "uint64",
    GGUFValueType.INT64: "int64",
    GGUFValueType.FLOAT64: "float64",
}


def short_hash(b):
    return hashlib.sha256(b).hexdigest()[:16]


def canon(parts, i, t):
    """The VALUE of type t whose parts start at parts[i], and the index after them.

    GGUFReader flattens a value into numpy arrays: a string into its length
    and bytes, an array into its element type, its length and then each
    element's parts, recursively.
    """
    if t == GGUFValueType.STRING:
        data = parts[i + 1].tobytes()
        assert int(parts[i][0]) == len(data)
        return "s%d:%s" % (len(data), short_hash(data)), i + 2
    if t == GGUFValueType.ARRAY:
        elem = GGUFValueType(int(parts[i][0]))
        n = int(parts[i + 1][0])
        i += 2
        elems = []
        for _ in range(n):
            c, i = canon(parts, i, elem)
            elems.append(c)
        joined = "\n".join(elems).encode()
        return "a:%s:%d:%s" % (NAMES[elem], n, short_hash(joined)), i
    p = parts[i]
    if t == GGUFValueType.FLOAT32:
        return "f32:%08x" % int.from_bytes(p.tobytes(), "little"), i + 1
    if t == GGUFValueType.FLOAT64:
        return "f64:%016x" % int.from_bytes(p.tobytes(), "little"), i + 1
    if t == GGUFValueType.BOOL:
        return ("true" if bool(p[0]) else "false"), i + 1
    return str(int(p[0])), i + 1


def main(path):
    r = GGUFReader(path)
    whole = r.data.tobytes()
    print("file", len(whole), hashlib.sha256(whole).hexdigest())
    print("version", int(r.fields["GGUF.version"].parts[0][0]))
    print("alignment", int(r.alignment))
    print("data_offset", int(r.data_offset))
    for key, field in r.fields.items():
        if key.startswith("GGUF."):
            continue
        t = GGUFValueType(int(field.parts[2][0]))
        value, end = canon(field.parts, 3, t)
        assert end == len(field.parts)
        print("kv", key, NAMES[t], value)
    for t in r.tensors:
        _, _, _, dims, raw_type, offset = t.field.parts
        data = whole[t.data_offset : t.data_offset + int(t.n_bytes)]
        assert len(data) == int(t.n_bytes)
        print(
            "tensor",
            t.name,
            int(raw_type[0]),
            t.tensor_type.name,
            ",".join(str(int(d)) for d in dims) or "-",
            int(offset[0]),
            int(t.n_bytes),
            short_hash(data),
        )


if __name__ == "__main__":
    main(sys.argv[1])
