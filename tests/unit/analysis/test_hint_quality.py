"""Hint quality on real third-party code: the hand labels, and automatic checks that
every move is true of the code it is about.

The labels judge values inside their advise band: every one in 15 modules of 13
packages (``tests/corpus/labels.json``), and a blind sample of 94 from 52 other
modules (``tests/corpus/labels-sample.json``): whether a hint there is worth
showing, and what its archetype really is. The automatic checks run over a larger
corpus (whole packages) and re-derive from the source, independently of the engine,
what each move claims: that a block moves out unchanged, that it takes the decision
points it says, that a nesting hint sits on real nesting, and the ten failure
patterns of the old engine (each must be zero).
"""

from __future__ import annotations

import ast
import re
import statistics
from collections.abc import Iterator
from typing import NamedTuple

import pytest
from radon.visitors import ComplexityVisitor

from gzguide.analysis.facts.scopes import collect_scopes
from gzguide.analysis.facts.walk import view_of
from gzguide.analysis.model import Finding
from gzguide.analysis.moves.base import Concern
from gzguide.analysis.moves.extract import Examiner
from gzguide.analysis.policy.advice import COMPLEXITY_BLOCK_POINTS, body_lines, worth_a_helper
from gzguide.analysis.policy.thresholds import Position, default_thresholds
from support import hint_corpus as corpus

pytestmark = pytest.mark.skipif(
    bool(corpus.version_problems()),
    reason="the corpus packages are not at their labelled versions: "
    + "; ".join(corpus.version_problems())
    + " (install the test extra)",
)

FUNCTION_METRICS = {"radon_cc", "lizard_ccn", "lizard_nloc", "lizard_param_count"}
FUNCTION_METRICS |= {"lizard_nesting_depth"}
#: The hints the protocol's contract owes: one for every function in radon_cc's band.
OWED = "radon_cc"


def all_findings() -> Iterator[tuple[str, Finding]]:
    for path in corpus.corpus_files():
        for finding in corpus.findings(path):
            yield path, finding


# -- the labels --------------------------------------------------------------------------


def labelled() -> list[tuple[corpus.Label, Finding | None]]:
    """Every label of both sets, with the hint given there (if any)."""
    out: list[tuple[corpus.Label, Finding | None]] = []
    for path, by_key in corpus.labels().items():
        got = {(f.metric, f.start_line): f for f in corpus.findings(path)}
        unlabelled = set(got) - set(by_key)
        assert not unlabelled, f"{path}: hints nobody labelled: {sorted(unlabelled)}"
        out.extend((label, got.get(key)) for key, label in by_key.items())
    for path, by_key in corpus.sampled_labels().items():
        assert path not in corpus.labels(), f"{path} is in both label sets"
        got = {(f.metric, f.start_line): f for f in corpus.findings(path)}
        out.extend((label, got.get(key)) for key, label in by_key.items())
    return out


def test_the_corpus_is_labelled_by_hand_and_large_enough() -> None:
    rows = labelled()
    assert len(rows) >= 400
    assert len({label.path.split("/")[0] for label, _ in rows}) >= 10
    for path in [*corpus.labels(), *corpus.sampled_labels()]:
        assert path in corpus.corpus_files(), f"{path} is labelled but not in the corpus"


def test_every_owed_hint_is_given() -> None:
    for label, finding in labelled():
        if label.metric == OWED:
            assert finding is not None, label


def test_hints_worth_emitting_precision() -> None:
    """Of the hints the engine chose to give (all but the owed ones), 90% or more are
    labelled worth showing."""
    given = [(label, f) for label, f in labelled() if f is not None and label.metric != OWED]
    worth = [label for label, _ in given if label.emit]
    noise = [f"{lb.path}:{lb.start_line} {lb.metric} ({lb.note})" for lb, _ in given if not lb.emit]
    assert given, "no optional hint at all: the labels could not check anything"
    assert len(worth) >= 0.9 * len(given), noise


def test_archetype_precision() -> None:
    given = [(label, f) for label, f in labelled() if f is not None]
    right = [label for label, f in given if f.archetype == label.archetype]
    wrong = [
        f"{lb.path}:{lb.start_line} {lb.metric}: {f.archetype}, labelled {lb.archetype}"
        for lb, f in given
        if f.archetype != lb.archetype
    ]
    assert len(right) >= 0.9 * len(given), wrong


# -- moves an editor can show ------------------------------------------------------------


def test_moves_fit_inline() -> None:
    lengths = [len(f.move) for _, f in all_findings()]
    assert lengths
    assert max(lengths) <= 240
    assert statistics.median(lengths) <= 160
    for _, f in all_findings():
        assert "\n" not in f.move and "\n" not in f.headline
        assert f.move.endswith("."), f.move


