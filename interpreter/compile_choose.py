"""Decisions: `choose` and `simultaneous` (compile.Gen inherits this).

Every decision can go through the runtime's general path (Game.choose: the agent asked, the
decision recorded). In a game nobody records, two kinds of seat decide in generated code instead,
exactly as that path would have them decide:

* a random seat (`_q`, its generator: runtime.Game.seat_quick): int(quick() * n);
* a heuristic seat (`_h`, its agent, where agents.Agent.prefers): the options' `prefer` scores
  worked out in a loop in place, with no lambda made and no function called per option, on the
  side budget as Game.spent_apart would (a budget running out there says so), the best score
  taken, a tie broken by the agent's own generator (agents.Heuristic.tie). The loop over the
  options is a pass like a comprehension's: a part of the score that does not depend on the option
  (`total(p)`, `worth(p, total(p))`) is worked out once for all of them (compile_hoist.py), and the
  score's comprehensions are loops (compile_flat.py).

Such a seat's only option is taken as Game.choose takes it, without asking the agent. No option at
all (an error), and every other agent, take the general path. A game that watches its decisions
(simulate's Tallied) is told of each first (`_decided`).
"""

from __future__ import annotations

import textwrap

from . import ast
from .costs import PASS_COST
from .limits import LIST_MAX, RANGE_STEPS
from .templates import parse_template, template_roots


