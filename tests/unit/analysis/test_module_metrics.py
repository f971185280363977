"""module_metrics / raw_counts agree exactly with radon, computed from the one shared parse."""

from __future__ import annotations

import math
import sysconfig
from pathlib import Path

import pytest
import radon
from radon.metrics import h_visit, mi_visit
from radon.raw import analyze
from radon.visitors import ComplexityVisitor

from gzguide.analysis.facts.parsed import ParsedModule, parse_module
from gzguide.analysis.facts.scopes import collect_scopes
from gzguide.analysis.metrics.cc import function_complexities, total_complexity
from gzguide.analysis.metrics.module import ModuleValues, module_metrics, raw_counts

FIXTURES: dict[str, str] = {
    "empty": "",
    "only_newlines": "\n\n\n",
    "only_comments": "# a\n# b\n\n    # indented\n#c",
    "docstrings": (
        '"""Module doc."""\n\n'
        "def f():\n"
        '    """One line."""\n'
        "    return 1\n\n\n"
        "class C:\n"
        '    """Multi\n\n'
        "    line.\n"
        '    """\n\n'
        "    x = 1\n"
    ),
    "docstring_blank_lines": 'def f():\n    """\n\n    x\n\n    """\n    return 2\n',
    "multiline_string_in_code": 'x = """a\nb\n\n"""\ny = (\n    "a"\n    "b"\n)\n',
    "string_statements": "'a'\n'b' 'c'\n('d')\n'''e'''\n'''f\n'''  # g\nr'''h\ni'''\n",
    "comments_after_code": "x = 1  # one\nif x:  # two\n    y = 2  # three\n# four\n",
    "continuations": "x = 1 + \\\n    2\nif (a and\n        b):\n    pass\nz = \\\n  3\n",
    "backslash_then_blank_then_comment": "x = 1 \\\n\n# c\ny = 2\n",
    "backslash_then_blanks": "x = 1 \\\n   \ny = {1: 2}\n\nz = 3 \\\n\n\n# c\n",
    "backslash_then_blank_then_string": 'x = 1 \\\n\n"""a\nb"""\nz = 1\n',
    "backslash_then_blank_indented": "def f():\n    x = 1 \\\n\n    return x\n",
    "backslash_in_string": "x = 'abc\\\ndef'\ny = 1\n",
    "semicolons": "a = 1; b = 2\nif a: b; c\nif a: pass; b = {1: 2}\nx = 1;\nc = 3; d = {4: 5}\n",
    "colons": (
        "d = {1: 2}\n"
        "l = x[1:2]\n"
        "f = lambda y: y\n"
        "def g(a: int) -> int: return a\n"
        "class K: pass\n"
        "while x: x -= 1\n"
        "v: int = 3\n"
        "if (n := len(a)) > 10: print(n)\n"
    ),
    "one_line_compounds": (
        "for i in x: print(i)\nelse: pass\ntry: 1/0\nexcept: pass\nwith a: pass\n"
        "if a:  # c\n    pass\nif b: return 0  # c\n"
    ),
    "no_trailing_newline": "x = 1\ny = 2",
    "comment_no_trailing_newline": "x = 1\n# end",
    "whitespace_lines": "x = 1\n   \n\t\ny = 2\n   ",
    "crlf": "x = 1\r\n# c\r\n\r\n'''a\r\nb'''\r\ndef f():\r\n    return [\r\n\r\n        1]\r\n",
    "blank_and_comments_in_brackets": "x = [\n\n    1,  # c\n\n    # d\n]\nf(a,  # e\n  b)  # g\n",
    "fstrings": 'x = f"{a:>{w}}"\ny = f"""\n{b!r:10}\n\n"""\nz = f"{d[\'k\']:x}"\n',
    "decorators_async": (
        "@dec\n@other(1)\nasync def f():\n"
        "    async with a as b: await b\n"
        "    async for i in c: pass\n"
        "    return [j async for j in c]\n"
    ),
    "match": "match x:\n    case {'a': 1}: pass\n    case [1, *_]:\n        y = 1\n    case _: z\n",
    "form_feed_line": "x = 1\n\f\ndef f():\n    pass\n\f\n# c\n",
    "unicode": 's = \'é\'  # ü\nnom = """ça\n\u3000\n"""\n',
    "nested_functions": (
        "def outer(a, b=lambda: 0):\n"
        "    def inner(c):\n"
        "        return c if c else (a or b)\n"
        "    class Local:\n"
        "        '''doc'''\n"
        "        attr: dict[str, int] = {}\n"
        "    return inner, Local\n"
    ),
}

