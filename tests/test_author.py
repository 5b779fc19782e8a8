"""Where the build puts the "Build error" box for problems found in the written pages."""

from __future__ import annotations

import pytest
from perfdocs.errorboxes import with_error_box

BOX = '<div class="admonition failure">x</div>\n'


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        (
            '<html><body><main><article class="md-content__inner md-typeset"><h1>T</h1></article></main></body>',
            '<html><body><main><article class="md-content__inner md-typeset">'
            '<div class="admonition failure">x</div><h1>T</h1></article></main></body>',
        ),
        (
            '<body>\n<p>before</p>\n<article\n  class="a">\n<h1>T</h1>',
            '<body>\n<p>before</p>\n<article\n  class="a"><div class="admonition failure">x</div>\n<h1>T</h1>',
        ),
        (
            "<body class='b'><p>no article</p></body>",
            "<body class='b'><div class=\"admonition failure\">x</div><p>no article</p></body>",
        ),
        ("<p>&lt;article&gt; is text here</p><!-- <article> -->", None),
    ],
    ids=["Material article", "article over two lines", "no article: after body", "neither"],
)
def test_the_box_goes_at_the_start_of_the_content(html: str, expected: str | None) -> None:
    result, inserted = with_error_box(html, BOX)
    assert inserted == (expected is not None)
    assert result == (expected if expected is not None else html)