class ChooseGen:
    sim_var: str | None = None

    def stmt_Choose(self, s: ast.Choose):
        by = self.value(s.by, s.span) if s.by is not None else f"l_{self.sim_var}"
        t = s.target
        name = t.name if isinstance(t, ast.Var) else t.obj.name
        q, n = self.fresh(), self.fresh()
        ends = self.range_ends(s.options, n, s.span)
        options = self.value(s.options, s.span) if ends is None else self.fresh()
        place = self.place(t)
        self.line(f"{q} = {by}._q", s.span)
        if ends is None:
            self.line(f"{n} = len({options})", s.span)  # once: every branch but the general path asks
            pick = f"{options}[int({q}() * {n})]"
        else:  # the number the list would hold there
            pick = f"int({q}() * {n})" + ("" if ends[0] == "0" else f" + {ends[0]}")
        self.line(f"if {q} is not None and {n} > 1:", s.span)
        self.line(f"    {place} = {pick}  # q first: a watcher is told before the pick", s.span)
        branch = "elif"
        if ends is not None:  # every other seat takes its options as a list
            self.line("else:", s.span)
            self.indent += 1
            self.line(f"{options} = list(range({ends[0]}, {ends[1]} + 1))", s.span)
            branch = "if"
        inline = self.flattening and self.loop_depth + 2 < self.loops_max
        if inline:
            self.line(f"{branch} {by}._h is not None and {n} > 1:", s.span)
            self.indent += 1
            self.line("if _decided is not None: _decided()", s.span)
            self.line(f"{place} = {options}[{self.preferred(s, by, options, n)}]", s.span)
            self.indent -= 1
            branch = "elif"
        # the only option, as Game.choose takes it for such a seat: no agent asked
        self.line(f"{branch} {n} == 1 and ({q} is not None or {by}._h is not None):", s.span)
        self.line("    if _decided is not None: _decided()", s.span)
        self.line(f"    {place} = {options}[0]", s.span)
        self.line("else:", s.span)
        self.indent += 1
        prefer = self.prefer_function(s) if inline else self.prefer_lambda(s)
        # a choice in a simultaneous block is secret (the record says so): a block holds its chooses
        # itself (the checker lets no rule be called there, and functions do not choose)
        secret = ", True" if self.sim_var is not None else ""
        self.line(f"{place} = _choose({by}, {name!r}, {options}, {self.prompt(s)}, {prefer}, {self.sid(s.span)}"
                  f"{secret})", s.span)
        self.indent -= 1 if ends is None else 2
        if not self.options_in_range(s.options):
            self.check_int(place, self.type_of(t), s.span)  # an option is a list's item, which nobody checked
        if self.changes_state(t):
            self.forget(s.span, place=t)

    def prefer_score(self, s: ast.Choose, var: str) -> str:
        """The prefer expression with `option` standing for var, after its lines (compile_flat.py)."""
        saved = self.subst
        self.subst = {**(saved or {}), "option": var}
        try:
            score = self.flat(s.prefer, s.span)
            if self.may_be_none(s.prefer):  # compared with the others: a number it must be
                score = self._spilled(score, s.span)
                self.line(f"if {score} is None: _no_score()", s.span)
            return score
        finally:
            self.subst = saved

    def prefer_lambda(self, s: ast.Choose) -> str:
        """The score of an option for the general path, where no function of lines can stand."""
        if s.prefer is None:
            return "None"
        score = self.expr(s.prefer)
        score = f"_scored({score})" if self.may_be_none(s.prefer) else score
        # an option's score pays the nodes of `prefer`, as prefer_function's and preferred's do
        score = f"(_charge({PASS_COST + self.weight(s.prefer)}), {score})[1]"
        return f"lambda {self.bound(score, 'l_option')}: {score}"

    def prefer_function(self, s: ast.Choose) -> str:
        """The score of an option for the general path (Game.choose, an agent's pick): a function
        of the same code as the loop of `preferred`, so both spend the same steps."""
        if s.prefer is None:
            return "None"
        fn = self.fresh()
        self.tmp += 1
        var = f"t{self.tmp}_option"
        start = len(self.lines)
        self.line(f"def {fn}({var}):", s.span)
        self.indent += 1
        saved_depth, self.loop_depth = self.loop_depth, 0  # a function of its own: no loop around it
        try:
            self.charge(s.span, s.prefer)  # an option's score: its nodes, as `preferred` pays them
            self.line(f"return {self.prefer_score(s, var)}", s.span)
        finally:
            self.loop_depth = saved_depth
            self.indent -= 1
        header = self.lines[start]
        params = self.bound(textwrap.dedent("\n".join(self.lines[start:])), var)
        self.lines[start] = header.replace(f"def {fn}({var}):", f"def {fn}({params}):")
        return fn

    def range_ends(self, e, n: str, span) -> tuple[str, str] | None:
        """The ends of options that are a `range`, worked out into locals, and their count into n,
        bounded and paid for as _range does; None for other options. A random seat then picks a
        number of the range with no list of them made."""
        if not (isinstance(e, ast.Call) and e.name == "range" and e.name not in self.prog.functions):
            return None
        lo = self._spilled(self.flat(e.args[0], span), span)
        hi = self._spilled(self.flat(e.args[1], span), span)
        width = f"{hi} - {lo}" if lo != "0" else hi
        self.line(f"if {width} >= {LIST_MAX!r}: _range({lo}, {hi})", span)  # the limit's error
        self.line(f"{n} = {width} + 1 if {hi} >= {lo} else 0", span)
        self.pay(f"{n} * {RANGE_STEPS!r}", span)  # none for an empty range, as _range
        return lo, hi

    def preferred(self, s: ast.Choose, by: str, options: str, n: str) -> str:
        """The index a heuristic seat picks (agents.Heuristic.pick), by lines before it."""
        if s.prefer is None:
            return "0"  # no preference: the first option
        span = s.span
        i, score, best, picks = self.fresh(), self.fresh(), self.fresh(), self.fresh()
        saved_budget = self.fresh()
        self.tmp += 1
        var = f"t{self.tmp}_option"
        self.line(f"{saved_budget} = _B; _B = _side[0]", span)  # side work (Game.spent_apart)
        self.line("try:", span)
        self.indent += 1
        # each option's score costs the nodes of `prefer` (prefer_function pays them call by call)
        self.charge(span, s.prefer, n)  # n: the options' length, measured once by stmt_Choose
        self.line(f"{best} = None", span)
        start = len(self.lines)
        p = self.open_pass(var, loop=True)
        self.line(f"for {i}, {var} in enumerate({options}):", span)
        self.indent += 1
        self.loop_depth += 1
        try:
            self.line(f"{score} = {self.prefer_score(s, var)}", span)
        finally:
            self.loop_depth -= 1
            self.passes.pop()
        self.line(f"if {best} is None or {score} > {best}: {best} = {score}; {picks} = [{i}]", span)
        self.line(f"elif {score} == {best}: {picks}.append({i})", span)
        self.indent -= 1
        self.loop_slots(p, start, span)
        self.indent -= 1
        self.line("except _OutOfSteps as _e:", span)
        self.line("    _e.side = True  # the side budget ran out", span)
        self.line("    raise", span)
        self.line("finally:", span)
        self.line(f"    _side[0] = _B; _B = {saved_budget}", span)
        return f"({picks}[0] if len({picks}) == 1 else {by}._h.tie({picks}))"

    def prompt(self, s: ast.Choose) -> str:
        """A plain prompt is a constant; one that names values is worded only when a person is asked."""
        roots = template_roots(s.prompt) if s.prompt else []
        if not roots:
            return repr(s.prompt and "".join(p for p in parse_template(s.prompt)))  # {{ and }} read as braces
        values = ", ".join(f"{r!r}: {self.expr(ast.Var(r, span=s.span))}" for r in roots)
        words = f"_render({self.template(s.prompt)}, {{{values}}})"
        return f"lambda {self.bound(words)}: {words}"

    def stmt_Simultaneous(self, s: ast.Simultaneous):
        maps = sorted({c.target.obj.name for c in _chooses(s.body) if isinstance(c.target, ast.Index)})
        for m in maps:
            self.line(f"l_{m} = {{}}", s.span)
        items = self.fresh()
        self.line(f"{items} = {self.flat(s.iter, s.span)}", s.span)
        self.charge(s.span, s.body, self.length(items, s.iter))
        self.line(f"for l_{s.var} in {items}:", s.span)
        self.sim_var = s.var
        self.loop_body(s.body)
        self.sim_var = None


def _chooses(b: ast.Block):
    for s in b.stmts:
        if isinstance(s, ast.Choose):
            yield s
        elif isinstance(s, ast.If):
            for _, body in s.branches:
                yield from _chooses(body)
            if s.orelse is not None:
                yield from _chooses(s.orelse)
