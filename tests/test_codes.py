"""Every diagnostic code the package can emit is in one registry (hooks/perfdocs/codes.py), and the README lists
exactly that registry.

Codes reach a ``Diagnostic`` in more ways than a literal argument, so the scan follows them:

- a *sink* is ``Diagnostic`` itself, a class that carries a code to one (``sanitize.Finding`` and ``_Removal``,
  ``apirefs.Problem``), and every function with a ``code`` parameter that hands it on to a sink (the dialect's
  ``error``, ``fail`` and ``_closed_at_end``, theory's and redirects' ``error``), found to a fixpoint;
- at each sink call the code argument (positional or ``code=``) is a literal, a module constant (imported ones
  too), a conditional of those, a local variable assigned from those, or the sink's own ``code`` parameter;
- any other code argument is a *dynamic* flow, and must be one of ``DYNAMIC`` below, each of which names the
  scan of the place its codes come from (linkcheck's verdicts, redirects' clashes, external link statuses).

A new way of passing a code that the scan cannot follow fails ``test_every_code_argument_is_followed``. The scan
also reads the level each code is emitted at (a ``level=`` of Diagnostic, or of a helper that hands it on), which
must be one the registry gives the code.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from perfdocs.codes import CODES, LEVELS, Code, render_table
from perfdocs.diagnostics import Diagnostic, Location
from perfdocs.external import STATUSES

from .conftest import ROOT
from .test_layers import imported, package_modules

PACKAGE = ROOT / "hooks" / "perfdocs"
README = ROOT / "README.md"


@dataclass(frozen=True)
class Sink:
    """A callable a code goes through: where its code argument is, and its level argument if it takes one."""

    code: int  # the index of the code among the positional arguments (``code=`` counts too)
    levelled: bool = False  # it takes a level (``level=``, or the positional argument at ``level``)
    level: int | None = None
    default: str = "error"  # the level of what it carries when the call gives none ("?": the scan cannot tell)


# Diagnostic, and the classes that carry a code to one (whatever they carry becomes an error: they take no level)
CARRIERS = {
    ("diagnostics", "Diagnostic"): Sink(2, levelled=True),  # level is keyword-only
    ("sanitize", "Finding"): Sink(2),
    ("sanitize", "_Removal"): Sink(2),
    ("apirefs", "Problem"): Sink(1),
}

# The objects the dialect's units report through, by the name they have where they are called: a unit's
# ``self.conv`` (``conv`` where it is passed on) and a component's ``engine`` (the converter, whose ``error`` is the
# Conversion's).
RECEIVERS = {"self.conv": "document", "conv": "document", "engine": "document"}

# Codes a carrier holds that never become a Diagnostic (so they are not registered, and must not be):
NOT_DIAGNOSTIC = {
    # sanitize.EMBED: an iframe from an allowed host, shown as a placeholder. The dialect skips such a finding
    # (``if finding.code == EMBED: continue``) and build.py's clean_page never makes one (authored=False).
    "embed",
    # apirefs.UNAVAILABLE: a library whose sources this build lacks; ApiIndex.add_entry turns that Problem into a
    # note-only Entry (``problem.code == UNAVAILABLE``) and never hands it to the dialect.
    "unavailable",
}
# ... and the source text that keeps each of them from a Diagnostic (gone: the exception no longer holds).
NOT_DIAGNOSTIC_GUARDS = {"rawhtml": "if finding.code == EMBED:", "apirefs": "problem.code == UNAVAILABLE"}

# Code arguments the scan cannot resolve where they stand: (module, expression) -> the scan of their source.
DYNAMIC = {
    ("build", "finding.code"): "carriers",  # locate_findings: sanitize.Finding codes
    ("rawhtml", "finding.code"): "carriers",  # RawHtml.check (EMBED skipped), set_attributes: sanitize.Finding codes
    ("markers", "problem.code"): "carriers",  # Markers.autodoc: apirefs.Problem codes
    ("sanitize", "removal.code"): "carriers",  # _findings: a Finding takes its _Removal's code
    ("linkcheck", "problem.status"): "verdicts",  # to_diagnostics: linkcheck.Problem.status, a _Checker verdict
    ("linkcheck", "f'external-{status}'"): "external",  # external_diagnostics: external.STATUSES
    ("linkcheck", "code"): "external",  # external_diagnostics: the f'external-{status}' kept in ``broken``
    ("redirects", "*clash"): "clashes",  # site_file_clashes: the (message, code) that _clash returns
}


@dataclass
class Module:
    name: str
    tree: ast.Module
    constants: dict[str, str] = field(default_factory=dict)  # module-level NAME = "text", imported ones too
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # local name -> (module, name)
    defined: set[str] = field(default_factory=set)  # functions and classes defined anywhere in the module


def read_package() -> dict[str, Module]:
    modules: dict[str, Module] = {}
    known = package_modules()
    for name, path in known.items():
        module = Module(name, ast.parse(path.read_text(encoding="utf-8")))
        for node in module.tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                pairs = _assigned(node.targets[0], node.value)
                module.constants.update({k: text for k, v in pairs if (text := _text(v)) is not None})
            elif isinstance(node, ast.ImportFrom):
                for alias, (source, imported_name) in zip(node.names, imported(name, path, node, known)):
                    module.imports[alias.asname or alias.name] = (source, imported_name)
        for node in ast.walk(module.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                module.defined.add(node.name)
        modules[module.name] = module
    for module in modules.values():
        for local, (source, name) in module.imports.items():
            if source in modules and name in modules[source].constants:
                module.constants[local] = modules[source].constants[name]
    return modules


def _assigned(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        return [pair for t, v in zip(target.elts, value.elts) for pair in _assigned(t, v)]
    return []


def _text(node: ast.expr | None) -> str | None:
    """The string a node is a literal of; None for anything else."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _params(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    params = [*function.args.posonlyargs, *function.args.args]
    return params[1:] if params and params[0].arg in ("self", "cls") else params