def test_every_move_names_its_lines() -> None:
    for path, f in all_findings():
        assert corpus.cited_lines(f.move), (path, f.move)


# -- the ten patterns, each zero -----------------------------------------------------------


def _caller_parameters(node: ast.FunctionDef | ast.AsyncFunctionDef, is_method: bool) -> list[str]:
    args = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
    if is_method and not static and args:
        args = args[1:]
    return args


def _methods(path: str) -> set[int]:
    """Lines of the defs directly in a class body."""
    return {
        child.lineno
        for node in ast.walk(corpus.tree(path))
        if isinstance(node, ast.ClassDef)
        for child in node.body
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def test_1_the_receiver_is_never_counted() -> None:
    for path, f in all_findings():
        if f.metric == "lizard_param_count":
            node = corpus.definition_at(path, f.start_line)
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            named = _caller_parameters(node, f.start_line in _methods(path))
            assert len(named) >= 3, (path, f.start_line, named)


def _depth(statements: list[ast.stmt], level: int = 0) -> int:
    deepest = 0
    for s in statements:
        if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        deepest = max(deepest, level)
        if isinstance(s, ast.If):
            deepest = max(deepest, _depth(s.body, level + 1))
            elif_ = len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If)
            elif_ = elif_ and s.orelse[0].col_offset == s.col_offset
            deepest = max(deepest, _depth(s.orelse, level if elif_ else level + 1))
        elif isinstance(s, ast.For | ast.AsyncFor | ast.While):
            deepest = max(deepest, _depth(s.body + s.orelse, level + 1))
        elif isinstance(s, ast.Match):
            deepest = max(deepest, *(_depth(c.body, level + 1) for c in s.cases))
        elif isinstance(s, ast.With | ast.AsyncWith):
            deepest = max(deepest, _depth(s.body, level))
        elif isinstance(s, ast.Try | ast.TryStar):
            blocks = [s.body, *(h.body for h in s.handlers), s.orelse, s.finalbody]
            deepest = max(deepest, *(_depth(b, level) for b in blocks))
    return deepest


def test_2_nesting_hints_sit_on_real_nesting() -> None:
    for path, f in all_findings():
        if f.metric == "lizard_nesting_depth":
            node = corpus.definition_at(path, f.start_line)
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            assert _depth(node.body) >= f.crossing_value, (path, f.start_line)
            assert "no block nests" not in f.move and "no nested block" not in f.move


def _nested_spans(node: ast.AST) -> list[tuple[int, int]]:
    return [
        (n.lineno, n.end_lineno or n.lineno)
        for n in ast.walk(node)
        if n is not node and isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]


def test_3_evidence_stays_inside_its_definition() -> None:
    for path, f in all_findings():
        if f.metric not in FUNCTION_METRICS or "travel together" in f.move:
            continue  # a data clump names the other functions, by design
        node = corpus.definition_at(path, f.start_line)
        assert node is not None
        nested = _nested_spans(node)
        # A copy of a block named in another function is cited there, by design.
        own_text = re.sub(r"repeat lines? [\d-]+ \(in `\w+`\)", "", f.move)
        # So is a whole function that copies this one.
        own_text = re.sub(r"^`[\w.]+` \(lines? [\d-]+\) is this", "", own_text)
        for first, last in corpus.cited_spans(own_text):
            where = (path, f.start_line, (first, last), f.move)
            assert f.start_line <= first <= last <= f.end_line, where
            # A block may hold a nested def; evidence never comes from inside one.
            assert not [s for s in nested if s[0] <= first and last <= s[1]], where


def test_4_data_clumps_are_parameter_hints_and_not_a_shared_signature() -> None:
    for path, f in all_findings():
        if f.archetype != "data_clumps":
            continue
        assert f.metric == "lizard_param_count", (path, f)
        names = re.findall(r"`([A-Za-z_]\w*)` \(line (\d+)\)", f.move)
        signatures = [
            tuple(a.arg for a in node.args.args)
            for _, line in names
            if isinstance(node := corpus.definition_at(path, int(line)), ast.FunctionDef)
        ]
        own = corpus.definition_at(path, f.start_line)
        assert isinstance(own, ast.FunctionDef)
        signatures.append(tuple(a.arg for a in own.args.args))
        assert len(set(signatures)) > 1, (path, f.move)  # not one signature shared by all


_EXTRACT = re.compile(r"^Lines? (\d+)(?:-(\d+))? \(.+?\) can move into a (?:helper|generator)")


