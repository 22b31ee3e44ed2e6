"""The served model file, format FDXSEM v1 (all integers little-endian):

    offset  size            field
    0       8               magic b"FDXSEM1\\0"
    8       4   u32         format version = 1
    12      4   u32         tokenizer version = 1 (the rule in common.py / README.md)
    16      4   u32         dim D
    20      4   u32         vocabulary size V
    24      4   u32         flags: bit 0 = a center vector follows the scales
    28      4   u32         length L of the vocabulary blob in bytes
    32      L               vocabulary: V UTF-8 words, each followed by b"\\n", row order
    32+L    pad             zero bytes up to a multiple of 4
    ..      V*D i8          matrix, row-major: row r is word r's vector / scale[r]
    ..      V*4 f32         scale[r]
    ..      D*4 f32         center (only if flag bit 0)

The word weights are already folded into the rows.  Embedding a text (document or query,
same code): tokenize (tokenizer v1); s = sum, over every token occurrence found in the
vocabulary, of row(t) = i8 row * scale[t] (unknown tokens are skipped); e = s / |s| (the
zero vector when no token is known); if flag bit 0: e = (e - center) / |e - center|.
Score = dot product of two embeddings (cosine).  The v1 model has no center (flag 0)."""
import struct
import numpy as np

MAGIC = b"FDXSEM1\0"


def write(path, words, mat, center=None):
    mat = np.asarray(mat, dtype=np.float32)
    V, D = mat.shape
    scale = np.abs(mat).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(mat / scale[:, None]), -127, 127).astype(np.int8)
    blob = "".join(w + "\n" for w in words).encode("utf-8")
    flags = 1 if center is not None else 0
    with open(path, "wb") as f:
        f.write(MAGIC)
        f.write(struct.pack("<6I", 1, 1, D, V, flags, len(blob)))
        f.write(blob)
        f.write(b"\0" * ((-len(blob)) % 4))
        f.write(q.tobytes())
        f.write(scale.astype("<f4").tobytes())
        if center is not None:
            f.write(np.asarray(center, dtype="<f4").tobytes())


def read(path):
    b = open(path, "rb").read()
    assert b[:8] == MAGIC, "not an FDXSEM1 file"
    ver, tok, D, V, flags, L = struct.unpack_from("<6I", b, 8)
    assert ver == 1 and tok == 1
    o = 32
    words = b[o:o + L].decode("utf-8").split("\n")[:-1]
    o += L + ((-L) % 4)
    q = np.frombuffer(b, dtype=np.int8, count=V * D, offset=o).reshape(V, D); o += V * D
    scale = np.frombuffer(b, dtype="<f4", count=V, offset=o); o += 4 * V
    center = None
    if flags & 1:
        center = np.frombuffer(b, dtype="<f4", count=D, offset=o).copy(); o += 4 * D
    assert o == len(b)
    return words, q.astype(np.float32) * scale[:, None], center