def _callee(module: Module, call: ast.Call) -> tuple[str, str] | None:
    """The (module, name) a call calls: a name defined in the module or imported into it, or a ``self.method``."""
    func = call.func
    if isinstance(func, ast.Name):
        if func.id in module.defined:
            return module.name, func.id
        return module.imports.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        return (module.name, func.attr) if func.attr in module.defined else None
    if isinstance(func, ast.Attribute) and ast.unparse(func.value) in RECEIVERS:
        return RECEIVERS[ast.unparse(func.value)], func.attr
    return None


def _argument(call: ast.Call, name: str, index: int | None) -> ast.expr | None:
    """A call's argument ``name``: by keyword, else the positional one at ``index`` (a ``*tuple`` at or before it
    stands for it)."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return arg
        if i == index:
            return arg
    return None


def _default(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    """The default value of ``function``'s parameter ``name``, if it has one."""
    params, defaults = _params(function), function.args.defaults
    pairs = [
        *zip(params[len(params) - len(defaults) :], defaults),
        *zip(function.args.kwonlyargs, function.args.kw_defaults),
    ]
    return next((default for param, default in pairs if param.arg == name), None)


def find_sinks(modules: dict[str, Module]) -> dict[tuple[str, str], Sink]:
    """The carriers, and every function that hands its ``code`` parameter on to a sink (to a fixpoint), with the
    level it gives: a level parameter it hands on too, or the one fixed level it passes."""
    sinks = dict(CARRIERS)
    grown = True
    while grown:
        grown = False
        for module in modules.values():
            for function in _functions(module.tree):
                names = [p.arg for p in _params(function)]
                every = [*names, *(p.arg for p in function.args.kwonlyargs)]
                if "code" not in names or (module.name, function.name) in sinks:
                    continue
                for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
                    callee = _callee(module, call)
                    if callee not in sinks:
                        continue
                    into = sinks[callee]
                    arg = _argument(call, "code", into.code)
                    if not (isinstance(arg, ast.Name) and arg.id == "code"):
                        continue
                    level = _argument(call, "level", into.level) if into.levelled else None
                    if level is None:
                        sink = Sink(names.index("code"), default=into.default)
                    elif isinstance(level, ast.Name) and level.id in every:
                        given = _text(_default(function, level.id)) or "?"
                        index = names.index(level.id) if level.id in names else None
                        sink = Sink(names.index("code"), levelled=True, level=index, default=given)
                    else:
                        sink = Sink(names.index("code"), default=_text(level) or "?")
                    sinks[(module.name, function.name)] = sink
                    grown = True
                    break
    return sinks