def _block(node: ast.AST, first: int, last: int) -> list[ast.stmt] | None:
    """The statements of one body that cover exactly lines first..last."""
    for sub in ast.walk(node):
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(sub, field, None)
            if not isinstance(statements, list):
                continue
            run = [
                s
                for s in statements
                if isinstance(s, ast.stmt) and s.lineno >= first and (s.end_lineno or 0) <= last
            ]
            if run and run[0].lineno == first and run[-1].end_lineno == last:
                return run
        if isinstance(sub, ast.Try | ast.TryStar):
            for handler in sub.handlers:
                run = [s for s in handler.body if s.lineno >= first and (s.end_lineno or 0) <= last]
                if run and run[0].lineno == first and run[-1].end_lineno == last:
                    return run
    return None


def _own(statements: list[ast.stmt]) -> Iterator[ast.AST]:
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(
            c
            for c in ast.iter_child_nodes(node)
            if not isinstance(c, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda)
        )


def _loops_inside(statements: list[ast.stmt]) -> set[int]:
    return {id(n) for n in _own(statements) if isinstance(n, ast.For | ast.AsyncFor | ast.While)}


def _jumps_out(function: ast.AST, statements: list[ast.stmt]) -> list[str]:
    """The return/yield/break/continue in ``statements`` that leave them."""
    inside = _loops_inside(statements)
    found = []
    for node in _own(statements):
        if isinstance(node, ast.Yield | ast.YieldFrom):
            found.append("yield")
        elif isinstance(node, ast.Return):
            found.append("return")
        elif isinstance(node, ast.Break | ast.Continue):
            loop = _enclosing_loop(function, node)
            if loop is None or id(loop) not in inside:
                found.append(type(node).__name__.lower())
    return found


def _enclosing_loop(function: ast.AST, target: ast.AST) -> ast.AST | None:
    def search(node: ast.AST, loop: ast.AST | None) -> ast.AST | None:
        for child in ast.iter_child_nodes(node):
            if child is target:
                return loop
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            # a loop's else is not inside the loop for break/continue
            inner = child if isinstance(child, ast.For | ast.AsyncFor | ast.While) else loop
            found = search(child, inner)
            if found is not None or _contains(child, target):
                return found
        return None

    return search(function, None)


def _contains(node: ast.AST, target: ast.AST) -> bool:
    return any(n is target for n in ast.walk(node))


class _Offered(NamedTuple):
    """An extraction the policy would offer for its size and points, and its move."""

    start_line: int
    move: str


def _extractions() -> Iterator[tuple[str, _Offered, ast.AST, list[ast.stmt]]]:
    """Every block the examiner lets move out and the policy would offer for its size
    and points, in every function of the corpus in radon_cc's band, with the move it
    would carry. The checks hold for each of them, whether or not a copy or a comment
    of its own makes it the move a hint gives."""
    band = default_thresholds().band("radon_cc")
    assert band is not None
    for path in corpus.corpus_files():
        for scope in collect_scopes(corpus.tree(path)):
            node = scope.node
            if isinstance(node, ast.ClassDef):
                continue
            value = _radon(node)
            if band.position(value) not in (Position.APPROACHING, Position.APPROACHING_WARN):
                continue
            view = view_of(node)
            examiner = Examiner(view, scope.owner is not None)
            for block in examiner.extractions(COMPLEXITY_BLOCK_POINTS):
                if worth_a_helper(block, value, body_lines(view)):
                    text = block.move(view, Concern.COMPLEXITY, value).text
                    yield (
                        path,
                        _Offered(node.lineno, text),
                        node,
                        [s.node for s in block.statements],
                    )


def test_5_and_8_extracted_blocks_move_out_as_they_are() -> None:
    seen = 0
    for path, f, function, block in _extractions():
        seen += 1
        where = (path, f.start_line, f.move)
        jumps = _jumps_out(function, block)
        assert "break" not in jumps and "continue" not in jumps, where
        if "yield" in jumps:
            assert "`yield from`" in f.move and "return" not in jumps, where
        if "return" in jumps:
            assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
            assert block[-1] is function.body[-1], where  # only the tail may return
            valued = any(isinstance(n, ast.Return) and n.value for n in _own(block))
            assert ("whose result it returns" in f.move) == valued, where
        assert not any(
            isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            for s in block
            for n in ast.walk(s)
        ), where
        assert block[-1].end_lineno is not None
        assert block[-1].end_lineno - block[0].lineno + 1 >= 3, where
        if len(block) == 1:
            only = block[0]
            assert not isinstance(only, ast.Expr | ast.Assign | ast.Return), where  # a call
            assert not (  # a guard: one raise or return under an if
                isinstance(only, ast.If)
                and len(only.body) == 1
                and not only.orelse
                and isinstance(only.body[0], ast.Raise | ast.Return)
            ), where
    assert seen, "no extraction on the whole corpus: the check checked nothing"


