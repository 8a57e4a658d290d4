"""Every budget and size limit of the rules language and its files, in one place.

A hostile rules, variant, scenario or record file must end in a positioned error within seconds
and without exhausting memory: each limit below is checked before Python's own limit (recursion,
integer-to-text conversion, nested blocks, memory) can be reached. docs/language.md §"Safety"
documents them; change them here only.
"""

from __future__ import annotations

# ---------------------------------------------------------------- values while a game runs
INT_MAX = 2**63 - 1  # whole numbers stay within -INT_MAX..INT_MAX; beyond is a runtime error
TEXT_MAX = 100_000  # characters in one text value
LIST_MAX = 1_000_000  # items in one list or pile (also the longest range())
# Steps: every pass of a loop, every call and every item of a comprehension costs the nodes of
# rules it works out (a statement, an operator, a value: about one each); scans and copies of a
# collection cost its length. The shipped games spend at most about 3,000,000 steps a race; a runaway
# loop meets the budget in a few seconds.
STEP_BUDGET = 100_000_000
CHOOSE_STEPS = 20  # a decision (its options were paid for as they were made)
NEW_STEPS = 200  # a participant made by `new` (it stays in memory for the whole game)
RANGE_STEPS = 20  # a number of a `range` made into a list (each a new object kept in memory)
TOLD_LINE_STEPS = 500  # a line told (narrated and written to a record): side work, see runtime.Game.spent_apart
LOAD_BUDGET = 10_000_000  # the same, for constants and decks while the rules load
NARRATION_MAX = 100_000_000  # characters a game tells (its record's events and decisions)
DECK_MAX = 100_000  # cards in all decks together

# ---------------------------------------------------------------- source text
SOURCE_MAX = 2_000_000  # bytes in one rules, variant or scenario file
FILES_MAX = 200  # rules and variant files in one program (a bundle's includes, all counted)
INCLUDE_DEPTH_MAX = 16  # bundles within bundles
INT_DIGITS_MAX = 19  # digits of an integer literal (INT_MAX has 19)
STRING_MAX = 10_000  # characters of a string literal
EXPR_DEPTH_MAX = 64  # expressions nested in expressions (operators, calls, brackets)
BLOCK_DEPTH_MAX = 16  # blocks nested in blocks (if, for, while, repeat, simultaneous; deck for)
TEMPLATE_WIDTH_MAX = 200  # the width of one field in a narration or prompt template
# Functions and rules in one program, variants included (the largest shipped game has under 200),
# and the Python functions the compiler makes of them (with their extensions, `prefer` scores
# worked out apart and remembered functions' tables; the largest game makes under 300). Python
# compiles the functions of one closure in time growing with the square of their number:
# 2,000 take a few seconds at most, 20,000 take minutes.
CALLABLES_MAX = 1_000
DEFS_MAX = 2_000
# Lines of generated code for the rules and functions (the largest shipped game makes under 5,000;
# a `choose` makes about 20, one with `prefer` 40): Python compiles 100,000 in about three seconds.
RULES_LINES_MAX = 100_000

# ---------------------------------------------------------------- records and the command line
SEED_MAX = 2**63 - 1  # seeds are 0..SEED_MAX
GAMES_MAX = 10_000_000  # games in one simulate or compare run
RECORD_LINE_MAX = 1_000_000  # characters of one record line
RECORD_DEPTH_MAX = 8  # nesting of arrays and objects within one record line