STDLIB_CORPUS = (
    "abc.py",
    "asyncio/locks.py",
    "base64.py",
    "bisect.py",
    "calendar.py",
    "cmd.py",
    "contextlib.py",
    "copy.py",
    "csv.py",
    "dataclasses.py",
    "dis.py",
    "fractions.py",
    "functools.py",
    "getopt.py",
    "gettext.py",
    "glob.py",
    "gzip.py",
    "heapq.py",
    "hmac.py",
    "html/parser.py",
    "json/decoder.py",
    "json/encoder.py",
    "ntpath.py",
    "operator.py",
    "pprint.py",
    "queue.py",
    "shlex.py",
    "string.py",
    "textwrap.py",
    "tokenize.py",
    "uuid.py",
    "warnings.py",
)


def _corpus() -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = [stdlib / rel for rel in STDLIB_CORPUS if (stdlib / rel).is_file()]
    radon_root = Path(radon.__file__).parent
    files.extend(sorted(radon_root.rglob("*.py")))
    return files


CORPUS = _corpus()


def _parse(text: str) -> ParsedModule:
    module = parse_module(text.encode("utf-8"))
    assert module is not None
    return module


def _values(module: ParsedModule) -> ModuleValues:
    scopes = collect_scopes(module.tree)
    complexity = total_complexity(module.tree, function_complexities(scopes))
    return module_metrics(module, complexity)


def _assert_agrees_with_radon(module: ParsedModule) -> None:
    text = module.text
    radon_raw = analyze(text)
    assert tuple(raw_counts(module)) == tuple(radon_raw)

    values = _values(module)
    assert (values.sloc, values.lloc) == (radon_raw.sloc, radon_raw.lloc)

    scopes = collect_scopes(module.tree)
    ours = total_complexity(module.tree, function_complexities(scopes))
    assert ours == ComplexityVisitor.from_ast(module.tree).total_complexity

    expected_mi = mi_visit(text, True)
    assert math.isclose(values.mi, expected_mi, rel_tol=1e-9, abs_tol=0.0), (
        values.mi,
        expected_mi,
    )

    halstead = h_visit(text).total
    assert values.hal_volume == halstead.volume
    assert values.hal_difficulty == halstead.difficulty
    assert values.hal_effort == halstead.effort


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture_agrees_with_radon(name: str) -> None:
    _assert_agrees_with_radon(_parse(FIXTURES[name]))


def test_fixture_figures_by_hand() -> None:
    # Pinned values guard against radon and us drifting together.
    assert tuple(raw_counts(_parse(""))) == (0, 0, 0, 0, 0, 0, 0)
    only_comments = raw_counts(_parse(FIXTURES["only_comments"]))
    assert (only_comments.comments, only_comments.single_comments) == (4, 4)
    assert (only_comments.sloc, only_comments.lloc, only_comments.blank) == (0, 0, 1)
    # "if a: b; c" is 2 logical lines for radon, "a = 1; b = 2" too.
    semicolons = raw_counts(_parse("a = 1; b = 2\nif a: b; c\n"))
    assert (semicolons.sloc, semicolons.lloc) == (2, 4)
    docstring = raw_counts(_parse(FIXTURES["docstring_blank_lines"]))
    assert (docstring.multi, docstring.blank, docstring.sloc) == (3, 2, 2)
    assert _values(_parse("")).mi == 100.0


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: "/".join(Path(p).parts[-2:]))
def test_corpus_agrees_with_radon(path: Path) -> None:
    module = parse_module(path.read_bytes())
    assert module is not None
    _assert_agrees_with_radon(module)


def test_corpus_size() -> None:
    assert len(CORPUS) >= 55


def test_tokenizer_failure_gives_zeros() -> None:
    module = _parse("x = 1\n")
    module.tokens.clear()  # as if the tokenizer had rejected the text
    assert tuple(raw_counts(module)) == (0, 0, 0, 0, 0, 0, 0)
