"""Writes the fixtures the Go tests check dequantization against.

For each tensor type the package reads, this makes blocks of random bytes
with edge values written over them (scales of 0, -0, the largest and
smallest f16 numbers, subnormals, infinities and NaNs; quants all 0 and
all at their largest; negative mins), dequantizes them with the Python
gguf package (the one llama.cpp's conversion scripts use), and writes one
file per type:

    uint32 type id, uint32 number of blocks n   (little-endian)
    n blocks, as stored in a GGUF file
    n * block size float32 numbers, the dequantized values (little-endian)

Run it from this directory with gguf 0.17.1 installed:

    python3 gen_fixtures.py
"""

import struct

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf.constants import GGML_QUANT_SIZES
from gguf.quants import dequantize

rng = np.random.default_rng(20240611)

# f16 bit patterns for the scales: zeros of both signs, the largest and the
# smallest normal number, subnormals, one and minus one, infinities, a
# quiet and a signalling NaN.
SPECIAL_F16 = [
    0x0000, 0x8000, 0x7BFF, 0xFBFF, 0x0400, 0x8400, 0x0001, 0x03FF,
    0x8001, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x7C01,
]


def typical_f16(sign=1.0):
    """A scale of the size real files hold, as f16 bits."""
    v = np.float16(sign * rng.uniform(1e-4, 0.05))
    return int(np.array([v], dtype=np.float16).view(np.uint16)[0])


def put_f16(block, off, bits):
    block[off:off + 2] = np.array([bits], dtype=np.uint16).view(np.uint8)


def scale_bits(i, stride):
    """The i-th block's scale: every special value first, then typical
    ones of both signs. stride mixes the order for a second scale."""
    k = (i * stride) % (2 * len(SPECIAL_F16))
    if k < len(SPECIAL_F16):
        return SPECIAL_F16[k]
    return typical_f16(1.0 if k % 3 else -1.0)


def blocks_for(qtype, n, fill):
    """n random blocks of qtype, each passed to fill(i, block) to write
    the edge values over."""
    _, size = GGML_QUANT_SIZES[qtype]
    data = rng.integers(0, 256, size=(n, size), dtype=np.uint8)
    for i in range(n):
        fill(i, data[i])
    return data


def pattern(i, block, lo, hi, full):
    """Sets bytes lo:hi of every 8th block to 0 and of the next one to
    full: quants all 0 and all at their largest."""
    if i % 8 == 0:
        block[lo:hi] = 0
    elif i % 8 == 1:
        block[lo:hi] = full


def fill_q8_0(i, b):
    put_f16(b, 0, scale_bits(i, 1))
    if i % 8 == 0:
        b[2:] = 0
    elif i % 8 == 1:
        b[2:] = 0x7F  # 127
    elif i % 8 == 2:
        b[2:] = 0x80  # -128


def fill_q4_0(i, b):
    put_f16(b, 0, scale_bits(i, 1))
    pattern(i, b, 2, 18, 0xFF)


def fill_q4_1(i, b):
    put_f16(b, 0, scale_bits(i, 1))
    put_f16(b, 2, scale_bits(i, 7))  # the min, negative as often as not
    pattern(i, b, 4, 20, 0xFF)


def fill_q4_k(i, b):
    put_f16(b, 0, scale_bits(i, 1))
    put_f16(b, 2, scale_bits(i, 7))
    # the 6-bit scales and mins: all 0, all 63, or random
    if i % 5 == 0:
        b[4:16] = 0
    elif i % 5 == 1:
        b[4:16] = 0xFF
    pattern(i, b, 16, 144, 0xFF)


def fill_q5_k(i, b):
    put_f16(b, 0, scale_bits(i, 1))
    put_f16(b, 2, scale_bits(i, 7))
    if i % 5 == 0:
        b[4:16] = 0
    elif i % 5 == 1:
        b[4:16] = 0xFF
    pattern(i, b, 16, 176, 0xFF)  # qh and qs: quants all 0 or all 31


def fill_q6_k(i, b):
    put_f16(b, 208, scale_bits(i, 1))
    # the int8 scales: all -128, all 127, or random
    if i % 5 == 0:
        b[192:208] = 0x80
    elif i % 5 == 1:
        b[192:208] = 0x7F
    pattern(i, b, 0, 192, 0xFF)  # ql and qh: quants all -32 or all 31


def f16_patterns():
    """Every exponent of both signs with 64 mantissas each, among them 0,
    1, the largest and the quiet bit: 4096 f16 bit patterns."""
    mants = [0, 1, 2, 0x3FF, 0x200, 0x201, 0x155, 0x2AA]
    mants += list(rng.integers(0, 0x400, size=64 - len(mants)))
    bits = [(s << 15) | (e << 10) | m for s in (0, 1) for e in range(32) for m in mants]
    return np.array(bits, dtype=np.uint16).view(np.uint8).reshape(-1, 2)


def bf16_patterns():
    """Every eighth exponent of both signs with all 8 leading mantissa
    patterns, plus the exponents 0, 1, 254 and 255 with 64 mantissas."""
    bits = []
    for s in (0, 1):
        for e in range(0, 256):
            if e in (0, 1, 127, 254, 255):
                ms = [0, 1, 0x40, 0x7F] + list(rng.integers(0, 0x80, size=60))
            elif e % 8 == 0:
                ms = [0, 0x7F] + list(rng.integers(0, 0x80, size=14))
            else:
                continue
            bits += [(s << 15) | (e << 7) | int(m) for m in ms]
    return np.array(bits, dtype=np.uint16).view(np.uint8).reshape(-1, 2)


def f32_values():
    special = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan,
               3.4028235e38, -3.4028235e38, 1.17549435e-38, 1e-45, -1e-45]
    vals = np.concatenate([np.array(special, dtype=np.float32),
                           rng.standard_normal(500).astype(np.float32),
                           (rng.standard_normal(500) * 1e30).astype(np.float32)])
    return vals.view(np.uint8).reshape(-1, 4)


def write(name, qtype, blocks):
    with np.errstate(invalid="ignore"):  # NaN and Inf scales make NaNs
        out = dequantize(blocks, qtype).astype(np.float32).reshape(-1)
    with open(name, "wb") as f:
        f.write(struct.pack("<II", int(qtype), blocks.shape[0]))
        f.write(blocks.tobytes())
        f.write(out.astype("<f4").tobytes())


write("f32.bin", T.F32, f32_values())
write("f16.bin", T.F16, f16_patterns())
write("bf16.bin", T.BF16, bf16_patterns())
write("q8_0.bin", T.Q8_0, blocks_for(T.Q8_0, 128, fill_q8_0))
write("q4_0.bin", T.Q4_0, blocks_for(T.Q4_0, 128, fill_q4_0))
write("q4_1.bin", T.Q4_1, blocks_for(T.Q4_1, 128, fill_q4_1))
write("q4_k.bin", T.Q4_K, blocks_for(T.Q4_K, 40, fill_q4_k))
write("q5_k.bin", T.Q5_K, blocks_for(T.Q5_K, 40, fill_q5_k))
write("q6_k.bin", T.Q6_K, blocks_for(T.Q6_K, 40, fill_q6_k))
