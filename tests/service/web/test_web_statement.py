"""The problem statement as the page shows it, without a server: math left as escaped
TeX for KaTeX to draw, the hints one details each, the requirements in one section,
the story before the signature, the vendored KaTeX files and the dark colours."""
from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from support import P1, PROBLEMS, ROOT

pytest.importorskip("jinja2", reason="the pages need the serve extra: pip install -e '.[test,serve]'")

from jinja2 import ChainableUndefined  # noqa: E402

from grader.service.web.pages import ENV  # noqa: E402
from grader.service.web.problem_view import problem_view, statement_html, statement_parts  # noqa: E402

WEB = ROOT / "grader" / "service" / "web"
VENDOR = WEB / "static" / "vendor"
VIEWER = SimpleNamespace(who=SimpleNamespace(email="ann@example.org"), csrf="token", instructor=False)


def page(pid: str = P1) -> str:
    # Lenient about values other parts of the page take (related problems, the editorial
    # link): these tests look at the statement only.
    env = ENV.overlay(undefined=ChainableUndefined)
    return env.get_template("problem.html").render(p=problem_view(pid), status="new", viewer=VIEWER,
                                                   api="/api/v1", path=f"/problems/{pid}")


def test_inline_and_display_math_become_math_elements_holding_the_escaped_tex():
    html = statement_html("# T\n\nThe norm $\\lVert g_n \\rVert < C$ of *g*.\n\n$$\n\\frac{a}{b} > 0\n$$\n\n"
                          "Inside a line: $$x^2$$ too.\n")
    assert '<span class="math inline">\\lVert g_n \\rVert &lt; C</span>' in html and "<em>g</em>" in html
    assert '<div class="math display">\\frac{a}{b} &gt; 0</div>' in html
    assert '<span class="math display">x^2</span>' in html  # a div cannot go inside a paragraph


def test_markup_inside_dollars_stays_escaped():
    html = statement_html("$<script>alert(1)</script>$ and\n\n$$\n<img src=x onerror=alert(1)>\n$$\n")
    assert "<script>" not in html and "<img" not in html
    assert '<span class="math inline">&lt;script&gt;alert(1)&lt;/script&gt;</span>' in html
    assert '<div class="math display">&lt;img src=x onerror=alert(1)&gt;</div>' in html


def test_a_statement_without_dollars_renders_as_plain_commonmark():
    from markdown_it import MarkdownIt

    plain = MarkdownIt("commonmark", {"html": False}).enable("table")
    text = (PROBLEMS / "mixed_precision_loss_scaling" / "statement.md").read_text(encoding="utf-8")
    assert "$" not in text
    assert statement_html(text) == plain.render(text.split("\n", 1)[1])
    assert "<p>costs $5 and $6</p>" in statement_html("costs $5 and $6")  # prices are not math
    assert "<p>$x$ is escaped: $y$</p>" in statement_html("\\$x\\$ is escaped: \\$y\\$")


def test_hints_become_one_closed_details_each_in_order():
    parts = statement_parts("# T\n\nStory.\n\n## Hints\n\n- First `a`.\n- Second, over\n  two lines.\n"
                            "- Third $x$.\n")
    assert parts.hints == ("First <code>a</code>.", "Second, over\ntwo lines.",
                           'Third <span class="math inline">x</span>.')
    assert "Hints" not in parts.story and "First" not in parts.story + parts.details
    html = page()
    details = re.findall(r'<details class="hint-step">(.*?)</details>', html, re.S)
    assert [re.search(r"<summary>(.*?)</summary>", d).group(1) for d in details] == ["Hint 1", "Hint 2", "Hint 3"]
    assert "jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))" in details[0] and "factor[:, None]" in details[2]
    assert "<details open" not in html and "<h2>Hints</h2>" not in html


def test_every_catalogue_statement_gives_one_hint_per_item_of_its_hints_list():
    for folder in sorted(p for p in PROBLEMS.iterdir() if (p / "statement.md").is_file()):
        text = (folder / "statement.md").read_text(encoding="utf-8")
        hints = text.split("\n## Hints\n", 1)[1] if "\n## Hints\n" in text else ""
        items = [line for line in hints.splitlines() if line.startswith("- ")]
        parts = statement_parts(text)
        assert len(parts.hints) == len(items), folder.name
        assert "<h2>Hints</h2>" not in parts.story + parts.details, folder.name


