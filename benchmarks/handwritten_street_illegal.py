"""Hand-written "Street Illegal" (base game) — a speed yardstick for the Pitwall interpreter.

Plain standard-library Python, deliberately idiomatic rather than micro-optimised, so the
games/s figure is a fair "what a person would write" baseline. Random agents throughout.
Rules: /work/shared/rulebooks/street_illegal.txt. Readings follow games/street_illegal/rules.pw:
paid chips go back to the supply, chips bid in a duel are paid win or lose, and emergency
braking stops early if no card in deck + discards could ever slow the car further.
"""

import random
from collections import Counter

from timing import throughput

# Situations; the three obstacles double as the index of the face-up card they hit.
LEFT, MIDDLE, RIGHT, UPHILL, DOWNHILL = range(5)
NO_LIMIT = 999  # "no speed limit": faster than any car (3 x 60 = 180), so never exceeded
TRACKS = [(limit, sit) for limit in (70, 80, 90, NO_LIMIT) for sit in range(5)]  # (limit, situation)
TEMPO = [(v, sit) for v in range(10, 61, 10) for sit in range(5) for _ in range(3)]  # (speed, icon)
assert len(TRACKS) == 20 and len(TEMPO) == 90

RACE_LENGTH = 8  # track cards per race
CARS = 7
START_HAND = 8
START_CHIPS = 3
HAND_LIMIT = 5  # 8 dealt - 3 face up; -1 per emergency braking
CHIP_SUPPLY = 50
POINTS = [15, 11, 8, 6, 4, 2, 1]  # positions 1..7