def _level(call: ast.Call, sink: Sink) -> str:
    """The level of what a call to ``sink`` emits: its level argument (a literal, else "?"), or the sink's default."""
    if not sink.levelled:
        return sink.default
    arg = _argument(call, "level", sink.level)
    return sink.default if arg is None else (_text(arg) or "?")


@dataclass
class Scan:
    codes: dict[str, list[str]] = field(default_factory=dict)  # code -> where it is written (module:line)
    dynamic: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (module, expression) -> where
    levels: dict[str, set[str]] = field(default_factory=dict)  # code -> the levels it is emitted at

    def add(self, code: str, where: str, level: str = "error") -> None:
        self.codes.setdefault(code, []).append(where)
        self.levels.setdefault(code, set()).add(level)


def _enclosing(tree: ast.Module) -> dict[ast.AST, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The innermost function around each node."""
    owner: dict[ast.AST, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for function in _functions(tree):  # ast.walk goes outside in: inner functions overwrite their outer one
        for node in ast.walk(function):
            owner[node] = function
    return owner


def _resolve(
    expr: ast.expr, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef | None, forwards: bool
) -> set[str] | None:
    """The codes ``expr`` can be; None when the scan cannot tell. ``forwards``: the enclosing function is a sink."""
    if _text(expr) is not None:
        return {_text(expr) or ""}
    if isinstance(expr, ast.IfExp):
        body, orelse = (
            _resolve(expr.body, module, function, forwards),
            _resolve(expr.orelse, module, function, forwards),
        )
        return None if body is None or orelse is None else body | orelse
    if not isinstance(expr, ast.Name):
        return None
    if function is not None:
        if expr.id == "code" and forwards and "code" in [p.arg for p in _params(function)]:
            return set()  # the sink's own parameter: its callers' arguments are scanned
        values = [
            value
            for node in ast.walk(function)
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            for name, value in _assigned(node.targets[0], node.value)
            if name == expr.id
        ]
        if values:
            found: set[str] = set()
            for value in values:
                codes = _resolve(value, module, None, False)
                if codes is None:
                    return None
                found |= codes
            return found
    return {module.constants[expr.id]} if expr.id in module.constants else None


def scan_package() -> Scan:
    modules = read_package()
    sinks = find_sinks(modules)
    scan = Scan()
    defaulted = set()  # the sinks whose code parameter has a default
    for module in modules.values():
        for function in _functions(module.tree):
            sink = sinks.get((module.name, function.name))
            default = _default(function, "code") if sink is not None else None
            if sink is not None and default is not None:
                defaulted.add((module.name, function.name))
                where = f"{module.name}:{default.lineno}"
                code = _text(default)
                if code is None:
                    scan.dynamic.setdefault((module.name, f"code={ast.unparse(default)}"), []).append(where)
                else:
                    scan.add(code, where, sink.default)
    for module in modules.values():
        owner = _enclosing(module.tree)
        for call in (n for n in ast.walk(module.tree) if isinstance(n, ast.Call)):
            callee = _callee(module, call)
            if callee not in sinks:
                continue
            arg = _argument(call, "code", sinks[callee].code)
            if arg is None:
                if callee not in defaulted:  # no code the scan can see (``**kwargs``)
                    scan.dynamic.setdefault((module.name, ast.unparse(call)), []).append(f"{module.name}:{call.lineno}")
                continue  # the default code: read above
            function = owner.get(call)
            forwards = function is not None and (module.name, function.name) in sinks
            codes = None if isinstance(arg, ast.Starred) else _resolve(arg, module, function, forwards)
            where = f"{module.name}:{call.lineno}"
            if codes is None:
                scan.dynamic.setdefault((module.name, ast.unparse(arg)), []).append(where)
            for code in sorted(codes or ()):  # a forwarded code (no codes): its level is read where it is passed
                scan.add(code, where, _level(call, sinks[callee]))
    for code, where in [*link_verdicts(modules), *redirect_clashes(modules), *external_codes(modules)]:
        scan.add(code, where)
    return scan


def link_verdicts(modules: dict[str, Module]) -> Iterator[tuple[str, str]]:
    """linkcheck's (status, message, hint) verdicts, written in _Checker: the status is the code."""
    checker = next(n for n in modules["linkcheck"].tree.body if isinstance(n, ast.ClassDef) and n.name == "_Checker")
    for node in ast.walk(checker):
        if isinstance(node, ast.Tuple) and len(node.elts) == 3 and (status := _text(node.elts[0])) is not None:
            yield status, f"linkcheck:{node.lineno}"


def redirect_clashes(modules: dict[str, Module]) -> Iterator[tuple[str, str]]:
    """The (message, code) pairs redirects._clash returns."""
    clash = next(f for f in _functions(modules["redirects"].tree) if f.name == "_clash")
    for node in ast.walk(clash):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            code = _text(node.value.elts[1])
            assert code is not None, ast.unparse(node)  # a code the scan cannot read: follow it here
            yield code, f"redirects:{node.lineno}"


def external_codes(modules: dict[str, Module]) -> Iterator[tuple[str, str]]:
    """``external-<status>`` for each status of external.STATUSES that external_diagnostics reports."""
    function = next(f for f in _functions(modules["linkcheck"].tree) if f.name == "external_diagnostics")
    skipped = [
        {e.value for e in node.comparators[0].elts if isinstance(e, ast.Constant)}
        for node in ast.walk(function)
        if isinstance(node, ast.Compare)
        and isinstance(node.ops[0], ast.In)
        and isinstance(node.comparators[0], ast.Tuple)
        and ast.unparse(node.left) == "status"
    ]
    assert skipped == [{"ok", "ignored"}], skipped  # the statuses that are no problem
    for status in STATUSES:
        if status not in skipped[0]:
            yield f"external-{status}", f"linkcheck:{function.lineno}"


@pytest.fixture(scope="module")
def scan() -> Scan:
    return scan_package()


def test_the_scan_reads_the_package(scan: Scan) -> None:
    sinks = find_sinks(read_package())
    for sink in [("document", "error"), ("dialect", "closed_at_end"), ("theory", "error")]:
        assert sink in sinks
    for sink in [("components.literalinclude", "fail"), ("dialect", "error")]:
        assert sink in sinks
    assert ("redirects", "error") in sinks
    assert ("gated", "note") not in sinks and ("theory", "expand") not in sinks  # a ``code`` that is source code
    assert len(scan.codes) > 40
    for code in ["missing-file", "bad-attribute", "bad-front-matter", "markup-in-metadata", "bad-literalinclude"]:
        assert code in scan.codes
    for code in ["missing-fragment", "outside-site", "duplicate-redirect", "external-broken", "unsafe-url"]:
        assert code in scan.codes


def test_every_code_argument_is_followed(scan: Scan) -> None:
    """A code the scan cannot resolve where it is passed is one of the named flows, and each flow is still there."""
    assert set(scan.dynamic) == set(DYNAMIC), {k: v for k, v in scan.dynamic.items() if k not in DYNAMIC}


def test_every_emitted_code_is_registered(scan: Scan) -> None:
    missing = {code: where for code, where in scan.codes.items() if code not in CODES and code not in NOT_DIAGNOSTIC}
    assert not missing, f"add these to hooks/perfdocs/codes.py: {missing}"


def test_every_registered_code_is_emitted(scan: Scan) -> None:
    dead = sorted(set(CODES) - set(scan.codes))
    assert not dead, f"no code path emits these: {dead}"


def test_each_code_is_emitted_at_its_registered_levels(scan: Scan) -> None:
    wrong = {
        code: sorted(levels)
        for code, levels in scan.levels.items()
        if code in CODES and (not levels <= set(CODES[code].levels) or CODES[code].level not in levels)
    }
    assert not wrong, f"emitted at other levels than hooks/perfdocs/codes.py says: {wrong}"


def test_codes_that_never_reach_a_diagnostic_stay_unregistered(scan: Scan) -> None:
    assert NOT_DIAGNOSTIC <= set(scan.codes)  # they are still there, so the exception is still needed
    assert not NOT_DIAGNOSTIC & set(CODES)
    for module, guard in NOT_DIAGNOSTIC_GUARDS.items():
        assert guard in (PACKAGE / f"{module}.py").read_text(encoding="utf-8")


def test_the_registry_is_well_formed() -> None:
    for name, code in CODES.items():
        assert isinstance(code, Code) and code.name == name
        assert name == name.lower() and " " not in name and not name.startswith("-") and not name.endswith("-")
        assert code.level in code.levels and set(code.levels) <= set(LEVELS), name
        for text in (code.meaning, code.fix):
            assert text.strip() == text and text and "|" not in text and "\n" not in text, name
            assert len(text) <= 120, (name, len(text))
    assert list(CODES) == sorted(CODES)


def readme_table() -> str:
    """The table of the README's "Diagnostic codes" section: its first run of lines that start with '|'."""
    lines = README.read_text(encoding="utf-8").split("\n")
    start = lines.index("## Diagnostic codes")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("## "))
    first = next(i for i in range(start, end) if lines[i].startswith("|"))
    last = next((i for i in range(first, end) if not lines[i].startswith("|")), end)
    assert not any(line.startswith("|") for line in lines[last:end]), "one table in the section"
    return "\n".join(lines[first:last]) + "\n"


