#!/usr/bin/env python3
"""Predicts the speed of qtune's Arm microkernels (and XNNPACK's, side by side) with llvm-mca.

qemu runs the Arm kernels bit-exactly but its timings mean nothing; LLVM's machine-code analyser
models real cores from their optimisation guides. This script disassembles cross-built aarch64
kernels (libqtune_kernels.a or its objects) with llvm-objdump, finds in every Arm GEMM tile the
innermost k-loop (the loop with the most multiply instructions: sdot/udot, smmla/usmmla,
smull/smlal and their unsigned forms), in every NEON depthwise kernel the tap loop of its whole
tile, and the requantization epilogue of every rounding mode (recognised by the instructions that
mode is made of), and asks llvm-mca for each core.

The loops are found by their backward branches in the disassembly rather than by markers in the
source: markers would be inline asm inside the kernels, which constrains the code the compiler
generates, i.e. changes what is being measured.

  scripts/arm-mca.py build/aarch64/kernels/libqtune_kernels.a \
      --xnnpack .deps/arm64/usr/lib/aarch64-linux-gnu/libXNNPACK.so --markdown docs/arm-static-analysis.md
  scripts/arm-mca.py LIB --check tests/arm/mca_floors.json        # CI: exit 1 below a floor
  scripts/arm-mca.py LIB --record-floors tests/arm/mca_floors.json # after an intended change

Python 3 standard library only; needs llvm-mca-19 and llvm-objdump-19 (Debian's llvm-19).
"""

import argparse
import functools
import json
import math
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

CORES = ["neoverse-n1", "neoverse-n2", "neoverse-v1", "cortex-a55"]
# qtune's modes (kernels/include/qtune/kernels/quant.h); XNNPACK's kernels have one each (fp32 or
# rndnu), named in their symbols.
# "MODE/any" is a fixed-point mode's general form, for plans with a scale of 1/2 or more (tflite,
# upward) or of 1 or more (arm), or whose products can tie (tonearest); the plain name is the short
# form every trained layer's scales take (arm/neon/requant_neon.h).
QTUNE_MODES = ["tflite", "arm", "upward", "tonearest", "fp32", "tflite/any", "arm/any", "upward/any", "tonearest/any"]
# Which XNNPACK epilogue is the closest to each qtune mode: the fixed-point modes against rndnu
# (sqdmulh + rounding shift), fp32 against fp32.
CLOSEST_XNNPACK_MODE = {"tflite": "rndnu", "arm": "rndnu", "upward": "rndnu", "tonearest": "rndnu", "fp32": "fp32",
                        "tflite/any": "rndnu", "arm/any": "rndnu", "upward/any": "rndnu", "tonearest/any": "rndnu"}
WHOLE_CALL_K = [64, 256, 1152]
# A depthwise "call" in the tables: one whole tile of a 3x3 kernel.
DEPTHWISE_TAPS = 9
# llvm-mca cannot know what a call costs (it assumes 100 cycles, which on an in-order core stalls
# everything behind it): calls are costed as 1 cycle and counted separately in the tables.
CALL_LATENCY = 1
# Iterations llvm-mca simulates per region: enough for the steady state of a loop body.
MCA_ITERATIONS = 100

# Multiply instructions of the k-loops and the multiply-accumulates one of them does, by the
# arrangement of its destination (smull v.8h: 8 products of bytes; smull v.4s: 4 of halfwords).
DOT_OPS = {"sdot": 16, "udot": 16, "usdot": 16, "smmla": 32, "ummla": 32, "usmmla": 32}
WIDENING_MUL_OPS = {"smull", "smull2", "umull", "umull2", "smlal", "smlal2", "umlal", "umlal2"}
# The accumulating half of a widening multiply-accumulate (smull, then sadalp into the int32 sums):
# part of the peak, since it competes with the multiplies for the same pipelines.
PAIRWISE_ACCUMULATE_OPS = {"sadalp", "uadalp"}
# The extension an instruction needs, so that cores without it are left out rather than rejected.
FEATURE_PROBES = {
    "dotprod": "sdot v0.4s, v1.16b, v2.16b",
    "i8mm": "usmmla v0.4s, v1.16b, v2.16b",
}
FEATURE_OF_OP = {"sdot": "dotprod", "udot": "dotprod", "usdot": "i8mm", "smmla": "i8mm", "ummla": "i8mm",
                 "usmmla": "i8mm"}

BRANCH_OPS = {"b", "bl", "br", "blr", "cbz", "cbnz", "tbz", "tbnz", "ret"}
# The annotation runs to the end of the operands (demangled names contain ">").
TARGET_RE = re.compile(r"0x([0-9a-f]+) <.*>$")


@dataclass
class Insn:
    addr: int
    op: str
    args: str
    target: int | None = None  # branch target, when the operand names one

    @property
    def is_branch(self):
        return self.op in BRANCH_OPS or self.op.startswith("b.")

    @property
    def is_call(self):
        return self.op in ("bl", "blr")

    @property
    def is_stack_access(self):
        return (self.op.startswith("ld") or self.op.startswith("st")) and re.search(r"\[(sp|x29)\b", self.args)

    def text(self, label):
        # Branch targets (and PC-relative literals) become one label: llvm-mca needs valid
        # assembly, and where a branch goes does not change what it costs.
        return f"{self.op} {TARGET_RE.sub(label, self.args)}".strip()


def macs(insn):
    if insn.op in DOT_OPS:
        return DOT_OPS[insn.op]
    if insn.op in WIDENING_MUL_OPS:
        m = re.match(r"v\d+\.(\d+)([bhsd])", insn.args)
        return int(m.group(1)) if m else 0
    return 0


def symbol_sizes(objdump, path):
    """{(function name, start address): size} from the symbol tables (static and dynamic)."""
    sizes = {}
    for table in ("-t", "-T"):
        # A table the file does not have (-T of an object) is an error to ignore.
        out = subprocess.run([objdump, table, "-C", path], capture_output=True, text=True).stdout
        for line in out.splitlines():
            # "<address> <7 flag characters> <section>\t<size> <name>"; F flags a function.
            left, _, right = line.partition("\t")
            m = re.match(r"^([0-9a-f]+) (.{7}) ", left)
            fields = right.split(None, 1)
            if m and "F" in m.group(2) and len(fields) == 2:
                sizes[(fields[1].strip(), int(m.group(1), 16))] = int(fields[0], 16)
    return sizes


