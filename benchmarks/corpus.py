"""What the benchmarks analyze: a real stdlib module and deterministic synthetic ones.

* :func:`stdlib_module` finds a real ~3,000-line module of the running interpreter
  (``inspect.py``) at run time; its text is copied into the temporary workspace,
  never committed here.
* :func:`synthetic_module` writes a varied, valid module of about N lines from a
  seed: module constants, functions of cyclomatic complexity 1 to ~14 built from
  ``if``/``elif``, loops, ``while``, ternaries, boolean operators, filtered
  comprehensions and ``try``/``except``, classes with methods, nested helpers. The
  same seed always gives the same text.
* :class:`EditableModule` is a module an editing session changes one function at
  a time, knowing where each function starts (for a cursor inside it).
"""

from __future__ import annotations

import os
import random
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

#: Real modules of ~3,000 lines, in order of preference.
STDLIB_CANDIDATES = ("inspect.py", "argparse.py", "typing.py", "pydoc.py")

_WORD_TEXT = (
    "alpha beta gamma delta record batch window token buffer entry offset cursor "
    "packet frame quota ledger shard route bucket sample vector metric signal"
)
_WORDS = _WORD_TEXT.split()


def stdlib_module() -> Path:
    """A real ~3,000-line module of this interpreter's standard library."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in STDLIB_CANDIDATES:
        path = stdlib / name
        if path.is_file():
            return path
    raise FileNotFoundError(f"none of {STDLIB_CANDIDATES} in {stdlib}")


def _name(rng: random.Random, prefix: str = "") -> str:
    words = rng.sample(_WORDS, 2)
    return f"{prefix}{words[0]}_{words[1]}_{rng.randrange(1000)}"


def _construct(rng: random.Random, pad: str) -> list[str]:
    """One decision construct (adds 1 or 2 to the complexity) at indent ``pad``."""
    k = rng.randrange(1, 50)
    kind = rng.randrange(9)
    if kind == 0:
        return [f"{pad}if limit > {k}:", f"{pad}    total += {k}"]
    if kind == 1:
        return [
            f"{pad}if total < {k}:",
            f"{pad}    total += 1",
            f"{pad}elif total > {k * 3}:",
            f"{pad}    total -= 1",
        ]
    if kind == 2:
        return [f"{pad}for item in items:", f"{pad}    total += item % {k}"]
    if kind == 3:
        return [
            f"{pad}count = {k}",
            f"{pad}while count > 0:",
            f"{pad}    count -= 1",
            f"{pad}    total += count",
        ]
    if kind == 4:
        return [f"{pad}total += {k} if flag else -{k}"]
    if kind == 5:
        return [f"{pad}if flag and total > {k}:", f"{pad}    total //= 2"]
    if kind == 6:
        return [f"{pad}total += sum(x for x in items if x > {k})"]
    if kind == 7:
        return [
            f"{pad}try:",
            f"{pad}    total += int(limit) // {k}",
            f"{pad}except (TypeError, ValueError):",
            f"{pad}    total = 0",
        ]
    return [
        f"{pad}for index, item in enumerate(items):",
        f"{pad}    if item > {k}:",
        f"{pad}        total += index",
    ]


def render_function(rng: random.Random, name: str, constructs: int, indent: str = "") -> list[str]:
    """A function of ``constructs`` decision constructs (method when indented)."""
    self_arg = "self, " if indent else ""
    pad = indent + "    "
    lines = [
        f"{indent}def {name}({self_arg}items, limit=10, flag=False):",
        f'{pad}"""{rng.choice(_WORDS).capitalize()} the {rng.choice(_WORDS)}s."""',
        f"{pad}total = {rng.randrange(10)}",
    ]
    if constructs and rng.random() < 0.15:
        helper = _name(rng, "_inner_")
        lines += [
            f"{pad}def {helper}(value):",
            f"{pad}    if value > limit:",
            f"{pad}        return value - limit",
            f"{pad}    return value",
            f"{pad}total += {helper}(total)",
        ]
    for _ in range(constructs):
        lines += _construct(rng, pad)
    lines.append(f"{pad}return total")
    return lines


def _complexity_budget(rng: random.Random) -> int:
    """Mostly simple functions, some in the advise band, a few past warn."""
    return rng.choice((0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 8, 11))


def synthetic_module(seed: int, target_lines: int) -> str:
    """A valid, varied module of about ``target_lines`` lines (at least ~12)."""
    rng = random.Random(seed)
    lines = [
        f'"""Synthetic module {seed}: {rng.choice(_WORDS)} handling."""',
        "",
        "from __future__ import annotations",
        "",
        "import os",
        "",
    ]
    for _ in range(rng.randrange(1, 4)):
        lines.append(f"{_name(rng).upper()} = {rng.randrange(1000)}")
    while len(lines) < target_lines:
        lines += ["", ""]
        if rng.random() < 0.25:
            lines.append(f"class {_name(rng).title().replace('_', '')}:")
            lines.append(f'    """A {rng.choice(_WORDS)} holder."""')
            lines += ["", "    def __init__(self, size=0):", "        self.size = size"]
            for _ in range(rng.randrange(1, 5)):
                if len(lines) >= target_lines:
                    break
                lines.append("")
                lines += render_function(rng, _name(rng), _complexity_budget(rng), "    ")
        else:
            lines += render_function(rng, _name(rng, "fn_"), _complexity_budget(rng))
    return "\n".join(lines) + "\n"


def write_tree(
    root: Path, count: int, seed: int, lines: tuple[int, int], per_dir: int
) -> list[Path]:
    """``count`` synthetic modules under ``root``, ``per_dir`` to a sub-folder."""
    rng = random.Random(seed)
    paths: list[Path] = []
    for index in range(count):
        folder = root / f"pkg_{index // per_dir:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"mod_{index:05d}.py"
        path.write_text(synthetic_module(seed * 100_003 + index, rng.randint(*lines)))
        paths.append(path)
    return paths


def backdate(paths: list[Path], seconds: float) -> None:
    """Set mtimes ``seconds`` in the past: files not saved in the last moments."""
    for path in paths:
        stamp = path.stat().st_mtime - seconds
        os.utime(path, (stamp, stamp))


@dataclass
class _Function:
    name: str
    constructs: int
    version: int = 0


@dataclass
class EditableModule:
    """A module an editing session changes, one function at a time."""

    path: Path
    seed: int
    functions: list[_Function] = field(default_factory=list)
    #: Byte offset of each function's first body line, from the last render.
    body_offsets: list[int] = field(default_factory=list)

    @classmethod
    def create(cls, path: Path, seed: int, functions: int) -> EditableModule:
        rng = random.Random(seed)
        module = cls(path, seed)
        for index in range(functions):
            module.functions.append(_Function(f"step_{index}", _complexity_budget(rng)))
        module.save()
        return module

    def render(self) -> bytes:
        out = bytearray(f'"""Module being edited (seed {self.seed})."""\n\nimport os\n'.encode())
        self.body_offsets = []
        for fn in self.functions:
            out += b"\n\n"
            rng = random.Random(f"{self.seed}:{fn.name}:{fn.version}")
            lines = render_function(rng, fn.name, fn.constructs)
            self.body_offsets.append(len(out) + len(lines[0]) + 1)
            out += ("\n".join(lines) + "\n").encode()
        return bytes(out)

    def save(self) -> None:
        """Write the file in place, as most editors save."""
        self.path.write_bytes(self.render())

    def edit(self, rng: random.Random, max_functions: int) -> int:
        """Append a function or change one; save; the edited function's index."""
        if len(self.functions) < max_functions and rng.random() < 0.35:
            index = len(self.functions)
            self.functions.append(_Function(f"step_{index}", _complexity_budget(rng)))
        else:
            index = rng.randrange(len(self.functions))
            fn = self.functions[index]
            fn.constructs = max(0, min(12, fn.constructs + rng.choice((-1, 1, 1))))
            fn.version += 1
        self.save()
        return index

    def cursor_in(self, index: int) -> int:
        """A byte offset inside function ``index``'s body."""
        return self.body_offsets[index]


