"""Hand-written "Why First?" (base game) — a speed yardstick for the Pitwall interpreter.

Plain standard-library Python, deliberately idiomatic rather than micro-optimised, so the
games/s figure is a fair "what a person would write" baseline. Rules: /work/shared/rulebooks/why_first.md.
"""

import random

from timing import throughput

# Reconstructed 32-card deck as (white number, value); white number = position in this order + 1.
# White numbers only matter for the Tactical Variant, but we carry them so cards look like the real thing.
_COUNTS = [(5, 1), (4, 2), (3, 4), (2, 4), (1, 6), (-1, 6), (-2, 4), (-3, 4), (-4, 1)]
DECK = [(i + 1, v) for i, v in enumerate(v for v, n in _COUNTS for _ in range(n))]
assert len(DECK) == 32

STAGES = 5
ROUNDS = 5
HAND = 5
LEO_CARDS = 4
LOW, HIGH = -12, 16  # board ends: a figure stops on these spaces


def _shuffle(cards: list, rnd) -> None:
    """Fisher-Yates driven only by rng.random(), so the interpreter can reproduce the exact order."""
    for i in range(len(cards) - 1, 0, -1):
        j = int(rnd() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def _distinct_desc(values) -> list:
    """Distinct values, highest first: in this game the second entry is the one that counts."""
    return sorted(set(values), reverse=True)


def play(n_players: int, seed: int) -> list[int]:
    """Play one game with random agents; return the indices of the winning figures (Leo is index 2 in 2p)."""
    if not 2 <= n_players <= 6:
        raise ValueError("Why First? is for 2-6 players")
    rng = random.Random(seed)
    agents = [random.Random(seed + 1000003 * (seat + 1)).random for seat in range(n_players)]
    leo = n_players == 2  # 2-player game adds Leo, a figure that is not a player
    n_figures = n_players + leo
    totals = [0] * n_figures

    for _ in range(STAGES):
        positions = [0] * n_figures
        deck = DECK.copy()  # all 32 cards go back in and are reshuffled every stage
        _shuffle(deck, rng.random)
        hands = [[deck.pop() for _ in range(HAND)] for _ in range(n_players)]
        leo_pile = [deck.pop() for _ in range(LEO_CARDS)] if leo else []

        for rnd_no in range(1, ROUNDS + 1):
            last = rnd_no == ROUNDS
            moves = [0] * n_figures  # sum of card values in front of each figure
            for seat, hand in enumerate(hands):
                pick = agents[seat]
                _, value = hand.pop(int(pick() * len(hand)))
                # Round 5: the only option is yourself, but still draw so each decision costs the same.
                choice = int(pick() * (1 if last else n_figures))
                moves[seat if last else choice] += value
            if leo and not last:
                moves[n_players] += leo_pile.pop()[1]  # Leo flips his top card in front of himself
            # Sum first, then clamp (rulebook "Take heed").
            positions = [min(HIGH, max(LOW, p + m)) for p, m in zip(positions, moves, strict=True)]

        spaces = _distinct_desc(positions)
        if len(spaces) > 1:  # all figures on one space: nobody scores
            second = spaces[1]
            for f, p in enumerate(positions):
                if p == second:
                    totals[f] += second

    ranked = _distinct_desc(totals)
    target = ranked[1] if len(ranked) > 1 else ranked[0]  # all equal: everyone shares the win
    return [f for f, t in enumerate(totals) if t == target]


def games_per_second(n_players: int, seconds: float = 1.0) -> float:
    """Run games with consecutive seeds for about `seconds`; return the throughput."""
    return throughput(lambda seed: play(n_players, seed), seconds)


def main() -> None:
    for n in (2, 4, 6):
        print(f"handwritten why_first players={n}: {games_per_second(n):.0f} games/s")


if __name__ == "__main__":
    main()