def parse_functions(objdump, path):
    """{function name: [Insn]} of every function in an object, archive or shared library. A function
    ends where its symbol's size says: the disassembler runs on to the next symbol, and in a
    library that exports only its entry points (XNNPACK's) that is often another, unexported
    kernel. A name met twice (an inline function in several archive members) keeps its first copy."""
    sizes = symbol_sizes(objdump, path)
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", "-C", path], check=True, capture_output=True,
                         text=True).stdout
    functions, current, end = {}, None, None
    for line in out.splitlines():
        head = re.match(r"^([0-9a-f]+) <(.*)>:$", line)
        if head:
            start, name = int(head.group(1), 16), head.group(2)
            current = None if name in functions else functions.setdefault(name, [])
            size = sizes.get((name, start))
            end = start + size if size else None
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m and current is not None:
            addr = int(m.group(1), 16)
            if end is not None and addr >= end:
                continue
            args = m.group(3).split("//")[0].strip()
            insn = Insn(addr, m.group(2), args)
            t = TARGET_RE.search(args)
            if t and insn.is_branch:
                insn.target = int(t.group(1), 16)
            current.append(insn)
    return functions


@dataclass
class Loop:
    body: list

    def __post_init__(self):
        self.multiplies = any(macs(i) for i in self.body)  # k-loop work
        self.addrs = {i.addr for i in self.body}


_loops_cache = {}


def loops(insns):
    """Every loop: the instructions from a backward branch's target to the branch."""
    if id(insns) in _loops_cache:
        return _loops_cache[id(insns)]
    index = {i.addr: n for n, i in enumerate(insns)}
    found = []
    for n, insn in enumerate(insns):
        if insn.target is not None and insn.target <= insn.addr and insn.target in index and not insn.is_call:
            found.append(Loop(insns[index[insn.target]:n + 1]))
    _loops_cache[id(insns)] = found
    return found


def innermost(found):
    """Loops that contain no other loop's backward branch."""
    result = []
    for loop in found:
        start, end = loop.body[0].addr, loop.body[-1].addr
        nested = any(i.target is not None and start <= i.target <= i.addr < end for i in loop.body[:-1])
        if not nested:
            result.append(loop)
    return result


def k_loop(functions, rank=lambda work: work, accept=lambda body: True):
    """The innermost loop with the most multiply-accumulates (or the best by `rank` of them; 0 is
    never chosen) among those `accept` takes; among equals, the shortest (the packed-A path, not the
    in-place walk that needs more instructions per step)."""
    best = None
    for insns in functions:
        for loop in innermost(loops(insns)):
            work = rank(sum(macs(i) for i in loop.body))
            if work == 0 or not accept(loop.body):
                continue
            key = (work, -len(loop.body))
            if best is None or key > best[0]:
                best = (key, loop)
    return best[1] if best else None


def ops_text(body):
    return [(i.op, i.args) for i in body]


# The instruction that only each mode's requantization has.
MODE_MARKERS = [("sqrdmulh", "4s", ("tflite", "arm", "tflite/any", "arm/any")), ("sqrdmlah", "4s", ("tflite", "tflite/any")),
                ("scvtf", "4s", ("fp32",)),
                ("sqdmulh", "4s", ("rndnu", "upward", "upward/any", "tonearest/any"))]
# tonearest's short form is upward's (a plan takes it when no product can tie, and the two modes
# differ only at ties: arm/neon/requant_neon.h), so its code is found, and costs, as upward's.
SAME_CODE_AS = {"tonearest": "upward"}


def signature(mode, body):
    """Whether the instructions are mode's requantization; returns the number of 4-lane vectors
    they requantize (0 when they are not that mode's)."""
    mode = SAME_CODE_AS.get(mode, mode)
    has = lambda op, arr=None: any(o == op and (arr is None or f".{arr}" in a) for o, a in ops_text(body))
    n = lambda op, arr=None: sum(1 for o, a in ops_text(body) if o == op and (arr is None or f".{arr}" in a))
    # Code that also holds another mode's core instruction is a switch over modes, not one epilogue.
    if any(has(op, arr) for op, arr, modes in MODE_MARKERS if mode not in modes):
        return 0
    if mode in ("tflite", "arm", "tflite/any", "arm/any"):
        # tflite's short form on cores with sqrdmlah multiplies onto its fixup (requant_neon.h).
        if not (has("sqrdmulh", "4s") or has("sqrdmlah", "4s")) or not has("srshl", "4s"):
            return 0
        fixup = has("ssra", "4s") or has("sqrdmlah", "4s")
        general = has("sshl", "4s")
        if fixup != mode.startswith("tflite") or general != mode.endswith("/any"):
            return 0
        return n("sqrdmulh", "4s") + n("sqrdmlah", "4s")
    if mode == "upward":
        if not has("sqdmulh", "4s") or not has("srshl", "4s") or has("sqshl"):
            return 0
        return n("sqdmulh", "4s")
    if mode in ("upward/any", "tonearest/any"):
        # sqshl by the pre-shift first; tonearest's ties found with an and and a cmeq.
        if not has("sqdmulh", "4s") or not has("srshl", "4s") or not has("sqshl", "4s"):
            return 0
        nearest = has("cmeq", "4s")
        return n("sqdmulh", "4s") if nearest == (mode == "tonearest/any") else 0
    if mode == "fp32":
        # Rounded by fcvtns, or (qtune's GEMM tiles) by adding 1.5 * 2^23. Not the offset or centred
        # float forms (fmla with a sign-selected offset, scalar lanes).
        rounds = has("fcvtns", "4s") or has("fadd", "4s")
        if not has("scvtf", "4s") or not rounds or has("fmla") or has("bsl") or has("bif") or has("bit"):
            return 0
        return n("scvtf", "4s")
    if mode == "rndnu":
        if not has("sqdmulh", "4s") or not has("srshl", "4s") or has("sqrdmulh"):
            return 0
        return n("sqdmulh", "4s")
    raise ValueError(mode)


SIMD_REG = re.compile(r"\b([vqdshb])(\d{1,2})\b")


def simd_numbers(text):
    return {int(m.group(2)) for m in SIMD_REG.finditer(text)}


