"""min, max, clamp and * written out as Python's own would work them (compile.Gen inherits this).

`clamp(p.position + n, LOW, HIGH)` as `min(max(x, lo), hi)` is two calls of builtins that take
any number of arguments, slow in a hot rule for what little they do. Written as
conditional expressions they pick exactly what Python's min and max pick (the first of equal
values: max(a, b) is b only if b > a), evaluate each argument once and in order, and fail alike.
A value named twice that is not a plain name, field or literal is kept by an assignment
expression in a local of its own (`(_t1 := x)`); where Python forbids one (in a comprehension's
iterable, in a class body) the builtins are called as before.
"""

from __future__ import annotations

import re

# Within +-QUICK a whole number is one CPython digit, and CPython 3.11 specializes a comparison of
# two such numbers (a bound of INT_MAX is two digits: its comparison is the generic one, some five
# times dearer). So a range check first asks the quick question and calls the exact check only for
# a number beyond it: `x > QUICK or x < -QUICK`, not a chained comparison, is the cheapest form.
QUICK = 2**30 - 1

# A value that may be evaluated twice: a name, a field of one, a literal
PLAIN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(\.[A-Za-z_][A-Za-z_0-9]*)*|-?[0-9]+|'[A-Za-z_0-9 ]*'|True|False|None")


def plain(code: str) -> str | None:
    """The code of a plain value (a name, a field, a literal), without the brackets an inlined
    body puts around it (`(C_RATE)`); None for anything else."""
    while len(code) > 2 and code[0] == "(" and code[-1] == ")" and PLAIN.fullmatch(code[1:-1].strip("()")):
        code = code[1:-1]
    return code if PLAIN.fullmatch(code) else None


class ArithGen:
    walrus_ok = True  # may generated code here bind a local with `:=`?
    # off in the fallback for rules too deeply nested for Python: the written-out forms nest four
    # brackets where a call nests one, and Python allows 200
    written_out = True

    def _once(self, code: str) -> tuple[str, str]:
        """(its first use, its later uses) for a value named more than once."""
        if plain(code):
            return plain(code), plain(code)
        t = self.fresh()
        return f"({t} := {code})", t

    def extreme(self, name: str, a: str, b: str) -> str:
        """min(a, b) or max(a, b): a, unless b is strictly less (min) or greater (max)."""
        if not self.written_out or not self.walrus_ok and not (plain(a) and plain(b)):
            return f"{name}({a}, {b})"
        a1, a2 = self._once(a)
        b1, b2 = self._once(b)
        return f"({b2} if {a1} {'>' if name == 'min' else '<'} {b1} else {a2})"

    def clamp(self, x: str, lo: str, hi: str) -> str:
        return self.extreme("min", self.extreme("max", x, lo), hi)

    def multiply(self, a: str, b: str) -> str:
        """a * b within the range of whole numbers, else runtime._mul's error."""
        if not self.written_out or not self.walrus_ok:
            return f"_mul({a}, {b})"
        a1, a2 = self._once(a)
        b1, b2 = self._once(b)
        r = self.fresh()
        return f"({r} if ({r} := {a1} * {b1}) <= {QUICK!r} and {r} >= {-QUICK!r} else _mul({a2}, {b2}))"

    def iterable(self, compile_it):
        """Compile a comprehension's iterable, where Python allows no `:=`."""
        saved, self.walrus_ok = self.walrus_ok, False
        try:
            return compile_it()
        finally:
            self.walrus_ok = saved