def _shuffle(cards: list, rnd) -> None:
    """Fisher-Yates driven only by rng.random(), so the interpreter can reproduce the exact order."""
    for i in range(len(cards) - 1, 0, -1):
        j = int(rnd() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def _pick(items: list, rnd):
    return items[int(rnd() * len(items))]


class _Race:
    """One race. Players are seats 0..n-1; Old Pros are -1, -2, ... (Old Pro 1 leads)."""

    def __init__(self, n_players: int, seed: int):
        self.rnd = random.Random(seed).random  # deck, track cards and Old Pro draws
        self.agents = [random.Random(seed * 1_000_003 + seat + 1).random for seat in range(n_players)]
        self.deck = TEMPO.copy()
        _shuffle(self.deck, self.rnd)
        tracks = TRACKS.copy()
        _shuffle(tracks, self.rnd)
        self.row = tracks[:RACE_LENGTH]
        self.discards = []
        self.supply = CHIP_SUPPLY
        self.limit = 0  # speed limit of the current track card
        self.hands, self.faces, self.chips = [], [], []
        self.hand_limit = [HAND_LIMIT] * n_players
        for seat in range(n_players):
            hand = [self.draw() for _ in range(START_HAND)]
            pick = self.agents[seat]
            self.faces.append([hand.pop(int(pick() * len(hand))) for _ in range(3)])  # left, middle, right
            self.hands.append(hand)
            got = min(START_CHIPS, self.supply)
            self.chips.append(got)
            self.supply -= got
        # Front to back: Old Pros, then the eldest player ... the youngest (seat 0) in 7th.
        self.field = [-(k + 1) for k in range(CARS - n_players)] + list(range(n_players - 1, -1, -1))

    # ------------------------------------------------------------ cards and chips
    def draw(self):
        if not self.deck:  # reshuffle the discards into a new deck
            self.deck, self.discards = self.discards, self.deck
            _shuffle(self.deck, self.rnd)
        return self.deck.pop()

    def speed(self, seat: int) -> int:
        left, middle, right = self.faces[seat]
        return left[0] + middle[0] + right[0]

    def pay(self, seat: int, n: int) -> None:
        self.chips[seat] -= n
        self.supply += n

    def bid(self, seat: int) -> int:
        """Random bid of 0..min(chips, hand size) chips, paid at once."""
        n = int(self.agents[seat]() * (min(self.chips[seat], len(self.hands[seat])) + 1))
        self.pay(seat, n)
        return n

    def turn_over(self, seat: int, highest: bool) -> None:
        """Turn over the top card and discard the highest (or lowest) of the four; ties: random."""
        face, fresh = self.faces[seat], self.draw()
        four = face + [fresh]
        target = max(c[0] for c in four) if highest else min(c[0] for c in four)
        i = _pick([i for i, c in enumerate(four) if c[0] == target], self.agents[seat])
        if i == 3:
            self.discards.append(fresh)
        else:
            self.discards.append(face[i])
            face[i] = fresh

    # ------------------------------------------------------------ phase 1: situation icon
    def phase1(self, seat: int, sit: int) -> None:
        face = self.faces[seat]
        if sit <= RIGHT:  # obstacle: that face-up card goes, replaced from the deck
            self.discards.append(face[sit])
            face[sit] = self.draw()
        else:
            self.turn_over(seat, highest=sit == UPHILL)
        got = min(2 * sum(c[1] == sit for c in face), self.supply)  # the supply may run dry
        self.chips[seat] += got
        self.supply -= got

    # ------------------------------------------------------------ phase 2: driving
    def phase2(self, seat: int) -> None:
        hand, pick = self.hands[seat], self.agents[seat]
        action = int(pick() * 3) if hand else 2  # drive, optimize, nothing
        if action == 0:
            self.drive(seat, 0)
        elif action == 1:
            n = 1 + int(pick() * len(hand))
            for _ in range(n):
                self.discards.append(hand.pop(int(pick() * len(hand))))
            hand.extend(self.draw() for _ in range(n))
        self.keep_limit(seat)
        while len(hand) > self.hand_limit[seat]:  # safeguard: drive/optimize keep the hand size
            self.discards.append(hand.pop(int(pick() * len(hand))))

    def drive(self, seat: int, slower: int) -> None:
        """Swap a face-up card for a hand card (at least `slower` mph slower) and draw one."""
        face, hand, pick = self.faces[seat], self.hands[seat], self.agents[seat]
        if slower:
            slot = _pick([s for s in range(3) if any(c[0] <= face[s][0] - slower for c in hand)], pick)
            i = _pick([i for i, c in enumerate(hand) if c[0] <= face[slot][0] - slower], pick)
        else:
            slot, i = int(pick() * 3), int(pick() * len(hand))
        self.discards.append(face[slot])
        face[slot] = hand.pop(i)
        hand.append(self.draw())

    def keep_limit(self, seat: int) -> None:
        """Over the limit: pay a chip per started 10 mph (if allowed) or brake, at random."""
        over = self.speed(seat) - self.limit
        if over <= 0:
            return
        owed = (over + 9) // 10
        if owed <= min(self.chips[seat], len(self.hands[seat])) and int(self.agents[seat]() * 2) == 0:
            self.pay(seat, owed)
        else:
            self.emergency(seat)

    def emergency(self, seat: int) -> None:
        hand = self.hands[seat]
        if hand:  # lose a hand card for good: the hand limit drops with it
            self.discards.append(hand.pop(int(self.agents[seat]() * len(hand))))
            self.hand_limit[seat] -= 1
        while self.speed(seat) >= self.limit and self.can_brake(seat):
            self.turn_over(seat, highest=True)

    def can_brake(self, seat: int) -> bool:
        """False when every slower card sits in hands or on the table: braking could never end."""
        top = max(c[0] for c in self.faces[seat])
        return any(c[0] < top for c in self.deck) or any(c[0] < top for c in self.discards)

    # ------------------------------------------------------------ phase 3: passing
    def phase3(self) -> None:
        field, i = self.field, len(self.field) - 1  # i: the car attacking the one in front
        while i > 0:
            a, f = field[i], field[i - 1]
            if a < 0 and f < 0:  # Old Pros never pass each other
                i -= 1
                continue
            won = self.duel(a, f)
            if won:
                field[i - 1], field[i] = a, f
            i -= 1  # the loser is done; the winner (now at i) may act
            if won:
                if a < 0:
                    i -= 1  # an Old Pro passes at most one player per turn
                elif i > 0 and not self.go_on(a):
                    i -= 1

    def go_on(self, seat: int) -> bool:
        """A successful passer may drive again, slowing >= 10 mph, to attack the next car."""
        face, hand = self.faces[seat], self.hands[seat]
        if not any(c[0] <= f[0] - 10 for f in face for c in hand) or int(self.agents[seat]() * 2):
            return False
        self.drive(seat, 10)
        self.keep_limit(seat)
        return True

    def duel(self, a: int, f: int) -> bool:
        """Does attacker `a` pass `f`? The passer needs strictly more speed."""
        if a >= 0 and f >= 0:  # secret simultaneous bids
            return self.speed(a) + 10 * self.bid(a) > self.speed(f) + 10 * self.bid(f)
        player = a if a >= 0 else f
        cards = [self.draw(), self.draw()]  # the Old Pro's speed, turned over for this duel only
        mine = self.speed(player) + 10 * self.bid(player)  # bid after seeing the two cards
        if cards[0][0] + cards[1][0] < self.limit:  # always true with no speed limit
            cards.append(self.draw())
        self.discards.extend(cards)
        pro = sum(c[0] for c in cards)
        return mine > pro if player == a else pro > mine

    # ------------------------------------------------------------ the race
    def run(self, audit=None) -> list[int]:
        """Play all track cards; return winners (player seats, or n_players for the Old Pro team)."""
        n = len(self.hands)
        for limit, sit in self.row:
            self.limit = limit
            players = [c for c in self.field if c >= 0]  # Old Pros hold no cards: phases 1-2 skip them
            for seat in players:
                self.phase1(seat, sit)
            for seat in players:
                self.phase2(seat)
            self.phase3()
            if audit:
                audit(self)
        points = {car: POINTS[pos] for pos, car in enumerate(self.field)}
        scores = [points[seat] for seat in range(n)]
        pros = [car for car in self.field if car < 0]
        if pros:  # one team, scoring its best-placed car
            scores.append(points[pros[0]])
        best = max(scores)
        return [i for i, s in enumerate(scores) if s == best]


def play(n_players: int, seed: int) -> list[int]:
    """Play one race with random agents; return the winners (index n_players = the Old Pro team)."""
    if not 1 <= n_players <= CARS:
        raise ValueError("Street Illegal is for 1-7 players")
    return _Race(n_players, seed).run()


def check_conservation(seed: int, n_players: int) -> list[int]:
    """Debug check: after every track card all 90 tempo cards and 50 chips are accounted for."""
    full = Counter(TEMPO)

    def audit(race: _Race) -> None:
        cards = race.deck + race.discards + [c for h in race.hands for c in h] + [c for f in race.faces for c in f]
        assert Counter(cards) == full, "tempo cards not conserved"
        assert race.supply + sum(race.chips) == CHIP_SUPPLY and min(race.chips + [race.supply]) >= 0
        assert all(len(h) <= lim for h, lim in zip(race.hands, race.hand_limit))
        assert sorted(race.field) == sorted(set(race.field)) and len(race.field) == CARS

    return _Race(n_players, seed).run(audit)


def games_per_second(n_players: int, seconds: float = 1.0) -> float:
    """Run games with consecutive seeds for about `seconds`; return the throughput."""
    return throughput(lambda seed: play(n_players, seed), seconds)


def main() -> None:
    for n in (3, 1, 7):
        label = f"players={n}" + (f" + {CARS - n} Old Pros" if n < CARS else "")
        print(f"handwritten street_illegal {label}: {games_per_second(n):.0f} games/s")


if __name__ == "__main__":
    main()
