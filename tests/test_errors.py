"""Every error a user can make in the rules, one small case each (starlark-go style).

A case file in tests/check_cases/ holds rules texts separated by lines `---`. A trailing
`### "regex"` marks an error the case must report on that line: re.search on the message, or on
"message -- hint: hint" when the error has a hint, so a mark can ask for a did-you-mean (and
"... -- note: note" when it has a note). `###@9 "regex"` also asks for column 9. The reported
errors must match the marks exactly. In variants.pw each case is a base text and a variant text
separated by a line `+++`, linked as base rules plus one variant. A case that checks cleanly is
also loaded (its constants, decks and requirements worked out), as `pitwall check` does: load.pw
holds the errors found then.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pitwall.interpreter.check import check
from pitwall.interpreter.compile_cache import compile_program
from pitwall.interpreter.errors import CheckErrors, PitwallError, RulesSyntaxError, render
from pitwall.interpreter.link import link
from pitwall.interpreter.load import module_namespace, run_module
from pitwall.interpreter.parse import SYNTAX_EXAMPLES, parse, parser

CASES = Path(__file__).parent / "check_cases"
MARK = re.compile(r'###(?:@(\d+))?\s*"((?:[^"\\]|\\.)*)"')
MINIMUM = {"syntax.pw": 9, "link.pw": 3, "variants.pw": 3, "check.pw": 20, "load.pw": 6}


def split(lines, sep):
    """Yield (first line number, lines) of each chunk between separator lines."""
    chunk, first = [], 1
    for n, line in enumerate(lines, 1):
        if line.strip() == sep:
            yield first, chunk
            chunk, first = [], n + 1
        else:
            chunk.append(line)
    yield first, chunk


def load_cases():
    for path in sorted(CASES.glob("*.pw")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, (first, chunk) in enumerate(split(lines, "---"), 1):
            if path.name == "variants.pw":
                names, parts = ("base.pw", "variant.pw"), [part for _, part in split(chunk, "+++")]
                assert len(parts) == 2, f"{path.name}:{first}: a variant case needs one '+++' line"
            else:
                names, parts = ("case.pw",), [chunk]
            texts = {name: "\n".join(part) + "\n" for name, part in zip(names, parts)}
            yield pytest.param(texts, first, id=f"{path.name}:{number}")


ALL = list(load_cases())


def run(texts: dict[str, str]) -> tuple[PitwallError | None, list[PitwallError]]:
    """Parse, link, check and load; the first pass that fails reports its errors."""
    try:
        files = [parse(text, name) for name, text in texts.items()]
        prog = link(files[:1], files[1:], texts)
        compiled = compile_program(prog, check)
        run_module(prog, compiled, module_namespace(prog, compiled))
    except CheckErrors as e:
        return e, e.errors
    except PitwallError as e:
        return e, [e]
    return None, []


@pytest.mark.parametrize("texts, first", ALL)
def test_case(texts, first):
    expected = [(name, n, int(col) if col else None, rx) for name, text in texts.items()
                for n, line in enumerate(text.splitlines(), 1) for col, rx in MARK.findall(line)]
    top, errors = run(texts)
    unexpected = []
    for e in errors:
        assert e.span is not None, f"error without a place: {e.message}"
        said = e.message + (f" -- hint: {e.hint}" if e.hint else "") + (f" -- note: {e.note}" if e.note else "")
        key = next((x for x in expected if x[:2] == (e.span.file, e.span.line) and x[2] in (None, e.span.col)
                    and re.search(x[3], said)), None)
        if key is None:
            unexpected.append(str(e))
        else:
            expected.remove(key)
    where = f"case starting at line {first}"
    assert not unexpected and not expected, f"{where}\nunexpected: {unexpected}\nmissing: {expected}"
    for e in errors:
        line = texts[e.span.file].splitlines()[e.span.line - 1]
        assert 1 <= e.span.col <= len(line) + 1, f"{where}: column {e.span.col} is outside {line!r}"
    if top is not None:
        out = render(top, texts)
        for e in errors:
            assert f"{e.span.file}:{e.span.line}:{e.span.col}: error: {e.message}" in out
        assert len(re.findall(r"^ +\^+$", out, re.M)) == len(errors), out
        if isinstance(top, RulesSyntaxError):
            assert top.hint and f"hint: {top.hint}" in out


def test_enough_cases():
    counts: dict[str, int] = {}
    for p in ALL:
        name = p.id.split(":")[0]
        counts[name] = counts.get(name, 0) + 1
    assert len(ALL) >= 40
    for name, least in MINIMUM.items():
        assert counts.get(name, 0) >= least, f"{name} has {counts.get(name, 0)} cases, expected {least}+"


def test_syntax_cases_cover_every_example():
    marks = [rx for _, rx in MARK.findall((CASES / "syntax.pw").read_text(encoding="utf-8"))]
    for message, _ in SYNTAX_EXAMPLES.values():
        assert any(re.search(rx, message) for rx in marks), f"no case in syntax.pw for {message!r}"


def test_grammar_builds_strict():
    assert parser(strict=True) is not None


@pytest.mark.parametrize("label", sorted(SYNTAX_EXAMPLES))
def test_syntax_examples(label):
    message, snippets = SYNTAX_EXAMPLES[label]
    for snippet in snippets:
        with pytest.raises(RulesSyntaxError) as e:
            parse(snippet, "example.pw")
        assert e.value.message == message, f"{snippet!r} -> {e.value.message!r}"


def test_template_errors_underline_the_hole_and_suggest_a_name():
    event = 'event e(figure: P) "{figure} has {figure.pointz}, {figur}, {figure.points:q}"'
    text = f'game g "G" {{ players P 1 to 2  play main }}\nparticipant P {{ points: int = 0 }}\n{event}\n' \
           "rule main() { finish players }\n"
    _, errors = run({"case.pw": text})
    holes = {"'pointz'": "{figure.pointz}", "'figur'": "{figur}", "'q'": "{figure.points:q}"}
    assert len(errors) == len(holes)
    for key, hole in holes.items():
        e = next(e for e in errors if key in e.message)
        col = event.index(hole) + 1
        assert (e.span.line, e.span.col, e.span.end_col) == (3, col, col + len(hole)), (key, e)
    hints = " ".join(e.hint or "" for e in errors)
    assert "did you mean 'points'?" in hints and "did you mean 'figure'?" in hints
