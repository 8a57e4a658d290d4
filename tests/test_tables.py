"""`record` and `table`: a card type and a deck by other names, for a game's data tables, whose
rows `require` checks when the rules load, pointing at the row that breaks a requirement.
(tests/check_cases/load.pw and variants.pw hold the errors case by case.)"""

from __future__ import annotations

import re
import shutil
import time

import pytest
from clihelp import invoke
from pitwall.interpreter import ast
from pitwall.interpreter.errors import PitwallError, RuleRuntimeError, render
from pitwall.interpreter.limits import LOAD_BUDGET
from pitwall.interpreter.load import build, find_game
from pitwall.interpreter.parse import parse

RULES = """game g "G" { players P 1 to 2  play main }
participant P { n: int = 0 }
enum SectionKind { STRAIGHT, BRAKING, CORNER }
record Section "{name}" {
    name: text
    kind: SectionKind
    target: int = 0
}
require all(s.target >= 1 and s.target <= 99 for s in sections if s.kind == SectionKind.BRAKING)
    "every braking section has a late-braking target in 1-99"
rule main() {
    finish players
}
"""

SECTIONS = """table sections of Section {
    ("start", SectionKind.STRAIGHT)
    ("prima variante", SectionKind.BRAKING, 40)
    2 * ("curva grande", SectionKind.CORNER)
    for t in [30, 0] {
        ("lesmo", SectionKind.BRAKING, t)
    }
}
"""


def game(tmp_path, sections: str = SECTIONS, rules: str = RULES):
    folder = tmp_path / "g"
    folder.mkdir(exist_ok=True)
    (folder / "rules.pw").write_text(rules, encoding="utf-8")
    (folder / "sections.pw").write_text(sections, encoding="utf-8")
    return folder


def test_record_and_table_parse_as_card_and_deck_and_keep_their_word():
    cards = parse('card C "{v}" { v: int }\ndeck d of C { (1) 2 * (2) for x in [3] { (x) } }\n')
    records = parse('record C "{v}" { v: int }\ntable d of C { (1) 2 * (2) for x in [3] { (x) } }\n')
    assert [type(i) for i in cards.items] == [type(i) for i in records.items] == [ast.RecordDecl, ast.DeckDecl]
    (card, deck), (record, table) = cards.items, records.items
    assert (card.what, card.word, deck.word) == ("card", "card", "deck")
    assert (record.what, record.word, table.word) == ("card", "record", "table")
    assert (record.name, record.show, record.fields) == (card.name, card.show, card.fields)
    assert (table.name, table.card, table.entries) == (deck.name, deck.card, deck.entries)


def test_record_and_table_stay_good_names_where_no_declaration_can_stand():
    text = """record record { table: int  record: int = 0 }
table table of record { for record in [1, 2] { (record) } }
enum Kind { record, table }
participant P { table: list of record  record: int = 0 }
global records: list of record = table
function f(record: record) -> int = record.table + record.record
rule table2() {
    let record = first(table)
    let table = [r for r in records if r.table > 0]
    records = table
}
"""
    items = parse(text).items
    assert [getattr(i, "name", None) for i in items] == ["record", "table", "Kind", "P", "records", "f", "table2"]
    assert items[1].entries[0].var == "record" and items[2].members == ("record", "table")


def test_a_game_written_with_records_and_tables_plays_as_with_cards_and_decks(tmp_path):
    """Street Illegal with its cards declared as records and its decks as tables: the same games."""
    mine = tmp_path / "street_illegal"
    shutil.copytree(find_game("street-illegal").path, mine)
    cards = mine / "cards.pw"
    text = cards.read_text(encoding="utf-8")
    renamed = re.sub(r"^card ", "record ", re.sub(r"^deck ", "table ", text, flags=re.M), flags=re.M)
    assert renamed.count("\nrecord ") == 2 and renamed.count("\ntable ") == 2
    cards.write_text(renamed, encoding="utf-8")
    assert invoke("check", cards).exit_code == 0
    for args in (["play", "-p", "4", "-s", "11"], ["play", "-p", "3", "-s", "5", "-v", "nitrous-oxide"],
                 ["simulate", "-p", "3", "-n", "6", "-s", "2"]):
        shipped, written = invoke(args[0], "street-illegal", *args[1:]), invoke(args[0], mine, *args[1:])
        assert shipped.exit_code == written.exit_code == 0, written.output
        assert shipped.stdout == written.stdout


