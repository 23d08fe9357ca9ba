"""How strong are the AI levels? Plays matches to 100 points and prints figures (issues 5, 16).

    .venv/bin/python benchmarks/ai_strength.py --a strong --b simple --matches 400 --jobs 2 --budget 0.2
    .venv/bin/python benchmarks/ai_strength.py --a simple --b random --matches 400 --openspiel 0
    .venv/bin/python benchmarks/ai_strength.py --gauntlet --matches 100 --jobs 1 --budget 0.1 --cpu-clock

``--b`` is a level (random, simple, strong) or an opponent style (gin-hunter, cautious,
knock-at-once, upcard-greedy: see "Opponent styles" below). ``--gauntlet`` plays ``--a`` against simple,
random and every style, ``--matches`` each, and ends with one table (win rate with its Wilson
interval, net points per round, undercuts suffered by each side). The strong level's budget is
``--budget`` seconds per turn by the wall clock, or by the process's CPU clock with ``--cpu-clock``
(the same search on a shared, loaded machine as on an idle core), or ``--iterations`` playouts per
decision (no clock at all).

Our engine: matches under the default Oklahoma rules (``--variant classic`` for the other one),
with duplicate deals (each match's deal sequence is played twice, the two policies swapping
seats, so both get the same cards) and the first dealer alternating from one pair to the next.

OpenSpiel (when ``open-spiel`` is installed and ``--openspiel`` > 0): ``--a`` plays pyspiel's own
``make_simple_gin_rummy_bot`` inside OpenSpiel's ``gin_rummy`` game (``oklahoma=True``, OpenSpiel's
scoring: gin 25, undercut 25, an ace upcard means gin only), one OpenSpiel game per round, to 100
points, with the same duplicate deals. Our policy sees a :class:`PlayerView` built from what its
OpenSpiel seat may see (own hand, discard pile, upcard, stock size, knock card, the public moves);
when it knocks it lays out its best arrangement with OpenSpiel's meld actions, and as the defender
it lays off and melds by :func:`best_defence`. It never discards the card it just took (our R6.3).

Printed per pairing: matches won with a 95% Wilson interval, rounds won, average points per round
(net, A minus B) with a 95% interval, gins, undercuts suffered, and seconds per decision (p50, p95).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from multiprocessing import Pool

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.engine import (Card, Discard, DrawDiscard, DrawStock, Knock, PassUpcard, PlayerView,  # noqa: E402
                          RuleSet, TakeUpcard, apply, best_arrangement, best_defence, deal,
                          new_match, player_view, shuffled_deck, sort_cards)
from games.engine.ai import get_policy  # noqa: E402
from games.engine.ai.base import decision_rng, forbidden_mask, hand_mask  # noqa: E402
from games.engine.ai.simple import SimplePolicy, discard_order_key, upcard_melds  # noqa: E402
from games.engine.melds import mask_knock_deadwoods, mask_min_deadwood  # noqa: E402
from games.engine.cards import cards_mask  # noqa: E402

TARGET = 100

# Keyword overrides for the strong policy's tuning attributes (``--strong-opts``), set in main()
# before the worker processes fork.
STRONG_OPTS: dict = {}
# How the strong level's search is bounded (``--iterations``, ``--cpu-clock``), set in main().
STRONG_BUDGET: dict = {"iterations": None, "cpu_clock": False}


def make_policy(level: str, seed: int, budget: float, strong_opts: dict | None = None):
    """``get_policy`` (or an opponent style of ``ai_styles``) plus overrides of the strong level's
    attributes (``strong_opts``, by default the ``--strong-opts`` given to this script)."""
    if level in STYLES:
        return STYLES[level](seed=seed)
    clock = time.process_time if STRONG_BUDGET["cpu_clock"] else time.perf_counter
    policy = get_policy(level, seed=seed, time_budget=budget, iterations=STRONG_BUDGET["iterations"],
                        clock=clock)
    if level == "strong":
        for name, value in (STRONG_OPTS if strong_opts is None else strong_opts).items():
            if not hasattr(policy, name):
                raise SystemExit(f"--strong-opts: the strong policy has no attribute {name!r}")
            setattr(policy, name, value)
    return policy


def deck_for(seed: int, pair: int, round_index: int) -> tuple[Card, ...]:
    """The deck of round ``round_index`` of pair ``pair``: the same for both matches of a pair."""
    return shuffled_deck(random.Random(f"okgin-bench-{seed}-{pair}-{round_index}"))


@dataclass
class Side:
    """Per-side tallies of one match."""

    decisions: list = field(default_factory=list)  # seconds per decision
    rounds_won: int = 0
    gins: int = 0
    undercuts_suffered: int = 0
    knocks: int = 0


@dataclass
class MatchRecord:
    a_won: bool
    round_points: list  # A's net points per round (A's score minus B's in that round)
    sides: dict  # "A"/"B" -> Side
    draws: int = 0
    fallbacks: int = 0


def _timed(policy, view, side: Side):
    t = time.perf_counter()
    action = policy.choose(view)
    side.decisions.append(time.perf_counter() - t)
    return action


# ---------------------------------------------------------------------------------------------
# Opponent styles (issue 16): players that do not play like the baseline. Policies of this
# benchmark only, not levels of the service. Each sees only a PlayerView and returns one of its
# legal actions.
#
# - ``gin-hunter``: takes the discard-pile top only when it joins a meld, discards the least-deadwood
#   card, and knocks only with gin (R7.7).
# - ``cautious``: draws like the baseline, discards the least deadwood but away from what the opponent
#   picked up (a card of the same rank, or of the same suit within two ranks, of a card the opponent
#   took from the discard pile costs ``danger_points``), and knocks only at ``low_deadwood`` points or
#   less, or once the stock is down to ``late_stock`` cards.
# - ``knock-at-once``: random draws, random discards (among its unmelded cards when it has any), but
#   knocks as soon as it legally can (R7.2).
# - ``upcard-greedy``: takes any upcard or discard-pile top that lowers its deadwood, then plays like
#   the baseline (least-deadwood discard, knocks when it can).


def _take(view: PlayerView, take: bool):
    """The upcard or draw action: take the discard-pile top when ``take`` and allowed."""
    can_take = any(isinstance(a, (TakeUpcard, DrawDiscard)) for a in view.legal_actions)
    take = take and can_take and view.upcard is not None
    if view.phase == "upcard":
        return TakeUpcard() if take else PassUpcard()
    return DrawDiscard() if take else DrawStock()


def _least_deadwood(view: PlayerView, cls, dws: dict[int, int]):
    """Among the legal actions of ``cls`` (Discard or Knock), the baseline's pick."""
    acts = [a for a in view.legal_actions if isinstance(a, cls)]
    return min(acts, key=lambda a: discard_order_key(a.card, dws[a.card.index])) if acts else None


