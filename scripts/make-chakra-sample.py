#!/usr/bin/env python3
"""Writes resources/samples/ddp_step/step.{0..3}.et: one data-parallel training step on 4 ranks as Chakra
execution traces. Per rank: 4 forward layers, then 4 backward layers, each followed by an all-reduce of its
gradients (8 MiB) that can overlap the next backward layer; the optimizer step waits for every all-reduce.
Rank 3 computes 30% slower (a straggler), so every all-reduce waits for it. Encoded with protoc from
core/import/proto/et_def.proto; only a developer regenerating the sample needs this script."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTO_DIR = os.path.join(ROOT, "core", "import", "proto")
OUT = os.path.join(ROOT, "resources", "samples", "ddp_step")


def encode(message_type, text):
    return subprocess.run(["protoc", "--proto_path", PROTO_DIR, "--encode=ChakraProtoMsg." + message_type,
                           "et_def.proto"], input=text.encode(), capture_output=True, check=True).stdout


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def delimited(message_type, text):
    body = encode(message_type, text)
    return varint(len(body)) + body


def node(node_id, name, node_type, micros=0, data=(), ctrl=(), attrs=""):
    deps = "".join(f"data_deps: {d}\n" for d in data) + "".join(f"ctrl_deps: {c}\n" for c in ctrl)
    return delimited("Node", f'id: {node_id}\nname: "{name}"\ntype: {node_type}\nduration_micros: {micros}\n{deps}{attrs}')


def main():
    os.makedirs(OUT, exist_ok=True)
    for rank in range(4):
        slow = 1.3 if rank == 3 else 1.0
        parts = [delimited("GlobalMetadata", 'version: "0.0.4"\n')]
        prev = None
        ids = iter(range(1, 1000))
        for layer in range(4):
            i = next(ids)
            parts.append(node(i, f"forward layer {layer}", "COMP_NODE", round(400 * slow), [prev] if prev else []))
            prev = i
        reduces = []
        for layer in reversed(range(4)):
            i = next(ids)
            parts.append(node(i, f"backward layer {layer}", "COMP_NODE", round(800 * slow), [prev]))
            prev = i
            r = next(ids)
            attrs = ('attr { name: "comm_type" int64_val: 0 }\n'
                     'attr { name: "comm_size" int64_val: 8388608 }\n')
            parts.append(node(r, f"all-reduce grads {layer}", "COMM_COLL_NODE", 0, [i], attrs=attrs))
            reduces.append(r)
        parts.append(node(next(ids), "optimizer step", "COMP_NODE", round(300 * slow), [prev] + reduces))
        with open(os.path.join(OUT, f"step.{rank}.et"), "wb") as f:
            f.write(b"".join(parts))
    print("wrote", OUT)


if __name__ == "__main__":
    sys.exit(main())
