#!/usr/bin/env python3
"""Writes GPT-2 at another sequence length from the torch_xla export at sequence 128
(../shared/models/gpt2_s128_f16.mlir), for the compile-and-replay benchmark in docs/performance.md:

    scripts/gpt2-at-sequence.py ../shared/models/gpt2_s128_f16.mlir 1024 > build/gpt2_s1024.mlir

No export at another length is published. The sequence length appears in the module as a dimension of 128
in tensor types, slices and the exporter's layout notes, as the causal mask's window (1 x 128, padded
by 127) and in four index constants (iotas over the positions, and (0, i) pairs for the gather of the
position embeddings and the mask); each is rewritten for the new length, nothing else. A dimension of 128
that is not the sequence would be rewritten too: GPT-2 small has none (d_model 768, 12 heads of 64,
MLP 3072, vocabulary 50257)."""
import re
import struct
import sys

OLD = 128


def rewrite_dims(text, new):
    def tensor(m):
        parts = m.group(1).split("x")
        return "tensor<" + "x".join(str(new) if p == str(OLD) else p for p in parts) + ">"

    text = re.sub(r"tensor<([0-9x]+[a-z][a-z0-9]*)>", tensor, text)

    def bracketed(m):  # the exporter's xla_shape notes: f16[1,12,128,64]
        parts = m.group(1).split(",")
        return "[" + ",".join(str(new) if p == str(OLD) else p for p in parts) + "]"

    text = re.sub(r"\[([0-9,]+)\]", bracketed, text)
    text = text.replace("0:%d," % OLD, "0:%d," % new)
    text = text.replace("[%d, 0]" % (OLD - 1), "[%d, 0]" % (new - 1))
    text = text.replace("window_dimensions = array<i64: 1, %d>" % OLD, "window_dimensions = array<i64: 1, %d>" % new)
    return text


def rewrite_index_constants(text, new):
    formats = {"i64": "q", "i32": "i", "ui32": "I"}

    def constant(m):
        hexdigits, element = m.group(1), m.group(3)
        fmt = formats[element]
        data = bytes.fromhex(hexdigits)
        values = struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data)
        if values == tuple(range(OLD)):
            out = list(range(new))
        elif values == tuple(v for i in range(OLD) for v in (0, i)):
            out = [v for i in range(new) for v in (0, i)]
        else:
            sys.exit("an index constant of another pattern: " + m.group(0)[:80])
        return 'dense<"0x%s"> : tensor<%sx%s>' % (struct.pack("<%d%s" % (len(out), fmt), *out).hex().upper(),
                                                 m.group(2), element)

    return re.sub(r'dense<"0x([0-9A-F]+)"> : tensor<([0-9x]+)x(i64|i32|ui32)>', constant, text)


def main():
    if len(sys.argv) != 3 or not sys.argv[2].isdigit() or int(sys.argv[2]) < 1:
        sys.exit("usage: scripts/gpt2-at-sequence.py GPT2_S128.mlir SEQUENCE_LENGTH > OUT.mlir")
    source, new = sys.argv[1], int(sys.argv[2])
    try:
        text = open(source, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as e:
        sys.exit("%s: %s" % (source, e))
    # Constants first: their types still name the old length, which is how they are recognised.
    sys.stdout.write(rewrite_dims(rewrite_index_constants(text, new), new))


if __name__ == "__main__":
    main()