#: The shapes of :func:`near_copy_module`'s functions: the body of a test, of a
#: generated accessor, of a generated converter. ``{w}`` words and ``{k}`` numbers
#: are what one function changes from the next.
_NEAR_COPY_SHAPES = (
    (
        "def test_{name}(client, payload, expected):",
        '    response = client.post("/{w0}", json=payload)',
        "    if response.status != {k0}:",
        "        raise AssertionError(response.status)",
        '    if "{w1}" in response.body:',
        '        assert response.body["{w1}"] == expected',
        "    elif expected is not None:",
        '        assert response.body.get("{w2}") == {k1}',
        "    return response",
    ),
    (
        "def get_{name}(record, default, strict):",
        '    """Read the {w0} of a record."""',
        '    value = record.get("{w0}", {k0})',
        "    if value is None and strict:",
        '        raise KeyError("{w0}")',
        "    if value is None:",
        "        value = default",
        "    while value > {k1}:",
        "        value -= {k0}",
        "    return value",
    ),
    (
        "def convert_{name}(data, index, default):",
        "    try:",
        '        result = data[index]["{w1}"]',
        "    except (KeyError, IndexError):",
        "        result = default",
        "    if result is None or result < {k0}:",
        "        result = {k1}",
        "    for step in range({k0}):",
        "        result = result * step + {k1}",
        "    return result",
    ),
)


def near_copy_module(seed: int, target_lines: int) -> str:
    """About ``target_lines`` lines of small functions in a few shapes, each a near copy
    of others (differing in a name or a value), as in a test module or generated code;
    the same seed always gives the same text."""
    rng = random.Random(seed)
    lines = [f'"""Near copies {seed}."""', ""]
    index = 0
    while len(lines) < target_lines:
        shape = _NEAR_COPY_SHAPES[index % len(_NEAR_COPY_SHAPES)]
        words = {f"w{i}": rng.choice(_WORDS[:6]) for i in range(3)}
        numbers = {f"k{i}": rng.choice((1, 2, 3, 5, 8, 13, 21, 34, 55, 89)) for i in range(2)}
        if rng.random() < 0.5:
            numbers["k0"] = index  # a value of its own, as a generated table's index is
        name = f"{_name(rng)}_{index}"
        lines += ["", ""]
        lines += [line.format(name=name, **words, **numbers) for line in shape]
        index += 1
    return "\n".join(lines) + "\n"
