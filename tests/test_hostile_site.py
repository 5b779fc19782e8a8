"""What the browser gets is what was checked: the attacker's site (tests/hostile.py) fails --strict at the
line of every vector, and built as previews are built, nothing anywhere in its output can run."""

from __future__ import annotations

from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from .hostile import executable_anywhere, expected

ERRORS = ("ERROR   -  ", "WARNING -  ")


def test_every_vector_is_a_located_error(hostile: tuple[Path, str, Path]) -> None:
    project, output, _ = hostile
    assert "Traceback" not in output
    reported = [line.removeprefix(ERRORS[0]).removeprefix(ERRORS[1]) for line in output.split("\n")]
    missing = [line for line in expected(project.parent) if line not in reported]
    assert missing == [], "\n".join(reported)


def test_nothing_in_the_output_can_run(hostile: tuple[Path, str, Path]) -> None:
    _, _, site = hostile
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("index.html"))
    assert len(pages) >= 8, pages  # every page was built, the hostile ones too
    assert executable_anywhere(site) == []


def test_the_scan_finds_what_the_old_build_let_through(tmp_path: Path) -> None:
    # the four routes to script the strict build passed, as they were written to the site before
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / "fanout").mkdir()
    (site / "fanout/index.html").write_text("<html><head><script>var x=1</script></head><body></body></html>")
    (site / "a/index.html").write_text(
        "<html><head><title></title><script>alert('t')</script> - x</title>"
        '<meta name="description" content=""><meta http-equiv="refresh" content="0;url=https://evil.example/">'
        '</head><body><span title="x" onfocus="alert(1)" autofocus>t</span>'
        '<script id="__config" type="application/json">{"search": "assets/search.js"}</script>'
        '<div id="__config" hidden>{"search": "data:text/javascript,alert(2)"}</div></body></html>'
    )
    (site / "_redirects").write_text("/x /y/ 301\n/* https://evil.example/ 301!\n")
    assert executable_anywhere(site) == [
        "_redirects:2: not a 'from to 301' rule: '/* https://evil.example/ 301!'",
        "a/index.html: refresh to https://evil.example/",
        "a/index.html: span onfocus=alert(1)",
        "a/index.html: 2 elements with id __config",
        "a/index.html: inline script \"alert('t')\"",
    ]


def test_the_page_content_lost_only_what_was_refused(hostile: tuple[Path, str, Path]) -> None:
    _, _, site = hostile

    def article(page: str) -> str:
        node = LexborHTMLParser((site / page).read_text(encoding="utf-8")).css_first("article")
        assert node is not None
        return node.text(separator=" ")

    assert "Welcome." in article("index.html")
    title = LexborHTMLParser((site / "meta/index.html").read_text(encoding="utf-8")).css_first("title")
    assert title is not None and title.text() == "Listed title - hostile"  # the H1's, the list dropped
    assert "Still here." in article("bounds/index.html")
    assert "deep" in article("bounds/index.html")  # the tags past the limit are left out, their text is kept
    assert "never closed" in article("fence/index.html")  # the fence is closed where CommonMark closes it
    assert "private notes" not in "".join(p.read_text(errors="replace") for p in site.rglob("*") if p.is_file())
    # the theme's settings are its own: one __config per page, and the search worker is the site's
    tree = LexborHTMLParser((site / "theme/index.html").read_text(encoding="utf-8"))
    assert [node.tag for node in tree.css("#__config")] == ["script"]
    assert tree.css("article .md-dialog") == []