class _Style:
    level = "style"

    def __init__(self, *, seed: int | None = None):
        self.seed = seed
        self._rng = random.Random(seed)

    def choose(self, view: PlayerView):
        if not view.legal_actions:
            raise ValueError("no legal action in this view: it is not this seat's turn")
        if view.phase in ("upcard", "draw"):
            return self.draw(view)
        dws = mask_knock_deadwoods(hand_mask(view), forbidden_mask(view))
        return self.discard(view, dws)


class GinHunterPolicy(_Style):
    """Knocks only with gin (R7.7); otherwise the baseline without its knock-triggered takes."""

    level = "gin-hunter"

    def draw(self, view):
        return _take(view, view.upcard is not None and upcard_melds(hand_mask(view), view.upcard))

    def discard(self, view, dws):
        knock = _least_deadwood(view, Knock, dws)
        if knock is not None and dws[knock.card.index] == 0:
            return Knock(knock.card)
        return _least_deadwood(view, Discard, dws)


class CautiousPolicy(_Style):
    """Knocks at ``low_deadwood`` points or less, or late in the stock; discards away from the
    cards the opponent took from the discard pile."""

    level = "cautious"
    low_deadwood = 3
    late_stock = 10
    danger_points = 6

    def draw(self, view):
        return SimplePolicy().choose(view)

    def discard(self, view, dws):
        knock = _least_deadwood(view, Knock, dws)
        if knock is not None:
            dw = dws[knock.card.index]
            if dw <= self.low_deadwood or view.stock_size <= self.late_stock:
                return Knock(knock.card)
        taken = view.opponent_known_cards

        def danger(card) -> int:
            return sum(1 for t in taken
                       if t.rank == card.rank or (t.suit == card.suit and abs(t.rank - card.rank) <= 2))

        discards = [a for a in view.legal_actions if isinstance(a, Discard)]
        return min(discards, key=lambda a: (dws[a.card.index] + self.danger_points * min(1, danger(a.card)),
                                            discard_order_key(a.card, dws[a.card.index])))