def _radon(node: ast.AST) -> int:
    value: int = ComplexityVisitor.from_ast(node).functions[0].complexity
    return value


def test_extractions_take_the_decision_points_they_claim() -> None:
    """Replace the block with a call, measure again with radon: the drop is the claim."""
    claims = re.compile(r": (\d+) of its (\d+) decision points go with them\.$")
    seen = 0
    for _path, f, function, block in _extractions():
        claim = claims.search(f.move)
        if claim is None:
            continue
        seen += 1
        taken, total = int(claim.group(1)), int(claim.group(2))
        before = _radon(function)
        assert total == before - 1
        parent_body = _containing_list(function, block[0])
        index = parent_body.index(block[0])
        call = ast.parse("helper()").body[0]
        saved = parent_body[index : index + len(block)]
        parent_body[index : index + len(block)] = [call]
        try:
            after = _radon(ast.parse(ast.unparse(function)).body[0])
        finally:
            parent_body[index : index + 1] = saved
        assert before - after == taken, (f.move, before, after)
    assert seen


def _containing_list(function: ast.AST, first: ast.stmt) -> list[ast.stmt]:
    for node in ast.walk(function):
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list) and any(s is first for s in statements):
                return statements
        if isinstance(node, ast.Try | ast.TryStar):
            for handler in node.handlers:
                if any(s is first for s in handler.body):
                    return handler.body
    raise AssertionError("block not found")


_BUILTIN_LINKS = {"strip", "split", "join", "lower", "upper", "replace", "format", "get"}


def test_6_chains_start_at_a_parameter_and_walk_through_objects() -> None:
    for path, f in all_findings():
        if f.archetype == "feature_envy":
            pytest.fail(f"{path}:{f.start_line}: feature envy is not emitted without types")
        if f.archetype != "message_chain":
            continue
        assert f.metric in FUNCTION_METRICS, (path, f)
        expression = ast.parse(re.search(r"`([^`]+)`", f.move).group(1).rstrip("…")).body[0]  # type: ignore[union-attr]
        root: ast.AST = expression.value if isinstance(expression, ast.Expr) else expression
        links = []
        while isinstance(root, ast.Attribute | ast.Call | ast.Subscript):
            if isinstance(root, ast.Attribute):
                links.append(root.attr)
            root = root.func if isinstance(root, ast.Call) else root.value
        function = corpus.definition_at(path, f.start_line)
        assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        params = {a.arg for a in function.args.args} - {"self", "cls"}
        assert isinstance(root, ast.Name) and root.id in params, (path, f.move)
        assert not set(links) & _BUILTIN_LINKS, (path, f.move)


def test_7_cohesion_groups_are_working_methods() -> None:
    service = {"property", "cached_property", "staticmethod", "classmethod", "setter"}
    for path, f in all_findings():
        if f.metric != "cohesion_lcom4":
            continue
        cls = corpus.definition_at(path, f.start_line)
        assert isinstance(cls, ast.ClassDef)
        methods = {
            m.name: m for m in cls.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        named = re.findall(r"`(\w+)`", f.move.split(":")[0])
        for name in named:
            if name not in methods:
                continue  # an attribute
            method = methods[name]
            assert not (name.startswith("__") and name.endswith("__")), (path, f.move)
            decorators = {
                d.id if isinstance(d, ast.Name) else getattr(d, "attr", "")
                for d in method.decorator_list
            }
            assert not decorators & service, (path, name, f.move)


def test_9_no_move_asks_to_name_asserts_or_comprehensions() -> None:
    for path, f in all_findings():
        text = f.move.lower()
        assert "predicate" not in text and "name the" not in text, (path, f.move)


def test_10_no_move_is_given_twice_on_the_same_lines() -> None:
    for path in corpus.corpus_files():
        found = corpus.findings(path)
        module = [f for f in found if f.start_line == 1 and f.metric.startswith("radon_")]
        module = [f for f in module if f.metric != "radon_cc"]
        assert len(module) <= 3, (path, module)
        for i, a in enumerate(found):
            for b in found[i + 1 :]:
                overlap = a.start_line <= b.end_line and b.start_line <= a.end_line
                assert not (overlap and a.move == b.move), (path, a, b)
