#!/usr/bin/env python3
"""Stack traffic in the k-loops of qtune's x86 GEMM tiles, from the built kernel library.

For every instance of GemmTileKernel<Traits, MR, NR, Walk>::run of the x86 vector families, the
k-loops are the innermost loops of the function (a backward branch with no other loop inside)
that hold at least MR of the family's multiply instructions (vpmaddwd, vpmaddubsw, vpdpbusd). A
load or store through rsp or rbp in such a loop is an accumulator, B vector or pointer that did
not get a register: the 6x16 AVX2 tile kept an accumulator in memory, a store and a reload every
k group, and ran at 59% of its instruction's peak on an AMD EPYC (docs/x86-without-vnni.md,
"Register pressure").

  scripts/x86-kloop-spills.py LIB                   print each tile's k-loops and stack accesses
  scripts/x86-kloop-spills.py LIB --record FILE     write the counts as ceilings (JSON)
  scripts/x86-kloop-spills.py LIB --check FILE      fail where a tile has more than its ceiling,
                                                    or a recorded tile is missing

LIB is libqtune_kernels.a (or any object holding the kernels), disassembled with objdump -d -C.
"""
import argparse
import json
import re
import subprocess
import sys

FAMILIES = {
    "Avx2Traits": "avx2",
    "Avx2UbswTraits": "avx2ubsw",
    "AvxVnniTraits": "avxvnni",
    "Avx512BwTraits": "avx512bw",
    "Avx512UbswTraits": "avx512ubsw",
    "Avx512VnniTraits": "avx512vnni",
    # The one-row tiles' int8-B variants of the widening families.
    "Avx2ByteBTraits": "avx2",
    "Avx512BwByteBTraits": "avx512bw",
}
WALKS = {"0": "plain", "1": "segments", "2": "row_sums"}
MULTIPLIES = ("vpmaddwd", "vpmaddubsw", "vpdpbusd")
HEADER = re.compile(r"^[0-9a-f]+ <(.*)>:$")
KERNEL = re.compile(r"GemmTileKernel<qtune::detail::\(anonymous namespace\)::(\w+), (\d+), (\d+), "
                    r"\(qtune::detail::AWalk\)(\d)>::run\(")
# The mnemonic after any encoding prefix ({vex} vpdpbusd: AVX-VNNI).
INSTRUCTION = re.compile(r"^\s+([0-9a-f]+):\s+(?:\{\w+\}\s+)?(\S+)\s*(.*)$")
BRANCH_TARGET = re.compile(r"^([0-9a-f]+)\b")
STACK = re.compile(r"\(%r[sb]p")


def functions(lib, objdump):
    """(symbol, [(address, mnemonic, operands)]) for each function of the kernels' x86 tiles."""
    text = subprocess.run([objdump, "-d", "-C", "--no-show-raw-insn", lib], check=True, capture_output=True,
                          text=True).stdout
    name, body = None, []
    for line in text.splitlines():
        header = HEADER.match(line)
        if header:
            if name:
                yield name, body
            name = header.group(1) if KERNEL.search(header.group(1)) else None
            body = []
            continue
        if name:
            m = INSTRUCTION.match(line)
            if m:
                body.append((int(m.group(1), 16), m.group(2), m.group(3)))
    if name:
        yield name, body


def k_loops(body, mr):
    """Stack accesses and size of each k-loop of one function."""
    index = {address: i for i, (address, _, _) in enumerate(body)}
    loops = []
    for i, (address, mnemonic, operands) in enumerate(body):
        if not mnemonic.startswith("j"):
            continue
        target = BRANCH_TARGET.match(operands)
        if not target:
            continue
        start = int(target.group(1), 16)
        if start < address and start in index:
            loops.append((index[start], i))
    innermost = [(s, e) for s, e in loops if not any((s2, e2) != (s, e) and s <= s2 and e2 <= e for s2, e2 in loops)]
    result = []
    for s, e in innermost:
        instructions = body[s:e + 1]
        multiplies = sum(1 for _, m, _ in instructions if m.startswith(MULTIPLIES))
        if multiplies >= mr:
            stack = sum(1 for _, _, operands in instructions if STACK.search(operands))
            result.append({"instructions": len(instructions), "multiplies": multiplies, "stack": stack})
    return result


def survey(lib, objdump):
    tiles = {}
    for name, body in functions(lib, objdump):
        traits, mr, nr, walk = KERNEL.search(name).groups()
        if traits not in FAMILIES:
            continue
        key = f"{FAMILIES[traits]} {mr}x{nr} {WALKS.get(walk, walk)}"
        loops = k_loops(body, int(mr))
        if loops:
            tiles[key] = loops
    return tiles


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("lib")
    parser.add_argument("--objdump", default="objdump")
    parser.add_argument("--record", metavar="FILE")
    parser.add_argument("--check", metavar="FILE")
    args = parser.parse_args()

    tiles = survey(args.lib, args.objdump)
    if not tiles:
        sys.exit(f"{args.lib}: no x86 GEMM tile k-loops found (not an x86 build of the kernels?)")
    for key in sorted(tiles):
        loops = ", ".join(f"{l['instructions']} instr / {l['multiplies']} mul / {l['stack']} stack" for l in tiles[key])
        print(f"{key:32} {loops}")

    worst = {key: max(l["stack"] for l in loops) for key, loops in tiles.items()}
    if args.record:
        with open(args.record, "w") as f:
            json.dump(dict(sorted(worst.items())), f, indent=1)
            f.write("\n")
        print(f"recorded {len(worst)} tiles' ceilings in {args.record}")
    if args.check:
        with open(args.check) as f:
            ceilings = json.load(f)
        failures = []
        for key, ceiling in sorted(ceilings.items()):
            if key not in worst:
                failures.append(f"{key}: no k-loop found (recorded with {ceiling} stack accesses)")
            elif worst[key] > ceiling:
                failures.append(f"{key}: {worst[key]} stack accesses in a k-loop, ceiling {ceiling}")
        unrecorded = sorted(set(worst) - set(ceilings))
        for key in unrecorded:
            print(f"note: {key} has no recorded ceiling ({worst[key]} stack accesses); --record to add it")
        if failures:
            print("\n".join(["FAILED:"] + failures))
            sys.exit(1)
        print(f"{len(ceilings)} tiles within their ceilings")


if __name__ == "__main__":
    main()