def test_requirements_appear_once_under_one_heading():
    html = page()
    assert len(re.findall(r"<h2[^>]*>Requirements</h2>", html)) == 1 and "Requirements</h2>" in html
    section = re.search(r'<section class="rules" aria-labelledby="req">(.*?)</section>', html, re.S).group(1)
    for text in ("Do not modify <code>params</code>.",  # the statement's own list
                 "jax.vmap must be applied to a function that calls jax.grad.",  # what the judge checks
                 "The judge calls your function under <code>jax.jit</code>",  # what the judge runs
                 "Your code may use jax (transforms)"):
        assert text in section and html.count(text) == 1, text
    assert 'class="requirements-list"' in section
    assert "What the judge runs</h2>" not in html and "Requirements the judge checks" not in html


def test_the_story_comes_before_the_signature_and_the_hints_after_the_examples():
    html = page()
    order = ['id="title"', "<h2>The model</h2>", "<h2>What to compute</h2>", 'id="sig"', 'class="accepts"',
             'id="req"', "<h2>Constraints</h2>", "<strong>Example 1</strong>", 'class="hints"', 'id="lim"',
             'id="solution"']
    at = [html.index(s) for s in order]
    assert at == sorted(at), order
    for selector in ('id="source"', 'id="run"', 'id="submit"', 'id="reset"', 'id="result"', 'id="history"',
                     'class="accepts-kind"'):
        assert selector in html, selector


def test_a_statement_without_requirements_keeps_its_story_before_the_constraints():
    parts = statement_parts("# T\n\nIntro.\n\n```\n## Hints\n```\n\n## Constraints\n\n- small\n\n## Hints\n\n- h\n")
    assert "Intro." in parts.story and "<code>## Hints\n</code>" in parts.story  # a heading in code is code
    assert parts.requirements == "" and "<h2>Constraints</h2>" in parts.details and parts.hints == ("h",)


def test_the_katex_files_the_problem_page_loads_are_vendored_with_licence_and_version():
    template = (WEB / "templates" / "problem.html").read_text()
    refs = re.findall(r'(?:src|href)="/static/(vendor/katex/[^"?]+)\?v=([^"]+)"', template)
    assert {r for r, _ in refs} == {"vendor/katex/katex.min.js", "vendor/katex/katex.min.css"}
    version = {v for _, v in refs}.pop()
    for rel, _ in refs:
        assert (WEB / "static" / rel).stat().st_size > 10_000, rel
    css = (VENDOR / "katex" / "katex.min.css").read_text()
    fonts = set(re.findall(r"url\((fonts/[^)]+)\)", css))
    assert fonts and all((VENDOR / "katex" / f).is_file() for f in fonts)
    assert (VENDOR / "katex" / "LICENSE").is_file()
    readme = (VENDOR / "README.md").read_text()
    assert f"| `katex/` | `katex` | {version} |" in readme
    assert re.search(rf"katex-{version}\.tgz +sha256 [0-9a-f]{{64}}", readme)
    assert '<script src="/static/math.js?v=' in template and (WEB / "static" / "math.js").is_file()


def test_the_app_serves_katex_its_fonts_and_math_js():
    import asyncio

    import httpx
    from fastapi import FastAPI

    from grader.service.web import mount

    app = FastAPI()
    mount(app, api_prefix="/api/v1", session_cookie="s", csrf_cookie="c")
    paths = ("/static/vendor/katex/katex.min.js", "/static/vendor/katex/katex.min.css",
             "/static/vendor/katex/fonts/KaTeX_Main-Regular.woff2", "/static/math.js")

    async def fetch():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://judge") as client:
            return [await client.get(path) for path in paths]

    for path, r in zip(paths, asyncio.run(fetch())):
        assert r.status_code == 200 and r.content, path
    assert "katex.render" in r.text


def _luminance(colour: str) -> float:
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_dark_mode_sets_every_colour_variable_with_readable_text():
    css = (WEB / "static" / "app.css").read_text()
    light = dict(re.findall(r"--([\w-]+): (#[0-9a-f]{6})", re.search(r":root \{(.*?)\}", css, re.S).group(1)))
    dark_block = css.split("@media (prefers-color-scheme: dark)", 1)[1]
    dark = dict(re.findall(r"--([\w-]+): (#[0-9a-f]{6})", re.search(r":root \{(.*?)\}", dark_block, re.S).group(1)))
    assert dark.keys() == light.keys()
    for text in ("fg", "muted", "link"):
        assert _contrast(dark[text], dark["bg"]) >= 4.5 and _contrast(dark[text], dark["panel"]) >= 4.5, text
    for verdict in ("ac", "wa", "rj", "ce", "re", "lim", "ie"):
        # Bright in the dark: readable as text on the page and behind the badge's dark text.
        assert _contrast(dark[verdict], dark["bg"]) >= 4.5, verdict
    assert re.search(r"\.verdict, button\.danger \{ color: var\(--bg\); \}", dark_block)
    for rule in (".note", ".hint", ".tag", ".v-none", ".CodeMirror.cm-s-default"):
        assert rule + " {" in dark_block, rule