def independent_tiles(body):
    """An epilogue region with its inputs read from a register that nothing in it writes.

    llvm-mca runs a region as a loop, so a vector register that the region reads before writing
    it and then reuses (an accumulator overwritten by its own requantized value, the bytes a store
    takes) chains each iteration to the one before. A tile's accumulators come from its own
    k-loop, not from the previous tile's epilogue: renaming those first reads to an unused
    register removes the chain and keeps every instruction and its cost."""
    parsed = []
    for insn in body:
        args = re.sub(r"<.*>", "", insn.args)
        if insn.op.startswith("st") or insn.is_branch:
            dest, rest = "", args
        elif insn.op in ("ldp", "ldnp"):
            parts = args.split(",", 2)
            dest, rest = ",".join(parts[:2]), "," + parts[2] if len(parts) > 2 else ""
        elif insn.op.startswith("ld") and "{" in args:
            dest, rest = args[:args.index("}") + 1], args[args.index("}") + 1:]
        else:
            dest, _, rest = args.partition(",")
            rest = "," + rest if rest else ""
        parsed.append((dest, rest))
    written_anywhere = set().union(*(simd_numbers(dest) for dest, _ in parsed)) if parsed else set()
    used = set().union(*(simd_numbers(re.sub(r"<.*>", "", i.args)) for i in body)) if body else set()
    spare = next((n for n in range(32) if n not in used), None)
    if spare is None:
        return body
    out, written = [], set()
    for insn, (dest, rest) in zip(body, parsed):
        chained = {n for n in simd_numbers(rest) if n not in written and n in written_anywhere}
        if chained and "<" not in insn.args:
            rest = SIMD_REG.sub(lambda m: f"{m.group(1)}{spare}" if int(m.group(2)) in chained else m.group(0), rest)
            insn = replace(insn, args=dest + rest)
        written |= simd_numbers(dest)
        out.append(insn)
    return out


VECTOR_STORE = re.compile(r"\{? ?[qdsbhv]\d")


def fall_through_trace(insns, start, stop_at=frozenset()):
    """Straight-line code from insns[start]: conditional branches not taken, forward jumps followed,
    and backward ones until the code has stored a vector (GCC places a tile's shared finish, its
    narrowing and stores, anywhere in the function; after the stores a backward jump leads to the
    caller's loop), up to a return, a conditional backward branch (the end of the caller's loop), a
    jump into stop_at (the k-loop: the next tile) or back into the trace."""
    index = {i.addr: n for n, i in enumerate(insns)}
    trace, seen, n, stored = [], set(), start, False
    while n < len(insns) and len(trace) < 2000:
        insn = insns[n]
        trace.append(insn)
        seen.add(insn.addr)
        stored = stored or (insn.op in ("st1", "str", "stur", "stp") and VECTOR_STORE.match(insn.args) is not None)
        if insn.op in ("ret", "br"):
            break
        if insn.op == "b" and insn.target is not None and insn.target in index:
            backward = insn.target <= insn.addr
            if insn.target in stop_at or insn.target in seen or (backward and stored):
                break
            n = index[insn.target]
            continue
        if insn.target is not None and insn.target <= insn.addr and not insn.is_call:
            break
        n += 1
    return trace


def epilogue(functions, mode, k_body, tile_vectors=None, straight_line=False):
    """(instructions, outputs they requantize) of mode's epilogue: the shortest loop that is the
    mode's requantization and holds no k-loop work (depthwise: a loop over the tile's vectors), else
    the straight-line code from the basic block of the mode's first instruction (XNNPACK and the
    qtune Arm GEMM tiles: the whole tile requantized between the k-loop and the stores). With
    tile_vectors, only code that requantizes exactly that many vectors (the whole tile: not a row's
    ragged end). straight_line skips the loops: GCC's out-of-order blocks make backward jumps that
    look like loops around unrelated code."""
    k_addrs = {i.addr for i in k_body} if k_body else set()
    fits = lambda vectors: vectors and (tile_vectors is None or vectors == tile_vectors)
    best = None
    for insns in ([] if straight_line else functions):
        for loop in loops(insns):
            if loop.multiplies or not k_addrs.isdisjoint(loop.addrs):
                continue
            vectors = signature(mode, loop.body)
            if fits(vectors) and (best is None or len(loop.body) < len(best[0])):
                best = (loop.body, 4 * vectors)
    if best:
        return best
    first_ops = {"tflite": ("sqrdmulh", "sqrdmlah"), "arm": ("sqrdmulh",), "upward": ("sqdmulh",),
                 "tonearest": ("sqdmulh",), "fp32": ("scvtf",), "rndnu": ("sqdmulh",), "tflite/any": ("sshl",),
                 "arm/any": ("sshl",), "upward/any": ("sqshl",), "tonearest/any": ("sqshl",)}[mode]
    for insns in functions:
        targets = {i.target for i in insns if i.target is not None}
        for n, insn in enumerate(insns):
            if insn.op not in first_ops or insn.addr in k_addrs:
                continue
            start = n
            while start > 0 and not insns[start - 1].is_branch and insns[start].addr not in targets:
                start -= 1
            trace = fall_through_trace(insns, start, k_addrs)
            vectors = signature(mode, trace)
            if fits(vectors) and (best is None or len(trace) < len(best[0])):
                best = (trace, 4 * vectors)
    return best


def paths_from(insns, start, loop, limit=512):
    """The straight-line paths from insns[start], the instruction after `loop` (a k-loop): each
    conditional branch both taken and not, jumps followed wherever GCC put their targets, but no
    branch to code the path has run (a loop's edge: the path falls through it instead); each path
    up to a return or the k-loop again (the next tile)."""
    index = {i.addr: n for n, i in enumerate(insns)}
    first, last = loop[0].addr, loop[-1].addr
    paths, pending = [], [(start, [], set())]
    while pending and len(paths) < limit:
        n, trace, seen = pending.pop()
        while n < len(insns) and len(trace) < 2000:
            insn = insns[n]
            if first <= insn.addr <= last:
                break
            trace.append(insn)
            seen.add(insn.addr)
            if insn.op in ("ret", "br"):
                break
            if insn.target is not None and not insn.is_call:
                if insn.target not in index:
                    break
                if insn.target in seen or first <= insn.target <= last:
                    if insn.op == "b":
                        break
                elif insn.op == "b":
                    n = index[insn.target]
                    continue
                else:
                    pending.append((index[insn.target], list(trace), set(seen)))
            n += 1
        paths.append(trace)
    return paths