class KnockAtOncePolicy(_Style):
    """Random draws and random discards (among the cards outside the melds of its best arrangement
    when there are any: a player keeps what it has melded); knocks as soon as it can (R7.2), with
    its least-deadwood knock."""

    level = "knock-at-once"

    def draw(self, view):
        return decision_rng(self.seed, view, self._rng).choice(list(view.legal_actions))

    def discard(self, view, dws):
        knock = _least_deadwood(view, Knock, dws)
        if knock is not None:
            return Knock(knock.card)
        discards = [a for a in view.legal_actions if isinstance(a, Discard)]
        loose = set(best_arrangement(view.hand).deadwood)
        return decision_rng(self.seed, view, self._rng).choice(
            [a for a in discards if a.card in loose] or discards)


class UpcardGreedyPolicy(_Style):
    """Takes any upcard or discard-pile top that lowers its deadwood; otherwise the baseline."""

    level = "upcard-greedy"

    def draw(self, view):
        card = view.upcard
        if card is None:
            return _take(view, False)
        hand = hand_mask(view)
        forbidden = card.bit if view.rules.forbid_discarding_drawn_upcard else 0
        after = min(mask_knock_deadwoods(hand | card.bit, forbidden).values())
        return _take(view, after < mask_min_deadwood(hand))

    def discard(self, view, dws):
        return _least_deadwood(view, Knock, dws) or _least_deadwood(view, Discard, dws)


STYLES: dict = {cls.level: cls for cls in (GinHunterPolicy, CautiousPolicy, KnockAtOncePolicy, UpcardGreedyPolicy)}


# ---------------------------------------------------------------------------------------------
# Our engine


def play_engine_match(task) -> MatchRecord:
    """One match between levels ``a`` and ``b`` in our engine; ``swapped`` puts A in seat 1."""
    pair, swapped, a, b, budget, seed, variant = task
    rules = RuleSet(variant=variant)
    a_seat = 1 if swapped else 0
    levels = {a_seat: a, 1 - a_seat: b}
    policies = {s: make_policy(levels[s], seed * 100003 + pair * 2 + s, budget) for s in (0, 1)}
    names = {a_seat: "A", 1 - a_seat: "B"}
    sides = {"A": Side(), "B": Side()}
    state = new_match(rules, first_dealer=pair % 2)
    rec = MatchRecord(False, [], sides)
    rounds = 0
    while state.winner is None:
        if state.phase == "deal":
            state, _ = deal(state, deck_for(seed, pair, rounds))
            rounds += 1
            continue
        seat = state.to_act
        view = player_view(state, seat)
        action = _timed(policies[seat], view, sides[names[seat]])
        state, events = apply(state, seat, action)
        for ev in events:
            if ev.type != "round_ended":
                continue
            r = state.results[-1]
            if r.winner is None:
                rec.draws += 1
                rec.round_points.append(0)
                continue
            win = names[r.winner]
            sides[win].rounds_won += 1
            rec.round_points.append(r.points if win == "A" else -r.points)
            sides[names[r.knocker]].knocks += 1
            if r.outcome == "gin":
                sides[win].gins += 1
            if r.outcome == "undercut":
                sides[names[r.knocker]].undercuts_suffered += 1
    rec.a_won = names[state.winner] == "A"
    return rec


# ---------------------------------------------------------------------------------------------
# OpenSpiel adapter

_OS_SUITS = "SCDH"  # OpenSpiel's suit order (s c d h); ours is C D H S


