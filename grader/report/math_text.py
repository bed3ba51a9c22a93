"""A statement's math for a terminal (``grader show``). The web pages draw each ``$...$``
with KaTeX; a terminal gets plain text: Greek letters and symbols as Unicode (``\\lambda \\ge 0``
reads "λ ≥ 0"), sub- and superscripts as Unicode where every character has one (``x_n^2``,
"xₙ²") and in brackets where not, ``\\frac{a}{b}`` as "a/b", thin spaces as spaces, and the
rows of ``aligned`` and ``cases`` on lines of their own. A command this does not know stays
as written. Without this, the Markdown renderer read TeX's escapes as its own: ``H(w)\\,v``
came out "H(w),v".

The math is found as the web's renderer finds it (``mdit_py_plugins.dollarmath``, with no
space just inside the dollars), outside code; its text is then escaped for Markdown, so
that ``*`` or ``_`` in a formula stays itself."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

GREEK = {name: chr(code) for name, code in (
    ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3B5), ("varepsilon", 0x3B5),
    ("zeta", 0x3B6), ("eta", 0x3B7), ("theta", 0x3B8), ("vartheta", 0x3D1), ("iota", 0x3B9), ("kappa", 0x3BA),
    ("lambda", 0x3BB), ("mu", 0x3BC), ("nu", 0x3BD), ("xi", 0x3BE), ("pi", 0x3C0), ("rho", 0x3C1),
    ("sigma", 0x3C3), ("tau", 0x3C4), ("upsilon", 0x3C5), ("phi", 0x3C6), ("varphi", 0x3C6), ("chi", 0x3C7),
    ("psi", 0x3C8), ("omega", 0x3C9), ("Gamma", 0x393), ("Delta", 0x394), ("Theta", 0x398), ("Lambda", 0x39B),
    ("Xi", 0x39E), ("Pi", 0x3A0), ("Sigma", 0x3A3), ("Phi", 0x3A6), ("Psi", 0x3A8), ("Omega", 0x3A9))}
SYMBOLS = {**GREEK, "nabla": "∇", "partial": "∂", "infty": "∞", "sum": "Σ", "prod": "∏", "int": "∫",
           "dots": "…", "ldots": "…", "cdots": "⋯", "forall": "∀", "exists": "∃", "ell": "ℓ",
           "lVert": "‖", "rVert": "‖", "Vert": "‖", "lvert": "|", "rvert": "|", "vert": "|", "|": "‖",
           "langle": "⟨", "rangle": "⟩", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉",
           "{": "{", "}": "}", "_": "_", "%": "%", "$": "$", "&": "&", "#": "#", "top": "ᵀ", "prime": "′"}
# Relations and operators: a space either side, as TeX sets them.
OPERATORS = {"le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "sim": "~",
             "equiv": "≡", "propto": "∝", "ll": "≪", "gg": "≫", "times": "×", "cdot": "·", "circ": "∘",
             "odot": "⊙", "otimes": "⊗", "oplus": "⊕", "pm": "±", "mp": "∓", "in": "∈", "notin": "∉",
             "subset": "⊂", "subseteq": "⊆", "cup": "∪", "cap": "∩", "to": "→", "rightarrow": "→",
             "leftarrow": "←", "mapsto": "↦", "Rightarrow": "⇒", "iff": "⇔", "implies": "⇒", "mid": "|",
             "setminus": "∖", "div": "÷", "coloneqq": "≔"}
NAMES = {"log", "ln", "exp", "sin", "cos", "tan", "tanh", "sinh", "cosh", "min", "max", "sup", "inf", "arg",
         "argmin", "argmax", "det", "dim", "lim", "sgn", "softmax"}
SPACES = {",": " ", ";": " ", ":": " ", ">": " ", " ": " ", "quad": "  ", "qquad": "    ", "!": ""}
SIZING = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr",
          "displaystyle", "textstyle", "limits", "nolimits"}
WORDS = {"text", "textrm", "textit", "textbf", "mathrm", "mathit", "mathbf", "mathsf", "mathtt", "operatorname",
         "boldsymbol", "bm", "mathcal", "mbox"}
ACCENTS = {"hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0305", "tilde": "\u0303",
           "widetilde": "\u0303", "dot": "\u0307", "ddot": "\u0308", "vec": "\u20d7"}
FRACTIONS = {"frac", "dfrac", "tfrac", "cfrac"}
DOUBLE_STRUCK = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼", "P": "ℙ"}
SUPER = dict(zip("0123456789+-=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWᵀ*′",
                 "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵀ*′"))
SUB = dict(zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))

_TOKEN = re.compile(r"\\([A-Za-z]+)|\\(.)|(\s+)|(.)", re.S)


@dataclass
class Box:
    """Text on one or more lines (the rows of ``aligned`` or ``cases``), set beside its
    neighbours with their first lines level."""

    lines: list[str]

    @property
    def width(self) -> int:
        return max((_width(line) for line in self.lines), default=0)

    def flat(self) -> str:
        return "; ".join(line.strip() for line in self.lines if line.strip())


def _width(text: str) -> int:
    """Columns on a terminal: a combining accent (the hat of μ̂) takes none."""
    return sum(not unicodedata.combining(ch) for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def _join(boxes: list[Box], collapse: bool = True) -> Box:
    merged: list[Box] = []
    for b in boxes:  # runs of one-line boxes first become one line, its spaces collapsed
        if len(b.lines) == 1 and merged and len(merged[-1].lines) == 1:
            merged[-1] = Box([merged[-1].lines[0] + b.lines[0]])
        else:
            merged.append(Box(list(b.lines)))
    if collapse:
        merged = [Box([re.sub(" {2,}", " ", b.lines[0])]) if len(b.lines) == 1 else b for b in merged]
    if len(merged) <= 1:
        return merged[0] if merged else Box([""])
    height = max(len(b.lines) for b in merged)
    return Box(["".join(_pad(b.lines[i] if i < len(b.lines) else "", b.width) for b in merged).rstrip()
                for i in range(height)])


def _script(text: str, table: dict[str, str], mark: str) -> str:
    text = text.strip()
    if text and all(ch in table for ch in text):
        return "".join(table[ch] for ch in text)
    return f"{mark}{text}" if len(text) == 1 else f"{mark}({text})"


def _grouped(text: str) -> str:
    """``text`` alone if it is one name, number or symbol, else in brackets: 1/(2N), √(a + b)."""
    text = text.strip()
    if re.fullmatch(r"√?(?:[^\W\d]\w*|\d+(?:\.\d+)?|\S[\u0300-\u036f\u20d7]?)", text):
        return text
    call = re.fullmatch(r"(?:√|[^\W\d]\w*)?\((.*)\)", text)  # a call, or brackets already: f(x), (a + b)
    if call and _balanced(call.group(1)):
        return text
    return f"({text})"


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


# (control word, control symbol, space, character): one of the four is set.
_Token = tuple[str | None, str | None, str | None, str | None]
CLOSERS = {"rVert", "rvert", "rangle", "rfloor", "rceil"}
OPENERS = {"lVert", "lvert", "langle", "lfloor", "lceil"}


class _Parser:
    def __init__(self, tex: str) -> None:
        self.tokens: list[_Token] = [(m.group(1), m.group(2), m.group(3), m.group(4)) for m in _TOKEN.finditer(tex)]
        self.at = 0

    def _peek(self, skip_spaces: bool = False) -> _Token | None:
        at = self.at
        while skip_spaces and at < len(self.tokens) and self.tokens[at][2] is not None:
            at += 1
        return self.tokens[at] if at < len(self.tokens) else None

    def _skip_spaces(self) -> None:
        while (t := self._peek()) is not None and t[2] is not None:
            self.at += 1

    def argument(self) -> Box:
        """The next group ``{...}`` or single token, as ``^``, ``\\frac`` and the rest take it."""
        self._skip_spaces()
        t = self._peek()
        if t is None:
            return Box([""])
        self.at += 1
        return self.sequence(until="}") if t[3] == "{" else self.atom(t)

    def sequence(self, until: str | None = None) -> Box:
        """Atoms up to the character ``until`` (or the end)."""
        out: list[Box] = []
        while self.at < len(self.tokens):
            t = self.tokens[self.at]
            self.at += 1
            if t[3] is not None and t[3] == until:
                break
            self._glue(out, t)
            out.append(self.atom(t))
        return _join(out)

    def _glue(self, out: list[Box], t: _Token) -> None:
        """No space just inside a pair of delimiters: "‖u‖", not "‖u ‖"."""
        word, after = t[0], self._peek(True)
        if word in CLOSERS or (word in SIZING and after is not None and _delimiter(after) in (")", "]", "}")):
            while out and out[-1].lines == [" "]:
                out.pop()

    def environment(self, name: str) -> Box:
        """``aligned`` and its kin: each row on a line, the cells of each column padded to one
        width; ``cases`` the same behind a brace, a matrix in brackets."""
        rows: list[list[Box]] = [[]]
        out: list[Box] = []
        while self.at < len(self.tokens):
            t = self.tokens[self.at]
            self.at += 1
            if t[0] == "end":
                self.argument()
                break
            if t[1] == "\\" or t[3] == "&":
                rows[-1].append(_join(out))
                out = []
                if t[1] == "\\":
                    rows.append([])
                continue
            self._glue(out, t)
            out.append(self.atom(t))
        rows[-1].append(_join(out))
        rows = [r for r in rows if any(c.flat() for c in r)]
        widths: dict[int, int] = {}
        for row in rows:
            for i, cell in enumerate(row):
                widths[i] = max(widths.get(i, 0), _trim(cell).width)
        gap = " " if name.startswith("align") or name in ("split", "gathered") else "  "
        lines: list[str] = []
        for row in rows:
            cells = [_trim(c) for c in row]
            padded = [Box([_pad(line, widths[i]) for line in c.lines]) if i + 1 < len(cells) else c
                      for i, c in enumerate(cells)]
            parts: list[Box] = []
            for i, c in enumerate(padded):
                parts += ([Box([gap])] if i else []) + [c]
            lines += _stack(parts)
        if name in ("cases", "dcases"):
            return Box(["{ " + line for line in lines])
        if name.endswith("matrix"):
            return Box(["[ " + line + " ]" for line in lines])
        return Box(lines or [""])

    def atom(self, t: _Token) -> Box:
        word, symbol, space, char = t
        if space is not None:
            return Box([" "])
        if char is not None:
            if char == "{":
                return self.sequence(until="}")
            if char in "^_":
                return Box([_script(self.argument().flat(), SUPER if char == "^" else SUB, char)])
            return Box([" " if char == "~" else char])
        if symbol is not None:
            return Box([" " if symbol == "\\" else SPACES.get(symbol, SYMBOLS.get(symbol, "\\" + symbol))])
        return self.command(word or "")

    def command(self, word: str) -> Box:
        if word in SYMBOLS:
            if word in OPENERS:  # no space just inside a pair of delimiters
                self._skip_spaces()
            return Box([SYMBOLS[word]])
        if word in OPERATORS:
            return Box([f" {OPERATORS[word]} "])
        if word in NAMES:
            return Box([word])
        if word in SPACES:
            return Box([SPACES[word]])
        if word in SIZING:  # the delimiter that follows, if any, with no space inside it
            n = self._peek(True)
            shown = _delimiter(n) if n is not None else None
            if shown is None:
                return Box([""])
            self._skip_spaces()
            self.at += 1
            if shown in ("(", "[", "{"):
                self._skip_spaces()
            return Box([shown])
        if word in WORDS:
            return Box([self.argument().flat()])
        if word == "mathbb":
            return Box(["".join(DOUBLE_STRUCK.get(ch, ch) for ch in self.argument().flat())])
        if word in ACCENTS:
            text = self.argument().flat()
            return Box([text + ACCENTS[word] if len(text) == 1 else f"{word}({text})"])
        if word in FRACTIONS:
            top, bottom = self.argument().flat(), self.argument().flat()
            return Box([f"{_grouped(top)}/{_grouped(bottom)}"])
        if word == "sqrt":
            return Box([f"√{_grouped(self.argument().flat())}"])
        if word == "begin":
            return self.environment(self.argument().flat())
        shown = "\\" + word  # a command this does not know: as written, its arguments too
        while (t := self._peek()) is not None and t[3] == "{":
            shown += "{" + self.argument().flat() + "}"
        return Box([shown])


def _delimiter(t: _Token) -> str | None:
    """What ``\\left``, ``\\big`` and their kin size, if ``t`` is one ("." is none at all)."""
    if t[3] is not None and t[3] in "()[]|.":
        return "" if t[3] == "." else t[3]
    if t[1] is not None and t[1] in "{}|":
        return SYMBOLS[t[1]]
    if t[0] is not None and t[0] in SYMBOLS and t[0] not in GREEK:
        return SYMBOLS[t[0]]
    return None


def _trim(box: Box) -> Box:
    """Without the spaces every line of ``box`` starts with, nor any it ends with."""
    margin = min((len(line) - len(line.lstrip(" ")) for line in box.lines if line.strip()), default=0)
    return Box([line[margin:].rstrip() for line in box.lines])


def _stack(parts: list[Box]) -> list[str]:
    return _join(parts, collapse=False).lines if len(parts) > 1 else parts[0].lines if parts else [""]


def tex_lines(tex: str) -> list[str]:
    """``tex`` (a formula, without its dollars) as plain text, on one line or several."""
    box = _trim(_Parser(tex).sequence())
    return [line for line in box.lines if line.strip()] or [""]


# --------------------------------------------------------------------------- in Markdown

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})[^\n]*\n.*?(?:^\1?\2[`~]*[ \t]*$|\Z)", re.S | re.M)
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$(?![\s$])((?:\\.|[^$\\])+?)(?<!\s)\$(?!\$)")
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
NBSP = "\u00a0"


def _md(text: str) -> str:
    """Literal text in Markdown: every ASCII punctuation character backslash-escaped."""
    return _PUNCTUATION.sub(r"\\\1", text)


def _display(m: re.Match) -> str:
    # Each line of the formula on a line of its own (a hard break), its spaces no-break ones,
    # which Markdown keeps at the start of a line: the rows of a ``cases`` stay aligned.
    return "\\\n".join(_md(line).replace(" ", NBSP) for line in tex_lines(m.group(1)))


def _inline(m: re.Match) -> str:
    lines = tex_lines(m.group(1))
    return _md("; ".join(lines) if len(lines) > 1 else lines[0])


def _math_in_prose(text: str) -> str:
    out, at = [], 0
    for code in _CODE_SPAN.finditer(text):
        out.append(_INLINE.sub(_inline, _DISPLAY.sub(_display, text[at:code.start()])))
        out.append(code.group())
        at = code.end()
    out.append(_INLINE.sub(_inline, _DISPLAY.sub(_display, text[at:])))
    return "".join(out)


def statement_for_terminal(markdown: str) -> str:
    """``markdown`` with every formula outside code written as plain text (``tex_lines``)."""
    out, at = [], 0
    for fence in _FENCE.finditer(markdown):
        out.append(_math_in_prose(markdown[at:fence.start()]))
        out.append(fence.group())
        at = fence.end()
    out.append(_math_in_prose(markdown[at:]))
    return "".join(out)