def test_check_of_a_bad_table_points_at_the_row(tmp_path):
    folder = game(tmp_path)
    path = folder / "sections.pw"
    r = invoke("check", path)
    assert r.exit_code == 2
    assert "Traceback" not in r.output and "Error" not in r.output
    lines = r.output.splitlines()
    at = lines.index(f"{path}:6:9: error: the rules require: every braking section has a late-braking target in 1-99")
    assert lines[at + 1:at + 3] == ['          ("lesmo", SectionKind.BRAKING, t)', "          " + "^" * 33]
    assert lines[at + 3] == (f"  note: required at {folder / 'rules.pw'}:9:1 of every row of table 'sections': "
                             'row 6 of 6, Section(name: "lesmo", kind: BRAKING, target: 0), breaks it')
    assert lines[at + 4] == "  hint: correct the row, or the requirement if the row is right"
    fixed = game(tmp_path, SECTIONS.replace("[30, 0]", "[30, 1]"))
    ok = invoke("check", fixed / "sections.pw")
    assert ok.exit_code == 0, ok.output


def test_a_variant_that_adds_a_bad_row_fails_at_its_row(tmp_path):
    folder = game(tmp_path, SECTIONS.replace("[30, 0]", "[30, 1]"))
    (folder / "variants").mkdir()
    variant = folder / "variants" / "chicane.pw"
    variant.write_text('variant chicane "A chicane"\nextend table sections of Section {\n'
                       '    ("chicane", SectionKind.BRAKING, 100)\n}\n', encoding="utf-8")
    r = invoke("play", folder, "-v", "chicane")
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert f"{variant}:3:5: error: the rules require: every braking section" in r.output
    assert "row 7 of 7" in r.output
    assert "this line and the requirement read sections, extended by variant 'chicane'" in r.output
    assert invoke("check", variant).exit_code == 2
    assert invoke("play", folder).exit_code == 0


def test_a_failing_requirement_of_another_form_points_at_itself(tmp_path):
    rules = RULES.replace("require all(", 'require len(sections) > 9 "nine sections at least"\nrequire all(')
    folder = game(tmp_path, rules=rules)
    with pytest.raises(RuleRuntimeError) as e:
        build([folder / "rules.pw", folder / "sections.pw"], [])
    assert e.value.message == "the rules require: nine sections at least"
    assert (e.value.span.file, e.value.span.line, e.value.span.col) == (str(folder / "rules.pw"), 9, 1)
    assert e.value.note is None


# A hostile table: 3,000 rows, and a requirement that holds but compares every row with every pair
# of rows (2.7e10 comparisons). The load budget stops it at the requirement, in a few seconds.
HOSTILE = """game g "G" { players P 1 to 2  play main }
participant P { n: int = 0 }
record Row { a: int  b: int }
table rows of Row {
    for i in range(1, 3000) { (i, i * 2) }
}
require all(all(all(x.a + y.a + z.a < z.b * 9000 for z in rows) for y in rows) for x in rows) "rows are small"
rule main() {
    finish players
}
"""


def test_a_hostile_requirement_over_a_table_ends_within_the_load_budget(tmp_path):
    path = tmp_path / "hostile.pw"
    path.write_text(HOSTILE, encoding="utf-8")
    start = time.perf_counter()
    r = invoke("check", path)
    took = time.perf_counter() - start
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert (f"{path}:7:1: error: while loading the rules: constants, decks and requirements took more than "
            f"{LOAD_BUDGET} steps") in r.output
    assert took < 10, f"{took:.1f} s"


def test_the_row_error_renders_with_its_note_before_the_hint():
    error = PitwallError("broken", None, "fix it", "required elsewhere")
    assert render(error) == "error: broken\n  note: required elsewhere\n  hint: fix it"