def to_os(card: Card) -> int:
    """Our card -> OpenSpiel's card index (suit order s, c, d, h; rank ace..king)."""
    return _OS_SUITS.index(card.suit) * 13 + card.rank - 1


def from_os(index: int) -> Card:
    """OpenSpiel's card index -> our card."""
    return Card.from_rank_suit(index % 13 + 1, _OS_SUITS[index // 13])


def os_meld_id(cards) -> int:
    """OpenSpiel's meld id (``GinRummyUtils::MeldToInt``) of a meld of our cards (3-5 cards)."""
    idx = [to_os(c) for c in cards]
    ranks = {i % 13 for i in idx}
    if len(ranks) == 1:
        rank = idx[0] % 13
        if len(idx) == 4:
            return rank * 5 + 4
        missing = ({0, 1, 2, 3} - {i // 13 for i in idx}).pop()
        return rank * 5 + missing
    suit = idx[0] // 13
    lo = min(i % 13 for i in idx)
    n = len(idx)
    if n == 3:
        return 65 + suit * 11 + lo
    if n == 4:
        return 65 + 44 + suit * 10 + lo
    if n == 5:
        return 65 + 44 + 40 + suit * 9 + lo
    raise ValueError(f"OpenSpiel melds have 3-5 cards, not {n}")


_MELD_BY_ID: dict[int, tuple[Card, ...]] = {}


def meld_from_id(meld_id: int) -> tuple[Card, ...]:
    if not _MELD_BY_ID:
        for suit in "CDHS":
            for lo in range(1, 14):
                for n in (3, 4, 5):
                    if lo + n - 1 <= 13:
                        m = tuple(Card.from_rank_suit(r, suit) for r in range(lo, lo + n))
                        _MELD_BY_ID[os_meld_id(m)] = m
        for rank in range(1, 14):
            four = tuple(Card.from_rank_suit(rank, s) for s in "CDHS")
            _MELD_BY_ID[os_meld_id(four)] = four
            for skip in range(4):
                m = tuple(c for i, c in enumerate(four) if i != skip)
                _MELD_BY_ID[os_meld_id(m)] = m
    return _MELD_BY_ID[meld_id]


def split_for_os(meld) -> list[tuple[Card, ...]]:
    """A run of 6+ cards laid as OpenSpiel pieces of 3-5 cards (OpenSpiel has no longer melds)."""
    meld = tuple(sorted(meld, key=lambda c: c.rank))
    out = []
    while len(meld) > 5:
        out.append(meld[:3])
        meld = meld[3:]
    out.append(meld)
    return out


class OSSeat:
    """Our policy playing one OpenSpiel round as one seat: builds its :class:`PlayerView` from what
    the seat may see and turns our actions into OpenSpiel actions (knock, discard, lay melds,
    lay off), queueing the follow-up actions OpenSpiel asks for one at a time."""

    def __init__(self, policy, seat: int, os_player: int, dealer: int, round_number: int,
                 scores: tuple[int, int], rules: RuleSet, first_upcard: Card, side: Side):
        self.policy, self.seat, self.p = policy, seat, os_player
        self.dealer, self.round_number, self.scores, self.rules = dealer, round_number, scores, rules
        self.first_upcard = first_upcard
        self.side = side
        self.queue: list[int] = []
        self.history: list[dict] = []
        self.known = {0: set(), 1: set()}  # per our seat: cards taken from the discard pile, held
        self.taken: Card | None = None
        self.fallbacks = 0
        self.knock_limit = None

    def seat_of(self, os_player: int) -> int:
        return self.seat if os_player == self.p else 1 - self.seat

    # -- public moves, observed by both seats ---------------------------------------------------
    def observe(self, state, os_player: int, action: int) -> None:
        import pyspiel
        g = pyspiel.gin_rummy
        phase = state.current_phase()
        seat = self.seat_of(os_player)
        up = state.upcard()
        self._start(state)
        if phase == g.Phase.FIRST_UPCARD:
            if action == g.DRAW_UPCARD_ACTION:
                self.history.append({"type": "upcard_taken", "seat": seat, "card": from_os(up).code})
                self.known[seat].add(from_os(up))
                self._taken(seat, from_os(up))
            elif action == g.PASS_ACTION:
                self.history.append({"type": "upcard_passed", "seat": seat})
            elif action == g.DRAW_STOCK_ACTION:
                self.history.append({"type": "drew_stock", "seat": seat})
                self._taken(seat, None)
        elif phase == g.Phase.DRAW:
            if action == g.DRAW_UPCARD_ACTION:
                self.history.append({"type": "drew_discard", "seat": seat, "card": from_os(up).code})
                self.known[seat].add(from_os(up))
                self._taken(seat, from_os(up))
            else:
                self.history.append({"type": "drew_stock", "seat": seat})
                self._taken(seat, None)
        elif phase == g.Phase.DISCARD and action < 52:
            card = from_os(action)
            self.history.append({"type": "discarded", "seat": seat, "card": card.code})
            self.known[seat].discard(card)

    def _start(self, state) -> None:
        if not self.history:
            self.knock_limit = state.knock_card()
            self.history.append({"type": "round_dealt", "seat": None, "round": self.round_number,
                                 "dealer": self.dealer, "upcard": self.first_upcard.code,
                                 "knock_limit": self.knock_limit})

    def _taken(self, seat: int, card: Card | None) -> None:
        if seat == self.seat:
            self.taken = card

    # -- our moves --------------------------------------------------------------------------------
    def view(self, state, phase: str, hand, legal, *, upcard_refused=False, discard_pile=None,
             stock_size=None, taken=None) -> PlayerView:
        pile = discard_pile
        if pile is None:
            pile = [from_os(c) for c in state.discard_pile()]
            if state.upcard() is not None:
                pile.append(from_os(state.upcard()))
        sizes = [10, 10]
        sizes[self.seat] = len(hand)
        known = (sort_cards(self.known[0]), sort_cards(self.known[1]))
        return PlayerView(
            seat=self.seat, rules=self.rules, phase=phase, to_act=self.seat, dealer=self.dealer,
            round_number=self.round_number, scores=self.scores, knock_limit=self.knock_limit,
            first_upcard=self.first_upcard, hand=sort_cards(hand), discard_pile=tuple(pile),
            stock_size=state.stock_size() if stock_size is None else stock_size,
            hand_sizes=(sizes[0], sizes[1]), known_cards=known, taken_from_discard=taken,
            upcard_refused=upcard_refused, history=tuple(self.history), legal_actions=tuple(legal),
            last_result=None, winner=None)

    def _knock_options(self, hand, forbidden: Card | None, limit: int):
        out = []
        hm = cards_mask(hand)
        for c in hand:
            if c is forbidden:
                continue
            if mask_min_deadwood(hm & ~c.bit) <= limit:
                out.append(Knock(c))
        return out

    def _lay_melds(self, melds) -> None:
        import pyspiel
        g = pyspiel.gin_rummy
        for m in melds:
            for piece in split_for_os(m) if len({c.rank for c in m}) > 1 else [m]:
                self.queue.append(g.MELD_ACTION_BASE + os_meld_id(piece))
        self.queue.append(g.PASS_ACTION)

    def step(self, state) -> int:
        import pyspiel
        g = pyspiel.gin_rummy
        self._start(state)
        legal = state.legal_actions()
        while self.queue:
            a = self.queue.pop(0)
            if a in legal:
                return a
            if a < 52 or a >= g.MELD_ACTION_BASE:
                continue  # e.g. a lay-off OpenSpiel does not chain: skip it
        phase = state.current_phase()
        hand = [from_os(c) for c in state.hands()[self.p]]
        if phase == g.Phase.FIRST_UPCARD:
            if legal == [g.DRAW_STOCK_ACTION]:
                self.decide(self.view(state, "draw", hand, [DrawStock()], upcard_refused=True))
                return g.DRAW_STOCK_ACTION
            a = self.decide(self.view(state, "upcard", hand, [TakeUpcard(), PassUpcard()]))
            return g.DRAW_UPCARD_ACTION if isinstance(a, TakeUpcard) else g.PASS_ACTION
        if phase == g.Phase.DRAW:
            a = self.decide(self.view(state, "draw", hand, [DrawStock(), DrawDiscard()]))
            return g.DRAW_UPCARD_ACTION if isinstance(a, DrawDiscard) else g.DRAW_STOCK_ACTION
        if phase == g.Phase.DISCARD:
            forbidden = self.taken if self.rules.forbid_discarding_drawn_upcard else None
            acts = [Discard(c) for c in hand if c is not forbidden]
            if g.KNOCK_ACTION in legal:
                acts += self._knock_options(hand, forbidden, state.knock_card())
            a = self.decide(self.view(state, "discard", hand, acts, taken=self.taken))
            if isinstance(a, Knock):
                self.queue.append(to_os(a.card))
                rest = [c for c in hand if c is not a.card]
                self._lay_melds(a.melds if a.melds is not None else best_arrangement(rest).melds)
                return g.KNOCK_ACTION
            return to_os(a.card)
        if phase == g.Phase.WALL:
            if g.KNOCK_ACTION not in legal:
                return g.PASS_ACTION
            up = from_os(state.upcard())
            hand11 = hand + [up]
            acts = [Discard(c) for c in hand]
            acts += self._knock_options(hand11, up, state.knock_card())
            pile = [from_os(c) for c in state.discard_pile()]
            a = self.decide(self.view(state, "discard", hand11, acts, discard_pile=pile, taken=up))
            if isinstance(a, Knock):
                self.queue.append(to_os(a.card))
                rest = [c for c in hand11 if c is not a.card]
                self._lay_melds(a.melds if a.melds is not None else best_arrangement(rest).melds)
                return g.KNOCK_ACTION
            return g.PASS_ACTION  # discarding here ends the round at the wall (R8)
        if phase == g.Phase.LAYOFF:
            opp = 1 - self.p
            kmelds = [meld_from_id(m) for m in state.layed_melds()[opp]]
            if not state.finished_layoffs():
                d = best_defence(kmelds, hand)
                self.queue = [to_os(c) for c, _k in d.lay_offs] + [g.PASS_ACTION]
                self._lay_melds(d.melds)
            else:
                self._lay_melds(best_arrangement(hand).melds)
            return self.step(state)
        if phase == g.Phase.KNOCK:  # only reached if a queued action was refused
            self.fallbacks += 1
            melds = [a for a in legal if a >= g.MELD_ACTION_BASE]
            return melds[0] if melds else legal[0]
        self.fallbacks += 1
        return legal[0]

    def decide(self, view: PlayerView):
        return _timed(self.policy, view, self.side)


def play_openspiel_match(task) -> MatchRecord:
    """One match to 100 points: level ``a`` against OpenSpiel's simple bot, one OpenSpiel
    ``gin_rummy`` game per round; the round's winner deals the next (R3.2), a draw keeps the dealer."""
    import pyspiel
    pair, swapped, a, _b, budget, seed, _variant = task
    game = pyspiel.load_game("gin_rummy", {"oklahoma": True})
    params = game.get_parameters()
    rules = RuleSet(undercut_bonus=params["undercut_bonus"], gin_bonus=params["gin_bonus"],
                    ace_requires_gin=True)
    a_seat = 1 if swapped else 0
    policy = make_policy(a, seed * 100003 + pair * 2 + a_seat, budget)
    sides = {"A": Side(), "B": Side()}
    rec = MatchRecord(False, [], sides)
    scores = [0, 0]
    dealer = pair % 2
    rounds = 0
    while max(scores) < TARGET and rounds < 200:
        deck = deck_for(seed, pair, rounds)
        rounds += 1
        non_dealer = 1 - dealer
        os_of_seat = {non_dealer: 0, dealer: 1}  # OpenSpiel's player 0 acts first: the non-dealer
        seat_of_os = {0: non_dealer, 1: dealer}
        state = game.new_initial_state()
        bot = pyspiel.make_simple_gin_rummy_bot(params, os_of_seat[1 - a_seat])
        ours = OSSeat(policy, a_seat, os_of_seat[a_seat], dealer, rounds, (scores[0], scores[1]), rules,
                      deck[20], sides["A"])
        di = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(to_os(deck[di]))
                di += 1
                continue
            p = state.current_player()
            if seat_of_os[p] == a_seat:
                action = ours.step(state)
            else:
                t = time.perf_counter()
                action = bot.step(state)
                sides["B"].decisions.append(time.perf_counter() - t)
            ours.observe(state, p, action)
            state.apply_action(action)
        rec.fallbacks += ours.fallbacks
        ret = state.returns()
        knocked = state.knocked()
        if ret[0] == 0 and ret[1] == 0:
            rec.draws += 1
            rec.round_points.append(0)
            continue
        win_os = 0 if ret[0] > 0 else 1
        win_seat = seat_of_os[win_os]
        pts = int(round(ret[win_os]))
        scores[win_seat] += pts
        win = "A" if win_seat == a_seat else "B"
        sides[win].rounds_won += 1
        rec.round_points.append(pts if win == "A" else -pts)
        knocker_os = 0 if knocked[0] else 1
        kside = "A" if seat_of_os[knocker_os] == a_seat else "B"
        sides[kside].knocks += 1
        if knocker_os == win_os and state.deadwood()[knocker_os] == 0:
            sides[win].gins += 1
        elif knocker_os != win_os:
            sides[kside].undercuts_suffered += 1
        dealer = win_seat
    rec.a_won = scores[a_seat] > scores[1 - a_seat]
    return rec


# ---------------------------------------------------------------------------------------------
# Figures


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion k/n."""
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def report(title: str, a: str, b: str, recs: list[MatchRecord], elapsed: float) -> str:
    n = len(recs)
    won = sum(r.a_won for r in recs)
    lo, hi = wilson(won, n)
    pts = [p for r in recs for p in r.round_points]
    # Interval of the mean over matches (rounds within a match are not independent).
    per_match = [sum(r.round_points) / max(1, len(r.round_points)) for r in recs]
    mean = sum(pts) / len(pts) if pts else 0.0
    half = 1.96 * statistics.stdev(per_match) / math.sqrt(n) if n > 1 else float("nan")
    lines = [f"== {title}: {a} (A) vs {b} (B), {n} matches to {TARGET}, {elapsed:.0f} s"]
    lines.append(f"matches won by A: {won}/{n} = {won / n:.1%}  (95% CI {lo:.1%} .. {hi:.1%})")
    total_rounds = len(pts)
    draws = sum(r.draws for r in recs)
    for side, name in (("A", a), ("B", b)):
        s = [r.sides[side] for r in recs]
        dec = [t for x in s for t in x.decisions]
        lines.append(
            f"  {side} {name:<16} rounds won {sum(x.rounds_won for x in s):>5}/{total_rounds}"
            f"  gins {sum(x.gins for x in s):>4}  knocks {sum(x.knocks for x in s):>5}"
            f"  undercuts suffered {sum(x.undercuts_suffered for x in s):>4}"
            f"  s/decision p50 {pct(dec, .5):.5f} p95 {pct(dec, .95):.5f} ({len(dec)} decisions)")
    lines.append(f"  draws (wall) {draws}; A's net points per round {mean:+.2f} (95% CI {mean - half:+.2f} .. "
                 f"{mean + half:+.2f}, by match)")
    fb = sum(r.fallbacks for r in recs)
    if fb:
        lines.append(f"  adapter fallbacks: {fb}")
    return "\n".join(lines)


def run(fn, a: str, b: str, matches: int, jobs: int, budget: float, seed: int, variant: str):
    pairs = (matches + 1) // 2
    tasks = [(p, sw, a, b, budget, seed, variant) for p in range(pairs) for sw in (False, True)][:matches]
    t = time.time()
    recs = []
    step = max(1, len(tasks) // 10)

    def progress(rec):
        recs.append(rec)
        if len(recs) % step == 0:
            print(f"  ... {len(recs)}/{len(tasks)} matches, {time.time() - t:.0f} s", file=sys.stderr, flush=True)

    if jobs > 1:
        with Pool(jobs) as pool:
            for rec in pool.imap_unordered(fn, tasks, chunksize=1):
                progress(rec)
    else:
        for x in tasks:
            progress(fn(x))
    return recs, time.time() - t


def summary(a: str, rows: list[tuple[str, list[MatchRecord]]]) -> str:
    """The gauntlet's table (Markdown): per opponent, A's matches won with the 95% Wilson interval,
    A's net points per round, and the undercuts each side suffered."""
    lines = [f"| {a} vs | matches | {a} won | 95% interval | net points/round | undercuts suffered by {a} "
             f"| by the opponent |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for b, recs in rows:
        n = len(recs)
        won = sum(r.a_won for r in recs)
        lo, hi = wilson(won, n)
        pts = [p for r in recs for p in r.round_points]
        mean = sum(pts) / len(pts) if pts else 0.0
        ua = sum(r.sides["A"].undercuts_suffered for r in recs)
        ub = sum(r.sides["B"].undercuts_suffered for r in recs)
        lines.append(f"| {b} | {n} | {won / n:.1%} | {lo:.1%} .. {hi:.1%} | {mean:+.2f} | {ua} | {ub} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", default="strong", help="level A (random, simple, strong)")
    ap.add_argument("--b", default="simple", help="level B, or an opponent style: " + ", ".join(STYLES))
    ap.add_argument("--gauntlet", action="store_true",
                    help="A against simple, random and every style (--matches each); implies --openspiel 0")
    ap.add_argument("--matches", type=int, default=400, help="matches in our engine (even: duplicate pairs)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--budget", type=float, default=0.2, help="strong level's seconds of search per turn")
    ap.add_argument("--cpu-clock", action="store_true",
                    help="measure --budget in CPU seconds of the process (time.process_time), not wall seconds")
    ap.add_argument("--iterations", type=int, default=None,
                    help="instead of --budget: the strong level's playouts per decision (no clock)")
    ap.add_argument("--seed", type=int, default=1, help="deal sequence seed")
    ap.add_argument("--variant", default="oklahoma", choices=["oklahoma", "classic"])
    ap.add_argument("--openspiel", type=int, default=None,
                    help="matches of A against OpenSpiel's simple bot (default: --matches; 0 skips)")
    ap.add_argument("--strong-opts", default="{}",
                    help='JSON object of strong-policy attributes to override, e.g. \'{"search_discards": 1}\'')
    args = ap.parse_args(argv)
    STRONG_OPTS.update(json.loads(args.strong_opts))
    STRONG_BUDGET.update(iterations=args.iterations, cpu_clock=args.cpu_clock)
    budget_text = (f"{args.iterations} playouts/decision" if args.iterations else
                   f"{args.budget} {'CPU' if args.cpu_clock else 'wall'} s/turn")
    print(f"budget {budget_text} for strong; seed {args.seed}; jobs {args.jobs}; variant {args.variant}"
          + (f"; strong options {json.dumps(STRONG_OPTS, sort_keys=True)}" if STRONG_OPTS else ""))
    if args.gauntlet:
        rows = []
        for b in ("simple", "random", *STYLES):
            recs, el = run(play_engine_match, args.a, b, args.matches, args.jobs, args.budget, args.seed,
                           args.variant)
            print(report("okgin engine", args.a, b, recs, el), flush=True)
            rows.append((b, recs))
        print(summary(args.a, rows), flush=True)
        return 0
    if args.matches > 0:
        recs, el = run(play_engine_match, args.a, args.b, args.matches, args.jobs, args.budget, args.seed,
                       args.variant)
        print(report("okgin engine", args.a, args.b, recs, el), flush=True)
    n_os = args.matches if args.openspiel is None else args.openspiel
    if n_os > 0:
        try:
            import pyspiel  # noqa: F401
        except ImportError:
            print("open-spiel is not installed: skipping the OpenSpiel pairing")
            return 0
        recs, el = run(play_openspiel_match, args.a, "openspiel-simple", n_os, args.jobs, args.budget,
                       args.seed, "oklahoma")
        print(report("OpenSpiel gin_rummy (oklahoma=True)", args.a, "openspiel-simple", recs, el), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