def epilogue_after_loop(functions, mode, k_body, tile_vectors):
    """(instructions, outputs) of the shortest path from the k-loop's exit that is mode's
    requantization of exactly tile_vectors vectors: the tile's own epilogue, with the test of the
    plan that leads to it (the depthwise tiles inline the forms of trained layers after their tap
    loop). None where no path is (the forms the tile reaches through a call)."""
    if not k_body:
        return None
    best = None
    for insns in functions:
        exit_at = next((n + 1 for n, i in enumerate(insns) if i.addr == k_body[-1].addr), None)
        if exit_at is None:
            continue
        for path in paths_from(insns, exit_at, k_body):
            vectors = signature(mode, path)
            if vectors == tile_vectors and (best is None or len(path) < len(best[0])):
                best = (path, 4 * vectors)
    return best


@dataclass
class Kernel:
    name: str
    source: str  # "qtune" or "xnnpack"
    kind: str  # "gemm" or "depthwise"
    mr: int  # GEMM: rows; depthwise: pixels
    nr: int  # GEMM: columns; depthwise: channels
    functions: list
    modes: list
    loop: list | None = None
    epilogues: dict = field(default_factory=dict)  # mode -> (instructions, outputs)
    feature: str | None = None
    # The instructions that turn the accumulators into rows of C after the k-loop, where the core's
    # layout is not row-major (to_rows): (opcode, arrangement, count per tile).
    to_rows: tuple | None = None
    # Depthwise: the functions of the path most rows take, tile_rows<W, C / 4, whole, stride 1,
    # affine> (interior rows of stride-1 layers), whose tap loop is reported where GCC kept it there;
    # the shortest loop of equal work elsewhere is a padded row's, not the one that runs most.
    hot_functions: list = field(default_factory=list)
    # The modes whose epilogue region is well defined, which CI guards: every GEMM tile's; the
    # depthwise tiles' found on a path from their tap loop (not through the heuristics of epilogue()).
    guarded: set = field(default_factory=set)

    @property
    def mac_per_step(self):
        return sum(macs(i) for i in self.loop)

    @property
    def k_per_step(self):
        """k values (depthwise: taps) one k-loop iteration covers."""
        if self.kind == "gemm":
            return self.mac_per_step / (self.mr * self.nr)
        return depthwise_madds(self.loop) / (self.mr * self.nr // 4)


def depthwise_madds(body):
    """NeonDwOperations::madd_dw's (one smlal .4s each: a tap of 4 channels of one pixel)."""
    return sum(1 for i in body if i.op == "smlal" and i.args.startswith("v") and ".4s" in i.args)


def qtune_kernels(functions):
    kernels = []
    # NeonCore (c2) and NeonC8Core (c8) are one family: their tiles differ in size.
    gemm = re.compile(r"ArmGemmTile<qtune::detail::\(anonymous namespace\)::(\w+?)(C8)?Core<(\d+), (\d+)> ?>::run\(")
    # The parts of a tile GCC kept out of line (a mode's epilogue as a clone of write_output's lambda).
    tile_part = re.compile(r"ArmGemmTile<qtune::detail::\(anonymous namespace\)::(\w+?Core<\d+, \d+>) ?>::(?!run\()")
    parts = {}
    for name, insns in functions.items():
        m = tile_part.search(name)
        if m:
            parts.setdefault(m.group(1), []).append(insns)
    for name, insns in functions.items():
        m = gemm.search(name)
        if m:
            family, mr, nr = m.group(1).lower(), int(m.group(3)), int(m.group(4))
            # c8: two rounds of addp per row vector (3 a vector); i8mm: one zip1 or zip2 .2d a vector.
            to_rows = ("addp", "4s", 3 * mr * nr // 4) if m.group(2) else (
                ("zip", "2d", mr * nr // 4) if family == "i8mm" else None)
            core = f"{m.group(1)}{m.group(2) or ''}Core<{mr}, {nr}>"
            kernels.append(Kernel(f"{family} {mr}x{nr}", "qtune", "gemm", mr, nr, [insns] + parts.get(core, []),
                                  QTUNE_MODES, to_rows=to_rows))
    # Depthwise (dwconv_neon.cc): a kernel of C channels x W pixels is its row walk,
    # DwRowKernel<NeonDwOperations, C, W, signed>, dw_row<NeonDwOperations, C, W> (which holds both
    # signs' walks where GCC inlined them: the k-loop is then told by its widening), the tiles of
    # its own shape that its walk calls, DwTiles<NeonDwOperations, signed>::...<W, C / 4, ...> (the
    # kernels of a sign share their tile functions: a narrower tile of a row's end belongs to the
    # kernel of its own shape, a channel tail's single vector to none), and the general forms'
    # epilogue of a whole tile, write_any_form<W, C / 4, false> (out of line).
    ops = r"qtune::detail::\(anonymous namespace\)::NeonDwOperations"
    dw = re.compile(rf"DwRowKernel<{ops}, (\d+), (\d+), (true|false)>")
    dw_row = re.compile(rf"dw_row<{ops}, (\d+), (\d+)>")
    tiles = re.compile(rf"DwTiles<{ops}, (true|false)>::\w+<(\d+), (\d+)")
    any_form = re.compile(r"NeonDwOperations::write_any_form<(\d+), (\d+), false>")
    hot = re.compile(rf"DwTiles<{ops}, (true|false)>::tile_rows<(\d+), (\d+), false, 1, true>")
    groups, by_tile, by_shape, hot_by_key = {}, {}, {}, {}
    for name, insns in functions.items():
        m = hot.search(name)
        if m:
            hot_by_key.setdefault((4 * int(m.group(3)), int(m.group(2)), m.group(1)), []).append(insns)
        m = tiles.search(name)
        if m:
            by_shape.setdefault((4 * int(m.group(3)), int(m.group(2)), m.group(1)), []).append(insns)
        keys = {(int(m.group(1)), int(m.group(2)), m.group(3)) for m in dw.finditer(name)}
        m = dw_row.search(name)
        if m:
            keys |= {(int(m.group(1)), int(m.group(2)), signed) for signed in ("true", "false")}
        for key in keys:
            groups.setdefault(key, []).append(insns)
        m = any_form.search(name)
        if m:
            by_tile.setdefault((4 * int(m.group(2)), int(m.group(1))), []).append(insns)
    for (channels, pixels, signed), insns in groups.items():
        insns += by_shape.get((channels, pixels, signed), []) + by_tile.get((channels, pixels), [])
    for (channels, pixels, signed), insns in sorted(groups.items()):
        kind = "s8" if signed == "true" else "u8"
        kernels.append(Kernel(f"dw-neon {channels}c x {pixels}px {kind}", "qtune", "depthwise", pixels, channels,
                              insns, QTUNE_MODES, hot_functions=hot_by_key.get((channels, pixels, signed), [])))
    return kernels


def xnnpack_kernels(functions):
    kernels = []
    sym = re.compile(r"^xnn_(qs8|qu8)(_qc8w)?_gemm_minmax_(fp32|rndnu)_ukernel_(\d+)x(\d+)\w*__aarch64\w*$")
    for name, insns in functions.items():
        m = sym.match(name)
        if m:
            short = name[len("xnn_"):].replace("_gemm_minmax_", "_").replace("_ukernel_", "_")
            kernels.append(Kernel(short, "xnnpack", "gemm", int(m.group(4)), int(m.group(5)), [insns], [m.group(3)]))
    return kernels


def with_to_rows(kernel, region):
    """A qtune epilogue region with its tile's to_rows instructions in front, those GCC left
    outside it (XNNPACK's c8 kernels add their lanes in the same block as they requantize, so
    their regions hold that work already)."""
    if kernel.to_rows is None:
        return region
    op, arrangement, count = kernel.to_rows
    is_layout = lambda i: i.op.startswith(op) and f".{arrangement}" in i.args
    missing = count - sum(1 for i in region if is_layout(i))
    inside = {i.addr for i in region} | {i.addr for i in kernel.loop}
    outside = [i for insns in kernel.functions for i in insns if is_layout(i) and i.addr not in inside]
    return outside[:max(missing, 0)] + region


def analyse_regions(kernels):
    for k in kernels:
        if k.kind == "depthwise":
            # The kernel's whole tile (W pixels x C/4 vectors; a tap of a vector is one smlal, 4 products)
            # three taps an iteration (tile_rows: the 3x3 kernels' loop where its registers suffice,
            # GCC drops it where they do not) before one tap (tile); never the narrower tiles of the
            # row ends and channel tails.
            tile = k.mr * k.nr // 4
            other_sign = "ushll" if k.name.endswith("s8") else "sshll"
            rank = lambda work, tile=tile: {3: 2, 1: 1}.get(work / 4 / tile, 0)
            accept = lambda body, other=other_sign: not any(i.op == other for i in body)
            found = k_loop(k.hot_functions, rank, accept) or k_loop(k.functions, rank, accept)
        else:
            found = k_loop(k.functions)
        k.loop = found.body if found else None
        if k.loop is None:
            continue
        features = {FEATURE_OF_OP[i.op] for i in k.loop if i.op in FEATURE_OF_OP}
        k.feature = "i8mm" if "i8mm" in features else (features.pop() if features else None)
        for mode in k.modes:
            # qtune's tiles: the whole tile's code (whole-vector stores), not a ragged tile's.
            tile_vectors = k.mr * k.nr // 4 if k.source == "qtune" else None
            found = None
            if k.kind == "depthwise":
                found = epilogue_after_loop(k.functions, mode, k.loop, tile_vectors)
                if found:
                    k.guarded.add(mode)
            found = found or epilogue(k.functions, mode, k.loop, tile_vectors,
                                      straight_line=k.source == "qtune" and k.kind == "gemm")
            if found:
                k.epilogues[mode] = (with_to_rows(k, found[0]), found[1])
                if k.kind == "gemm":
                    k.guarded.add(mode)


@functools.lru_cache(maxsize=None)
def core_has(mca, core, feature):
    """Whether llvm-mca's model of the core has the extension (it rejects the instruction if not)."""
    if feature is None:
        return True
    r = subprocess.run([mca, "-mtriple=aarch64", f"-mcpu={core}"], input=FEATURE_PROBES[feature],
                       capture_output=True, text=True)
    return r.returncode == 0


def run_mca(mca, core, regions):
    """{region name: (cycles per iteration, block reciprocal throughput)} for one core, all regions
    in one llvm-mca run (one process per core keeps the whole analysis within seconds). Each region
    has its own label, at its start, which all of its branches and literals point at."""
    if not regions:  # no kernel has instructions this core runs (i8mm objects on Neoverse N1)
        return {}
    text = []
    for name, body in regions.items():
        text.append(f"# LLVM-MCA-BEGIN {name}")
        text.append(f".L{name}:")
        text.extend(i.text(f".L{name}") for i in body)
        text.append("# LLVM-MCA-END")
    r = subprocess.run([mca, "-mtriple=aarch64", f"-mcpu={core}", f"-iterations={MCA_ITERATIONS}",
                        f"-call-latency={CALL_LATENCY}",
                        "-instruction-info=0", "-resource-pressure=0", "-skip-unsupported-instructions=none"],
                       input="\n".join(text) + "\n", capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"arm-mca: llvm-mca -mcpu={core} failed:\n{r.stderr[:4000]}")
    results = {}
    for block in re.split(r"\n\[\d+\] Code Region - ", "\n" + r.stdout)[1:]:
        name = block.split("\n", 1)[0].strip()
        iterations = int(re.search(r"Iterations:\s+(\d+)", block).group(1))
        cycles = int(re.search(r"Total Cycles:\s+(\d+)", block).group(1))
        rthroughput = float(re.search(r"Block RThroughput:\s+([\d.]+)", block).group(1))
        results[name] = (cycles / iterations, rthroughput)
    return results


@dataclass
class Prediction:
    kernel: Kernel
    core: str
    step_cycles: float
    peak_cycles: float
    spills: int
    epilogue: dict  # mode -> (cycles per 16 outputs, calls per 16 outputs)

    @property
    def share(self):
        return self.peak_cycles / self.step_cycles

    def whole_call(self, mode, k):
        """k-loop iterations plus the tile's outputs requantized; packing and set-up not included."""
        if mode not in self.epilogue:
            return None
        steps = math.ceil(k / self.kernel.k_per_step)
        outputs = self.kernel.mr * self.kernel.nr
        return steps * self.step_cycles + outputs / 16 * self.epilogue[mode][0]


def predict(kernels, mca):
    # Regions with the same instructions (a kernel's u8 and s8 instances, shared epilogues) are
    # analysed once; the cores run two at a time.
    plans = {}
    for core in CORES:
        unique, names = {}, {}
        usable = [k for k in kernels if k.loop is not None and core_has(mca, core, k.feature)]
        for n, k in enumerate(usable):
            regions = {"loop": k.loop, "peak": [i for i in k.loop if macs(i) or i.op in PAIRWISE_ACCUMULATE_OPS]}
            regions.update({f"epi_{mode}": independent_tiles(body) for mode, (body, _) in k.epilogues.items()})
            for what, body in regions.items():
                key = tuple(i.text(".L") for i in body)
                unique.setdefault(key, (f"r{len(unique)}", body))
                names[(n, what)] = unique[key][0]
        plans[core] = (usable, names, {name: body for name, body in unique.values()})
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(CORES, pool.map(lambda core: run_mca(mca, core, plans[core][2]), CORES)))
    predictions = []
    for core in CORES:
        usable, names, _ = plans[core]
        r = lambda n, what: results[core][names[(n, what)]]
        for n, k in enumerate(usable):
            epi = {}
            for mode, (body, outputs) in k.epilogues.items():
                calls = sum(1 for i in body if i.is_call)
                epi[mode] = (r(n, f"epi_{mode}")[0] * 16 / outputs, calls * 16 / outputs)
            predictions.append(Prediction(k, core, r(n, "loop")[0], r(n, "peak")[1],
                                          sum(1 for i in k.loop if i.is_stack_access), epi))
    return predictions


def fmt(x, digits=1):
    return "—" if x is None else f"{x:.{digits}f}"


def markdown(predictions, command, xnnpack_note):
    by_kernel = {}
    for p in predictions:
        by_kernel.setdefault(p.kernel.name, []).append(p)
    out = ["# Arm microkernels under llvm-mca", "",
           f"Generated by `{command}`",
           "(scripts/arm-mca.py; do not edit by hand). llvm-mca-19's models of Neoverse N1, N2, V1 and",
           "Cortex-A55; a core without a kernel's instruction (i8mm on N1 and A55) has no row for it.",
           xnnpack_note, "",
           "- **k-loop**: the innermost loop with the kernel's multiply instructions (for the Arm tiles",
           "  the packed-A loop), found by its backward branch in the disassembly. `cycles/step` is",
           "  llvm-mca's steady-state cycles per iteration, `k/step` the k values one",
           "  iteration covers. `peak` is the instructions' own reciprocal throughput on that core (the",
           "  loop's multiply-accumulate instructions alone: sdot, usmmla, or smull/smlal with the",
           "  sadalp that accumulates their products, as llvm-mca schedules them without dependencies);",
           "  `share` = peak / cycles. `stack ld/st`: loads and stores through sp or x29 in the loop (spills, or arrays the loop keeps on the stack).",
           "- **epilogue**: cycles per 16 requantized outputs of each rounding mode, from the",
           "  straight-line code that requantizes and stores a whole tile in that mode (qtune's GEMM",
           "  tiles and XNNPACK's alike: from the block of the mode's first instruction, conditional",
           "  branches not taken, jumps followed (backward ones until the tile's first vector store:",
           "  GCC puts a tile's shared narrowing and stores anywhere in the function), up to the next",
           "  conditional backward branch), simulated as a loop by llvm-mca, with the vector",
           "  registers it reads before writing renamed to one it never writes (a tile's accumulators",
           "  come from its own k-loop, not from the previous tile's epilogue, which llvm-mca would",
           "  otherwise chain them to). Tiles whose accumulators are not rows of C include the",
           "  instructions that make them rows (the neon c8 tiles' addp of each accumulator's lanes,",
           "  i8mm's zip1/zip2 of its 2x2 blocks), as XNNPACK's c8 kernels' regions include their addp.",
           "  `calls` counts `bl` per 16 outputs in",
           "  it: llvm-mca costs a call as a branch only, not the callee. `tflite`, `arm`, `upward` and",
           "  `tonearest` are the short forms a plan takes when its scales are those of trained layers",
           "  (every scale below 1/2; for arm below 1; for tonearest, no product that can tie, when it",
           "  runs upward's code); `MODE/any` is the general form the tile runs for any other plan",
           "  (arm/neon/requant_neon.h), the depthwise tiles too.",
           "- **whole call**: k-loop iterations for K plus the tile's MR x NR outputs through the",
           "  epilogue; packing, set-up and the loop's exit are not counted.",
           "- **depthwise** (`dw-neon Cc x Wpx`, u8 and s8 inputs): the k-loop is the tap loop of the",
           "  kernel's whole tile (W pixels x C channels), three taps a step where the 3x3 form",
           "  (tile_rows) fits in the registers, else one, on the path most rows take (interior",
           "  rows of stride-1 layers: tile_rows<W, C/4, whole, 1, affine>) where GCC kept that",
           "  loop; its peak is the smlal of its taps alone",
           "  (one per 4 channels of a pixel). The short forms' and fp32's epilogue is the shortest",
           "  path from the tap loop's exit that requantizes exactly the whole tile in that mode (the",
           "  bias terms, the test of the plan, the stores: the tile inlines those forms), which CI",
           "  guards like the GEMM tiles'. The general forms run out of line: their figure is the",
           "  straight-line code from the mode's first instruction there, conditional branches not",
           "  taken, up to the next backward branch, without the call and the bias terms (so not",
           "  comparable with the short forms'; it can also overstate where GCC merged that path",
           "  with other code); `—` means no such code was found. The whole call",
           f"  is {DEPTHWISE_TAPS} taps (a 3x3 kernel) of that tile.", "",
           "What llvm-mca cannot see: caches and memory bandwidth (every load hits L1), the hardware",
           "prefetchers, branch mispredictions (the loops' exits, the tile-edge paths), the cost of",
           "called functions, frequency and the other cores sharing L2/L3; its core models come from",
           "the vendors' optimisation guides, not from measurements. Predictions rank kernels and",
           "catch regressions; they are not timings.", "",
           "## k-loops", "",
           "| kernel | core | cycles/step | k/step | peak cycles | share | stack ld/st |",
           "|---|---|---|---|---|---|---|"]
    for name, ps in by_kernel.items():
        for p in ps:
            out.append(f"| {p.kernel.source} {name} | {p.core} | {fmt(p.step_cycles, 2)} | "
                       f"{fmt(p.kernel.k_per_step, 0)} | {fmt(p.peak_cycles, 2)} | {p.share:.0%} | {p.spills} |")
    out += ["", "## Epilogues: cycles per 16 outputs (calls per 16 outputs)", "",
            "| kernel | mode | " + " | ".join(CORES) + " |", "|---|---|" + "---|" * len(CORES)]
    for name, ps in by_kernel.items():
        for mode in ps[0].kernel.modes:
            cells = []
            for core in CORES:
                p = next((p for p in ps if p.core == core), None)
                e = p.epilogue.get(mode) if p else None
                cells.append("—" if e is None else f"{e[0]:.1f}" + (f" ({e[1]:.0f})" if e[1] else ""))
            out.append(f"| {ps[0].kernel.source} {name} | {mode} | " + " | ".join(cells) + " |")
    out += ["", "## Whole call: predicted cycles at K = " + " / ".join(map(str, WHOLE_CALL_K)), "",
            "| kernel | mode | " + " | ".join(CORES) + " |", "|---|---|" + "---|" * len(CORES)]
    for name, ps in by_kernel.items():
        for mode in ps[0].kernel.modes:
            cells = []
            for core in CORES:
                p = next((p for p in ps if p.core == core), None)
                if p is None or mode not in p.epilogue:
                    cells.append("—")
                elif p.kernel.kind == "depthwise":
                    cells.append(f"{p.whole_call(mode, DEPTHWISE_TAPS):.0f} ({DEPTHWISE_TAPS} taps)")
                else:
                    cells.append(" / ".join(f"{p.whole_call(mode, k):.0f}" for k in WHOLE_CALL_K))
            out.append(f"| {ps[0].kernel.source} {name} | {mode} | " + " | ".join(cells) + " |")
    return "\n".join(out + beside_xnnpack(predictions)) + "\n"


# Instruction sets in order: a kernel may be compared with peers that need no more than it does.
FEATURE_RANK = {None: 0, "dotprod": 1, "i8mm": 2}
# XNNPACK's c8 / c16 "mlal" kernels add two int8 products in an int16 lane (smull, then smlal),
# which wraps when both weights of a pair are -128: exact for XNNPACK's weights, limited to
# [-127, 127], not for every int8 weight that qtune takes. Its "mlal_lane" kernels widen to int16
# first and are exact.
INEXACT_XNNPACK = re.compile(r"c(8|16)__aarch64_neon_mlal")


def comparable(ours, theirs):
    """XNNPACK kernels as exact as qtune's over int8 weights, with no instruction qtune's lacks."""
    return (FEATURE_RANK[theirs.kernel.feature] <= FEATURE_RANK[ours.kernel.feature]
            and not INEXACT_XNNPACK.search(theirs.kernel.name))


def accumulator_layout(kernel):
    """How a GEMM kernel's accumulators hold C: "c8" (pairs of lanes added after the loop: qtune's
    neon c8 tiles, XNNPACK's c8 kernels), "c4" (sdot), "c16", "i8mm" (2x2 blocks) or "rows"."""
    if kernel.source == "xnnpack":
        m = re.search(r"_\d+x\d+(c\d+)?__", kernel.name)
        return m.group(1) if m and m.group(1) else "rows"
    if kernel.feature == "i8mm":
        return "i8mm"
    if kernel.to_rows is not None:
        return "c8"
    return "c4" if kernel.feature == "dotprod" else "rows"


def beside_xnnpack(predictions):
    """Each qtune GEMM tile and mode against XNNPACK's best kernel of the closest epilogue on the same
    core: the epilogue per 16 outputs, and the whole call per output (the tiles differ in size)."""
    xnn = [p for p in predictions if p.kernel.source == "xnnpack"]
    if not xnn:
        return []
    out = ["", "## Beside XNNPACK", "",
           "Each qtune GEMM tile and mode against the best comparable XNNPACK arm64 GEMM kernel (any tile,",
           "qs8 or qu8) with the closest epilogue (fp32 for fp32, rndnu for the fixed-point modes) on the",
           "same core: epilogue cycles per 16 outputs, and whole-call cycles per output at K = "
           + " / ".join(map(str, WHOLE_CALL_K)) + " (the tiles differ in size). Comparable: needing no",
           "instruction the qtune kernel's family lacks (a neon tile against XNNPACK's kernels without",
           "sdot, a dotprod tile against those without i8mm), and exact for every int8 weight (XNNPACK's",
           "c8 and c16 `mlal` kernels add two products in 16 bits, which wraps for a pair of -128",
           "weights; XNNPACK's own weights stop at -127). The same tile: XNNPACK's comparable kernel of",
           "the same MR x NR whose accumulators hold C the same way (c8: lane pairs added after the",
           "loop, as qtune's neon c8 tiles; c4: sdot's), where it has one.", "",
           "| qtune kernel | mode | core | epilogue/16 | XNNPACK's best epilogue/16 | the same tile's | "
           "per output | XNNPACK's best per output |", "|---|---|---|---|---|---|---|---|"]
    per_output = lambda p, mode, k: p.whole_call(mode, k) / (p.kernel.mr * p.kernel.nr)
    for p in predictions:
        if p.kernel.source != "qtune" or p.kernel.kind != "gemm":
            continue
        for mode, (cycles, _) in p.epilogue.items():
            peers = [q for q in xnn
                     if q.core == p.core and CLOSEST_XNNPACK_MODE[mode] in q.epilogue and comparable(p, q)]
            if not peers:
                continue
            best_epi = min(peers, key=lambda q: q.epilogue[CLOSEST_XNNPACK_MODE[mode]][0])
            same = [q for q in peers if (q.kernel.mr, q.kernel.nr) == (p.kernel.mr, p.kernel.nr)
                    and accumulator_layout(q.kernel) == accumulator_layout(p.kernel)]
            same_epi = "—"
            if same:
                q = min(same, key=lambda q: q.epilogue[CLOSEST_XNNPACK_MODE[mode]][0])
                same_epi = f"{q.epilogue[CLOSEST_XNNPACK_MODE[mode]][0]:.1f} ({q.kernel.name})"
            ours = " / ".join(f"{per_output(p, mode, k):.2f}" for k in WHOLE_CALL_K)
            theirs = []
            for k in WHOLE_CALL_K:
                best = min(peers, key=lambda q, k=k: per_output(q, CLOSEST_XNNPACK_MODE[mode], k))
                theirs.append(f"{per_output(best, CLOSEST_XNNPACK_MODE[mode], k):.2f} ({best.kernel.name})")
            best_text = f"{best_epi.epilogue[CLOSEST_XNNPACK_MODE[mode]][0]:.1f} ({best_epi.kernel.name})"
            out.append(f"| {p.kernel.name} | {mode} | {p.core} | {cycles:.1f} | {best_text} | {same_epi} | {ours} | "
                       + " / ".join(theirs) + " |")
    return out


# A recorded floor leaves this much room below today's prediction, so that a harmless change of
# schedule does not fail CI while a lost register or a slower epilogue does.
SHARE_MARGIN = 0.03
EPILOGUE_MARGIN = 1.10


def record_floors(predictions):
    floors = {}
    for p in predictions:
        if p.kernel.source != "qtune":
            continue
        # The depthwise general forms' epilogues are found heuristically (see the tables' notes):
        # their figures inform, but a change of GCC's block layout could move them (Kernel.guarded).
        epilogues = {m: e for m, e in p.epilogue.items() if m in p.kernel.guarded}
        floors.setdefault(p.kernel.name, {})[p.core] = {
            "min_share": math.floor((p.share - SHARE_MARGIN) * 100) / 100,
            "max_spills": p.spills,
            "max_epilogue_cycles_per_16": {m: math.ceil(e[0] * EPILOGUE_MARGIN * 2) / 2 for m, e in epilogues.items()},
        }
    return {"about": "Recorded by scripts/arm-mca.py --record-floors; checked by --check (ctest arm_mca_floors).",
            "kernels": floors}


def check(predictions, floors):
    failures = []
    found = {(p.kernel.name, p.core): p for p in predictions if p.kernel.source == "qtune"}
    for name, cores in floors["kernels"].items():
        for core, floor in cores.items():
            p = found.get((name, core))
            if p is None:
                failures.append(f"{name} on {core}: not found in the library (renamed, removed, or its loop lost)")
                continue
            if p.share < floor["min_share"]:
                failures.append(f"{name} on {core}: k-loop at {p.share:.1%} of peak, floor {floor['min_share']:.0%}")
            if p.spills > floor["max_spills"]:
                failures.append(f"{name} on {core}: {p.spills} stack accesses in the k-loop, at most "
                                f"{floor['max_spills']}")
            for mode, ceiling in floor["max_epilogue_cycles_per_16"].items():
                e = p.epilogue.get(mode)
                if e is None:
                    failures.append(f"{name} on {core}: no {mode} epilogue found")
                elif e[0] > ceiling:
                    failures.append(f"{name} on {core}: {mode} epilogue {e[0]:.1f} cycles / 16 outputs, "
                                    f"ceiling {ceiling}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="+", help="aarch64 libqtune_kernels.a or kernel objects")
    parser.add_argument("--xnnpack", help="arm64 libXNNPACK.so, analysed side by side")
    parser.add_argument("--mca", default="llvm-mca-19")
    parser.add_argument("--objdump", default="llvm-objdump-19")
    parser.add_argument("--markdown", help="write the tables to this file")
    parser.add_argument("--check", metavar="FLOORS", help="exit 1 when a kernel is below its recorded floors")
    parser.add_argument("--record-floors", metavar="FLOORS", help="write today's predictions less margins")
    args = parser.parse_args()

    functions = {}
    for path in args.inputs:
        functions.update(parse_functions(args.objdump, path))
    kernels = qtune_kernels(functions)
    if not kernels:
        sys.exit("arm-mca: no qtune Arm GEMM tile in " + " ".join(args.inputs))
    xnnpack_note = ""
    if args.xnnpack:
        xnnpack_functions = parse_functions(args.objdump, args.xnnpack)
        kernels += xnnpack_kernels(xnnpack_functions)
        depthwise = [n for n in xnnpack_functions if re.match(r"xnn_q[su]8\w*_dwconv\w*_ukernel", n)]
        xnnpack_note = (f"XNNPACK: the {sum(k.source == 'xnnpack' for k in kernels)} qs8/qu8 GEMM microkernels "
                        f"its arm64 library exports (the aarch64 assembly ones); it exports "
                        f"{len(depthwise)} depthwise microkernels, so none is beside qtune's.")
    analyse_regions(kernels)
    for k in kernels:
        if k.loop is None:
            print(f"arm-mca: {k.source} {k.name}: no k-loop found", file=sys.stderr)
    predictions = predict(kernels, args.mca)

    if args.markdown:
        command = "scripts/arm-mca.py LIB" + (" --xnnpack LIBXNNPACK" if args.xnnpack else "") + " --markdown FILE"
        with open(args.markdown, "w") as f:
            f.write(markdown(predictions, command, xnnpack_note))
    if args.record_floors:
        with open(args.record_floors, "w") as f:
            json.dump(record_floors(predictions), f, indent=1, sort_keys=True)
            f.write("\n")
    if args.check:
        with open(args.check) as f:
            failures = check(predictions, json.load(f))
        for failure in failures:
            print("arm-mca: FAIL " + failure)
        print(f"arm-mca: {len(predictions)} kernel x core predictions checked, {len(failures)} below their floors")
        return 1 if failures else 0
    if not args.markdown and not args.record_floors:
        for p in predictions:
            epi = ", ".join(f"{m} {e[0]:.1f}" for m, e in p.epilogue.items())
            print(f"{p.kernel.source:8} {p.kernel.name:32} {p.core:12} step {p.step_cycles:6.2f} "
                  f"share {p.share:5.0%} spills {p.spills:2}  epilogue/16: {epi}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
