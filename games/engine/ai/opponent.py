"""The adaptive opponent model of the ``strong`` level (issue 16): a style estimated from this
match, and the likelihood of the opponent's observed turns under it.

The style has four parts, each a prior updated by what the seat has seen in this match:

- the knock threshold ``T`` (points): the opponent knocks when its least deadwood is at most
  ``min(T, knock limit)`` (R7.2; ``T = 0``: only with gin, R7.7; ``T = 10``: whenever it may). A
  distribution over ``T = 0..10``, prior :data:`THRESHOLD_PRIOR` (half on ``T = 10``, the
  baseline), updated by each knock it made at ``d`` points (``T >= d`` has likelihood
  ``1 - EPSILON``, else ``EPSILON``) and each knock it could have made at ``m`` points and did not
  (``T < m``: ``1 - EPSILON``, else ``EPSILON``). Nothing is ever given probability 0.
- ``greedy``: the probability that a discard is the least-deadwood one (R2.4): Beta prior
  :data:`GREEDY_PRIOR` (mean 0.8; :func:`greedy_prior` for another mean), one count per discard
  whose hand is known exactly.
- ``take_meld`` and ``take_loose``: the probability that it takes a discard-pile top (R5, R6.1)
  that joins a meld in its hand, and one that does not: Beta priors :data:`TAKE_MELD_PRIOR` and
  :data:`TAKE_LOOSE_PRIOR`, one count per card it took or let pass.

What it learns from is only what the seat legitimately has: the hands revealed at the end of each
round (:class:`~games.engine.state.RoundResult`, R9) and the public moves of that round as its
player view showed them (cards taken from and left on the discard pile, discards). From a round
result alone (the service's case for earlier rounds: the match state keeps only the current
round's moves): a knock at ``d`` points, or, for an opponent that did not knock, a knock declined at
the least deadwood of its final ten cards. With that round's moves as well: its last discard,
whether it was its least-deadwood one and the knock it declined then (its eleven cards are
known exactly: the final ten plus that discard), and each card it took or let pass, judged
against its final hand (whether the card joins a meld with it: an approximation, the hand at the
time is not known).

:func:`turn_likelihood` scores a sampled opponent hand by how well it explains the opponent's last
turns under a :class:`Style`, between 0 (excluded) and 1; it is never 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..cards import Card, cards_mask
from ..state import RoundResult
from ..views import PlayerView
from .knowledge import Knowledge, mask_indices
from .playout import VALUE, SimRules, best_discard, min_deadwood

EPSILON = 0.05
BASELINE_PRIOR = 0.5  # the prior probability of T = 10, the baseline's knock at the first chance


def threshold_prior(baseline: float = BASELINE_PRIOR) -> tuple[float, ...]:
    """The prior of the knock threshold ``T = 0..10`` (points): ``baseline`` (a probability, 0 <
    ``baseline`` < 1) on ``T = 10``, the rest spread evenly over ``T = 0..9``. Raises
    ``ValueError`` outside that range (a prior that rules a threshold out would never learn it)."""
    if not 0.0 < baseline < 1.0:
        raise ValueError("the baseline's prior probability must be strictly between 0 and 1")
    return ((1.0 - baseline) / 10.0,) * 10 + (baseline,)


THRESHOLD_PRIOR: tuple[float, ...] = threshold_prior()
GREEDY_STRENGTH = 5.0  # the greedy prior's weight, in discards: how many it takes to move it halfway
GREEDY_MEAN = 0.8  # its default mean, the chance that a discard is the least-deadwood one


def greedy_prior(mean: float = GREEDY_MEAN) -> tuple[float, float]:
    """The Beta prior ``(least-deadwood discards, other discards)`` of ``greedy`` with ``mean`` (a
    probability, 0 < ``mean`` < 1) and a weight of :data:`GREEDY_STRENGTH` discards: 0.8 gives
    ``(4.0, 1.0)``. Raises ``ValueError`` outside that range (a prior that rules a habit out would
    never learn it)."""
    if not 0.0 < mean < 1.0:
        raise ValueError("the prior chance of a least-deadwood discard must be strictly between 0 and 1")
    taken = GREEDY_STRENGTH * mean
    return taken, GREEDY_STRENGTH - taken


GREEDY_PRIOR = greedy_prior()
TAKE_MELD_PRIOR = (4.0, 1.0)
TAKE_LOOSE_PRIOR = (1.0, 4.0)


def joins_meld(hand: int, card: int) -> bool:
    """Whether ``card`` (index) joins a meld (R2.1, R2.2) with cards of ``hand`` (mask, the card
    itself ignored): adding it lowers the least deadwood by less than its value (R2.4)."""
    h = hand & ~(1 << card)
    return min_deadwood(h | 1 << card) < min_deadwood(h) + VALUE[card]


@dataclass(frozen=True)
class Style:
    """An estimated opponent style. ``threshold_probs``: probability of each knock threshold
    ``T = 0..10`` (points); ``greedy``, ``take_meld``, ``take_loose``: probabilities (see the
    module docstring)."""

    threshold_probs: tuple[float, ...] = THRESHOLD_PRIOR
    greedy: float = GREEDY_PRIOR[0] / sum(GREEDY_PRIOR)
    take_meld: float = TAKE_MELD_PRIOR[0] / sum(TAKE_MELD_PRIOR)
    take_loose: float = TAKE_LOOSE_PRIOR[0] / sum(TAKE_LOOSE_PRIOR)

    @property
    def threshold(self) -> int:
        """The estimated knock threshold (points): the median of ``threshold_probs`` (the least
        ``T`` whose cumulative probability exceeds one half), worked out once per style."""
        return self._threshold

    def __post_init__(self):
        acc, median = 0.0, len(self.threshold_probs) - 1
        for t, p in enumerate(self.threshold_probs):
            acc += p
            if acc > 0.5 + 1e-9:
                median = t
                break
        object.__setattr__(self, "_threshold", median)
        object.__setattr__(self, "_decline", tuple(
            sum(p * (EPSILON if points <= t else 1.0 - EPSILON) for t, p in enumerate(self.threshold_probs))
            for points in range(len(self.threshold_probs))))

    def p_decline(self, points: int) -> float:
        """Probability that the opponent does not knock when it may with ``points`` (0..10) of
        deadwood: the sum over thresholds ``T`` of P(T) times 1 - EPSILON when ``points > T``,
        else EPSILON."""
        return self._decline[points]


@dataclass
class OpponentModel:
    """The evidence about one opponent in one match, and the :class:`Style` it gives.

    ``knocked_at``: the deadwood (points) of each knock it made (0 = gin); ``declined_at``: the
    least deadwood it could have knocked with at a discard where it did not knock; ``greedy``:
    ``[least-deadwood discards, discards]`` whose hand was known exactly; ``takes``: per kind
    (``"meld"``, ``"loose"``), ``[taken, let pass]``; ``rounds``: the round numbers learned from.
    """

    knocked_at: list[int] = field(default_factory=list)
    declined_at: list[int] = field(default_factory=list)
    greedy: list[int] = field(default_factory=lambda: [0, 0])
    takes: dict = field(default_factory=lambda: {"meld": [0, 0], "loose": [0, 0]})
    rounds: set = field(default_factory=set)
    _histories: dict = field(default_factory=dict, repr=False)

    def style(self, baseline: float = BASELINE_PRIOR, greedy: float = GREEDY_MEAN) -> Style:
        """The posterior :class:`Style` (priors when nothing has been learned); ``baseline``: the
        knock threshold's prior probability of ``T = 10`` (:func:`threshold_prior`); ``greedy``:
        the prior mean of the chance of a least-deadwood discard (:func:`greedy_prior`). Raises
        ``ValueError`` for either outside 0 < p < 1."""
        probs = list(threshold_prior(baseline))
        for t in range(len(probs)):
            for d in self.knocked_at:
                probs[t] *= 1.0 - EPSILON if d <= t else EPSILON
            for m in self.declined_at:
                probs[t] *= 1.0 - EPSILON if m > t else EPSILON
        total = sum(probs)
        probs = [p / total for p in probs]

        def beta(prior, k, n):
            return (prior[0] + k) / (prior[0] + prior[1] + n)

        tm, tl = self.takes["meld"], self.takes["loose"]
        return Style(tuple(probs), beta(greedy_prior(greedy), self.greedy[0], self.greedy[1]),
                     beta(TAKE_MELD_PRIOR, tm[0], tm[0] + tm[1]), beta(TAKE_LOOSE_PRIOR, tl[0], tl[0] + tl[1]))

    def observe(self, view: PlayerView) -> None:
        """Learn from ``view`` (a seat's view): keep this round's public moves as last seen, and
        learn once from a finished round shown as ``view.last_result``, with the moves of that
        round kept from an earlier view when there is one. Reads nothing but the view."""
        if view.seat is None:
            return
        r = view.last_result
        if r is not None and r.number not in self.rounds:
            self.learn_round(r, view.seat, self._histories.pop(r.number, None),
                             forbid=view.rules.forbid_discarding_drawn_upcard)
        if view.history and view.phase not in ("deal", "match_over"):
            self._histories[view.round_number] = view.history

    def learn_round(self, result: RoundResult, seat: int, history: tuple[dict, ...] | None = None, *,
                    forbid: bool = True) -> None:
        """Learn from one finished round (once per round number) seen by ``seat``: ``result`` (its
        revealed hands), and ``history`` (that round's moves as ``seat``'s view showed them; None
        when not known). ``forbid``: whether R6.3 was in force. See the module docstring."""
        if result.number in self.rounds:
            return
        self.rounds.add(result.number)
        opp = 1 - seat
        final = cards_mask(result.hands[opp])
        limit = result.knock_limit
        if result.knocker == opp:
            self.knocked_at.append(min_deadwood(final))
        elif history and result.knocker == seat:
            # Its last discard came before this seat's knock, so its eleven cards then are known.
            last = _last_discard(history, opp)
            if last is not None:  # (else it never discarded: no knock was open to it)
                took, d = last
                hand11 = final | 1 << d
                m, best = best_discard(hand11, (1 << took) if (forbid and took is not None) else 0)
                self.greedy[1] += 1
                self.greedy[0] += best == d
                if m <= limit:
                    self.declined_at.append(m)
        else:
            # Its final ten cards were its hand after its last discard: a knock with their least
            # deadwood was open to it then (for a wall or a round whose moves are not known).
            dw = min_deadwood(final)
            if dw <= limit:
                self.declined_at.append(dw)
        if history:
            taken, passed = _takes_and_passes(history, opp)
            for c, was_taken in [(c, True) for c in taken] + [(c, False) for c in passed]:
                kind = "meld" if joins_meld(final, c) else "loose"
                self.takes[kind][0 if was_taken else 1] += 1

    def learn_results(self, results, seat: int, *, forbid: bool = True) -> None:
        """Learn from each finished round of ``results`` (round results, e.g. a match state's
        ``results``; public: revealed in full) not yet learned, without their moves."""
        for r in results:
            self.learn_round(r, seat, None, forbid=forbid)


def _last_discard(history, opp: int) -> tuple[int | None, int] | None:
    """The opponent's last ``(card taken from the discard pile that turn or None, discard)`` in
    ``history`` (indices), or None when it did not discard."""
    turns = _turns(history, opp)
    return turns[-1] if turns else None


def _turns(history, opp: int) -> list[tuple[int | None, int]]:
    out = []
    took = None
    pile: list[int] = []
    for ev in history:
        t = ev.get("type")
        if t == "round_dealt":
            pile = [Card.parse(ev["upcard"]).index]
        elif t in ("upcard_taken", "drew_discard"):
            c = pile.pop() if pile else None
            if ev.get("seat") == opp:
                took = c
        elif t == "discarded":
            c = Card.parse(ev["card"]).index
            pile.append(c)
            if ev.get("seat") == opp:
                out.append((took, c))
                took = None
    return out


def _takes_and_passes(history, opp: int) -> tuple[list[int], list[int]]:
    """Cards the opponent took from the discard pile and tops it let pass (passing the upcard, or
    drawing from the stock while that card lay on top), in ``history``."""
    taken: list[int] = []
    passed: list[int] = []
    pile: list[int] = []
    for ev in history:
        t = ev.get("type")
        who = ev.get("seat")
        if t == "round_dealt":
            pile = [Card.parse(ev["upcard"]).index]
        elif t in ("upcard_taken", "drew_discard"):
            c = pile.pop() if pile else None
            if who == opp and c is not None:
                taken.append(c)
        elif t in ("upcard_passed", "drew_stock"):
            if who == opp and pile:
                passed.append(pile[-1])
        elif t == "discarded":
            pile.append(Card.parse(ev["card"]).index)
    return taken, passed


def _turn_factor(hand11: int, took: int | None, passed: int | None, d: int, style: Style,
                 rules: SimRules) -> float:
    """Likelihood (0..1, never 0) of one turn that ended by discarding ``d`` from ``hand11`` (mask)
    after taking ``took`` from the discard pile or drawing from the stock with ``passed`` on top."""
    forbidden = (1 << took) if (took is not None and rules.forbid) else 0
    m, best = best_discard(hand11, forbidden)
    q = (1.0 - style.greedy) / 10.0
    f = ((style.greedy if best == d else 0.0) + q) / (style.greedy + q)
    if m <= rules.knock_limit:
        f *= style.p_decline(m)
    if took is not None:
        q = style.take_meld if joins_meld(hand11, took) else style.take_loose
        f *= q / max(style.take_meld, style.take_loose)
    elif passed is not None:
        q = style.take_meld if joins_meld(hand11 & ~(1 << d), passed) else style.take_loose
        f *= (1.0 - q) / max(1.0 - style.take_meld, 1.0 - style.take_loose)
    return f


def turn_likelihood(opp: int, k: Knowledge, style: Style, rules: SimRules, depth: int = 2,
                    below: float = 0.0, beam: int = 3) -> float:
    """How well the sampled opponent hand ``opp`` (mask of its ten cards) explains its last
    ``depth`` turns (1: the last one) of ``k.opp_turns`` under ``style``: the product of, per turn,
    the chance of its discard (``greedy`` on the least-deadwood discard, the rest spread), of not
    knocking when it could (:meth:`Style.p_decline`), and of taking or letting pass the
    discard-pile top, each divided by its largest possible value; between 0 and 1, never 0. Each
    turn before the last is rebuilt backwards from the hand after it: plus that turn's discard,
    minus the card drawn on the turn after it, which is known when it came from the discard pile
    and from the stock may have been any card of the hand then that the seat does not know it
    held before (the last discard itself unless the opponent had taken that card earlier). Over
    these unknown draws the best explanation found is kept, searched with ``beam`` (3, at least 1)
    partial explanations per turn: exact for ``depth`` 2 (as :func:`~.strong.plausible` does);
    for more turns an approximation that may fall below the best explanation (at depth 3, below
    it in 13 of 248 positions of simple-vs-simple rounds, by up to a factor of 1681). 1.0 when the
    opponent has not discarded yet. ``below``: when the likelihood of the turns scored so far is
    at most this, that value (an upper bound of what the search would return) is returned
    without scoring the turns before (a shortcut for rejection sampling; 0: always the full
    value). The rules it scores: the least-deadwood discard (R2.4), a knock let pass (R7.2),
    taking or letting pass the discard pile's top (R5, R6.1), and the card just taken from the
    pile, which may not be thrown (R6.3). Raises ``ValueError`` when ``beam`` < 1."""
    if beam < 1:
        raise ValueError(f"beam must be at least 1, not {beam}")
    turns = k.opp_turns
    if not turns:
        return 1.0
    passes = k.opp_turn_passed or (None,) * len(turns)
    n = len(turns)
    took, d = turns[-1]
    hand11 = opp | 1 << d
    f = _turn_factor(hand11, took, passes[-1], d, style, rules)
    if depth < 2 or n < 2 or f <= below:
        return f
    # Partial explanations ``(likelihood so far, eleven cards before the discard of turn i)``.
    states = [(f, hand11)]
    last = max(0, n - depth)
    for i in range(n - 1, last, -1):
        took_i = turns[i][0]
        prev_took, prev_d = turns[i - 1]
        held_before = 0  # cards it took from the discard pile before turn i: in its hand already
        for t, _ in turns[:i]:
            if t is not None:
                held_before |= 1 << t
        nxt: list[tuple[float, int]] = []
        for p, h in states:
            if took_i is not None:
                xs = [took_i]
            else:
                xs = mask_indices(h & ~held_before)
            for x in xs:
                h2 = (h & ~(1 << x)) | 1 << prev_d
                nxt.append((p * _turn_factor(h2, prev_took, passes[i - 1], prev_d, style, rules), h2))
        if not nxt:  # no card could have been the draw (inconsistent knowledge): keep the turns so far
            break
        nxt.sort(key=lambda s: -s[0])
        states = nxt[:beam]
        if states[0][0] <= below or states[0][0] <= 0.0:
            break
    return states[0][0]