def test_the_readme_lists_exactly_the_registry() -> None:
    assert readme_table() == render_table(), (
        "paste the table of python -c 'from perfdocs.codes import render_table; print(render_table())' into README.md"
    )


def test_the_rendered_table_has_a_row_per_code() -> None:
    rows = render_table().splitlines()
    assert rows[:2] == ["| code | level | meaning | fix |", "|---|---|---|---|"]
    assert [row.split(" | ")[0].removeprefix("| `").removesuffix("`") for row in rows[2:]] == list(CODES)


def test_an_unknown_code_is_refused() -> None:
    with pytest.raises(ValueError) as info:
        Diagnostic(Location("docs/x.md", 1), "message", "no-such-code")
    assert str(info.value) == "unknown diagnostic code 'no-such-code': add it to perfdocs/codes.py"
    with pytest.raises(ValueError):
        Diagnostic(Location("docs/x.md", 1), "message", code="Missing-File")


def test_a_known_code_is_accepted() -> None:
    diagnostic = Diagnostic(Location("docs/x.md", 3, 2), "no file x.md", "missing-file", hint="did you mean 'y.md'?")
    assert str(diagnostic) == "docs/x.md:3:2: error: no file x.md [missing-file] (did you mean 'y.md'?)"


def test_the_readme_table_is_where_the_error_format_is_described() -> None:
    text = README.read_text(encoding="utf-8")
    described = text.index("Errors read `path:line:col: error: message [code]`")
    section = text.index("\n## Diagnostic codes\n")
    assert described < section
    assert "\n## " not in text[described:section]  # the end of the section that describes the format
