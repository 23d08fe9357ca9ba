"""The ``strong`` level: card tracking, opponent-hand estimation, expected-deadwood discards,
expected-value knocking and a determinized Monte Carlo search bounded by a time budget per turn.

How a decision is made (only the :class:`PlayerView` is read):

1. :func:`~.knowledge.read_knowledge` tracks the dead cards (the discard pile), the opponent's
   known cards (taken from the discard pile, R6.1) and weights every unseen card by how likely the
   opponent holds it, from what it threw, declined and took.
2. Discards without a knock on offer are ranked by a heuristic: the *expected* deadwood of the
   remaining ten cards after the next stock draw (:func:`expected_deadwood`, over the live cards
   only, each weighted by the chance it is in the stock rather than the opponent's hand), so
   connected cards with live outs are kept and cards whose partners are dead are let go; plus
   a share of the deadwood held right after the discard, growing as the stock runs out (an
   opponent that knocks early punishes high cards kept for later), and a cost for the chance
   the discard completes a meld with cards the opponent holds (known from what it took, or
   estimated by :func:`opponent_holds`), so it is not fed. The best ``search_discards`` (12)
   within ``discard_margin`` (25 points) of the heuristic's best are then compared by search;
   the heuristic's best is the default the others must clearly beat, and candidates clearly
   behind the leader are dropped as samples come in (``prune``), so the budget goes to the close
   ones.
3. Other decisions are compared by search too: take or pass the upcard (R5), draw from the
   stock or the discard pile (R6.1), and, when a knock is legal, the best knock (R7.2) against the
   two best discards. Obvious moves (one legal action, gin, a discard-pile top with no partner in
   the hand, a single discard within the margin) are played at once.
4. Determinized Monte Carlo: repeatedly sample the opponent's hidden hand (weighted) and the stock
   order consistent with the view. With the adaptive opponent model (``opponent_model="adaptive"``,
   the default; :mod:`.opponent`) a drawn hand is kept with probability the likelihood of the
   opponent's last two turns under a style estimated from this match (its knock threshold, how
   often it throws its least-deadwood card, what it takes and lets pass, learned from the hands
   revealed at the end of each round and its public moves; a baseline prior until then); up to
   ``filter_tries`` more draws per determinization, then the most likely hand drawn: no hand is
   ruled out. The playouts let the opponent knock only at the estimated threshold. Against an
   opponent estimated to pass up knocks (threshold below the knock limit: a gin hunter, a
   cautious player) a drawn hand is first improved as a waiting player improves it
   (:func:`evolve_hand`, ``evolve``: half its stock draws this round replayed, keeping the
   least-deadwood cards), since its real hand has had those draws to get better; weighted
   draws alone gave such hands far more deadwood than the real ones. Against an opponent
   estimated to knock when it may (the baseline), a quarter of its stock draws are replayed
   (``evolve_baseline``): the likelihood of its last two turns alone left the sampled hands
   about 3 points weaker than the real ones. The earlier
   model (``opponent_model="filter"``) keeps only hands that explain the last two turns as the
   baseline would play them (:func:`plausible`: each discard its least-deadwood discard, no knock
   passed up), which brought the sampled hands' deadwood close to a baseline opponent's (real 29.7
   points, unfiltered samples 42.6, filtered 31.8) but rules out the real hand of an opponent that
   plays otherwise. Every candidate is scored on the same
   sample (common random numbers): a knock is scored exactly against the sampled hand (lay-offs
   and undercut risk included, R7.6, R9.3), which also makes a discard that feeds the sampled
   opponent's melds costly; other actions are followed by a heuristic playout of the rest of
   the round (:mod:`.playout`), so waiting for gin or a lower count, and the approaching wall
   (R8), are weighed by expected points.
5. The search stops when the decision's share of the time budget is spent (seconds, read from the
   injectable ``clock``; a turn's budget is split between its two decisions, ``draw_share`` for
   the upcard or draw, the rest for the discard or knock, so a whole turn stays within it),
   when ``max_iterations`` playouts were run (with no time budget this iteration budget is the
   only limit and no clock is read: the choice is the same on any machine), or (``early_stop``) when one candidate leads the
   others by a clear statistical margin. The candidate with the best mean points is played if it
   beats the heuristic default (candidate 0) by ``confidence`` standard errors; else the default.
   With ``match_equity`` a playout's points are first turned into the chance of winning the match
   after them (:mod:`.equity`, R10.1), so near the end of a match a safe small win can beat a
   larger expected score.
6. A knock names its melds (R7.4): among the least-deadwood arrangements of the ten cards kept,
   the one with the best mean points against the opponent hands sampled by the search (lay-offs
   included, R7.6), the engine's default arrangement (RULES.md, note to R7.4) unless another does
   strictly better on those samples.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Callable

from ..actions import Action, Discard, DrawDiscard, DrawStock, Knock, PassUpcard, TakeUpcard
from ..cards import mask_cards
from ..melds import FULL_MASK, mask_knock_arrangement, mask_least_deadwood_meld_sets, sort_meld
from ..views import PlayerView
from .base import decision_rng, forbidden_mask
from .equity import MAX_TARGET, equity_after
from .knowledge import _PARTNERS, Knowledge, mask_indices, read_knowledge, sample_hidden
from .opponent import BASELINE_PRIOR, GREEDY_MEAN, OpponentModel, Style, turn_likelihood
from .playout import (RANK, VALUE, SimRules, best_discard, knock_deadwoods, knock_points, min_deadwood,
                      play_out, wants_card)


def _identity(points: int) -> int:
    return points


def stock_odds(k: Knowledge) -> list[tuple[int, float]]:
    """``[(card_index, probability it is the next stock card)]`` over the unseen cards: a card
    likely to be in the opponent's hand (by :attr:`Knowledge.weights`) is less likely in the stock."""
    cards = mask_indices(k.unseen)
    if not cards:
        return []
    total_w = sum(k.weights[c] for c in cards)
    hidden = k.opp_hidden
    probs = [(c, max(0.0, 1.0 - hidden * k.weights[c] / total_w)) for c in cards]
    norm = sum(p for _, p in probs) or 1.0
    return [(c, p / norm) for c, p in probs]


def expected_deadwood(hand10: int, draws: list[tuple[int, float]]) -> float:
    """Expected least deadwood (points) of a ten-card hand after one more stock draw and the best
    discard (R2.4): a one-ply look-ahead that values connected cards with live outs."""
    total = 0.0
    for c, p in draws:
        total += p * best_discard(hand10 | 1 << c, 0)[0]
    return total


def opponent_holds(k: Knowledge) -> list[float]:
    """Per card index, the estimated probability (0..1) that the opponent holds it: 1 for its
    known cards, 0 for own and dead cards, and for unseen cards its share of the hidden cards
    by :attr:`Knowledge.weights`."""
    p = [0.0] * 52
    cards = mask_indices(k.unseen)
    total_w = sum(k.weights[c] for c in cards) or 1.0
    for c in cards:
        p[c] = min(1.0, k.opp_hidden * k.weights[c] / total_w)
    for c in mask_indices(k.opp_known):
        p[c] = 1.0
    return p


def meld_chance(card: int, p: list[float]) -> float:
    """Approximate probability (0..1) that ``card`` completes a meld with two cards the
    opponent holds (a set, R2.1, or a run, R2.2), treating the cards as independent."""
    suit, rank = divmod(card, 13)
    pairs = []
    others = [s * 13 + rank for s in range(4) if s != suit]
    pairs.append((others[0], others[1]))
    pairs.append((others[0], others[2]))
    pairs.append((others[1], others[2]))
    base = suit * 13
    for lo, hi in ((-2, -1), (-1, 1), (1, 2)):
        if 0 <= rank + lo and rank + hi <= 12:
            pairs.append((base + rank + lo, base + rank + hi))
    miss = 1.0
    for a, b in pairs:
        miss *= 1.0 - p[a] * p[b]
    return 1.0 - miss


def _explains(hand11: int, took: int | None, discard: int, rules: SimRules, knock_check: bool) -> bool:
    """Whether discarding ``discard`` (card index) from the eleven cards ``hand11`` (mask) is what
    a player following the baseline's discard rule does: its least-deadwood discard (R2.4; ties
    to the higher value, then rank, then index, as :func:`~.playout.best_discard`), never the card
    ``took`` just taken from the discard pile when R6.3 is in force (``rules.forbid``), and, with
    ``knock_check``, no knock possible after it (R7.2: a knock is optional, R7.3, but the baseline
    knocks whenever it can)."""
    forbidden = (1 << took) if (took is not None and rules.forbid) else 0
    dw, card = best_discard(hand11, forbidden)
    return card == discard and (not knock_check or dw > rules.knock_limit)


def plausible(opp: int, k: Knowledge, rules: SimRules, knock_check: bool = True,
              depth: int = 1) -> bool:
    """Whether a sampled opponent hand ``opp`` (mask of its ten cards) explains its last turn
    (``depth`` 1) or last two turns (``depth`` >= 2) of ``k.opp_turns`` by :func:`_explains`:
    each discard its least-deadwood discard, not a card it had just taken when R6.3 is in force,
    and (``knock_check``) no knock passed up. For the turn before the last, the hand then is
    rebuilt from ``opp``: plus the last discard, minus the card drawn on the last turn. That card
    is known when it came from the discard pile; from the stock it may have been any card of
    ``opp`` not known to the seat, or the last discard itself unless the opponent had taken that
    one from the discard pile earlier (it was already in its hand). True when the opponent has
    not discarded yet. Raises nothing; reads only what the seat's view shows."""
    turns = k.opp_turns
    if not turns:
        return True
    took, d = turns[-1]
    hand11 = opp | 1 << d
    if not _explains(hand11, took, d, rules, knock_check):
        return False
    if depth < 2 or len(turns) < 2:
        return True
    took2, d2 = turns[-2]
    if took is not None:
        return _explains((hand11 & ~(1 << took)) | 1 << d2, took2, d2, rules, knock_check)
    # Drawn from the stock: one of the cards not known to be in its hand before this turn.
    x_options = mask_indices(opp & ~k.opp_known)
    if all(t != d for t, _ in turns[:-1]):
        x_options.append(d)
    for x in x_options:
        if _explains((hand11 & ~(1 << x)) | 1 << d2, took2, d2, rules, knock_check):
            return True
    return False


def evolve_hand(opp: int, stock: list[int], keep: int, draws: int, rng: random.Random
                ) -> tuple[int, list[int]]:
    """A sampled opponent hand improved as a player who waits improves it: ``draws`` times, a
    random card of ``stock`` (card indices) joins the ten cards of ``opp`` (mask) and the
    least-deadwood discard (R2.4; never a card of ``keep``, the cards the seat knows it holds)
    goes back to the stock. Returns ``(hand_mask, stock)``, the stock shuffled again (a fresh
    order; the same cards as before, less the hand's new cards, plus its old ones). Raises
    nothing; ``stock`` is not modified."""
    pool = list(stock)
    n = len(pool)
    if n == 0 or draws <= 0:
        return opp, stock
    for _ in range(draws):
        j = rng.randrange(n)
        c = pool[j]
        _dw, d = best_discard(opp | 1 << c, keep)
        if d >= 0 and d != c:
            opp = (opp | 1 << c) & ~(1 << d)
            pool[j] = d
    rng.shuffle(pool)
    return opp, pool


@dataclass
class SearchStats:
    """What the last decision's search did: ``iterations`` (playouts and knock evaluations run),
    ``determinizations`` (complete samples, each scoring every candidate), ``candidates`` (the
    actions compared), ``means`` (mean points per candidate over complete samples; with
    ``match_equity``, the mean chance of winning the match), ``elapsed``
    (seconds by the policy's clock; 0 without a time budget), ``searched`` (False when the move was obvious)."""

    iterations: int = 0
    determinizations: int = 0
    candidates: list = field(default_factory=list)
    means: list = field(default_factory=list)
    elapsed: float = 0.0
    searched: bool = False
    chosen: int = 0


class StrongPolicy:
    """The strongest level; see the module docstring for the method.

    ``seed``: an int makes decisions reproducible given the view and the clock's readings;
    ``time_budget``: seconds of search per turn (default 0.2), of which an upcard or draw decision
    (R5, R6.1) may use ``draw_share`` (0.3) and a discard or knock decision (R6.2, R7) the rest,
    or None for no time limit: then ``max_iterations`` is the iteration budget and the clock is
    never read, so the choice does not depend on machine load (what tests use);
    ``clock``: a zero-argument
    function returning seconds (default ``time.perf_counter``); ``max_iterations``: a cap on
    playouts per decision (None: none; required without a time budget); ``early_stop``: stop when the leader is clear (default True);
    ``max_discards``: how many discards are compared with a legal knock; ``search_discards`` and
    ``discard_margin`` (points of the heuristic score): how many discards, at most, are compared
    by search when no knock is legal, and how far behind the heuristic's best they may be;
    ``confidence``: how many
    standard errors a candidate must gain over the heuristic default to be played instead
    (guards against choosing on noise when the budget is small); ``waiting_knock_confidence``
    (3.0; None: ``confidence``): that margin when the default is a knock (R7) and the adaptive
    model estimates the opponent's knock threshold below the knock limit (it waits for a lower
    deadwood or gin, R7.2): how much better a discard must look to play on instead of knocking
    (a waiting opponent's hand only gets better: against the gin hunter of ``ai_strength.py``,
    3.0 won 72.0% of 800 matches where 1.5 won 67.8% of the same deals; docs/ai.md);
    ``filter_tries`` (20): how many
    more opponent hands a determinization may draw to find a :func:`plausible` one (0: no
    filter), checking ``filter_depth`` (2) of the opponent's turns (beyond 2 an approximate
    likelihood, :func:`~.opponent.turn_likelihood`), with (``filter_knock``) or
    without the assumption that it knocks when it can, and (``filter_reuse``) falling back to
    a plausible hand found earlier in the same search; ``opponent_model``: ``"adaptive"`` (the
    default: hands weighted by the likelihood of the opponent's turns under the style estimated
    in ``model``, an :class:`~.opponent.OpponentModel` fed by every view this policy sees) or
    ``"filter"`` (the baseline-only filter above); ``evolve`` (0.5): with the adaptive model,
    against an opponent whose estimated knock threshold is below the knock limit (R7.2), each
    drawn hand first replays this fraction of the opponent's stock draws this round
    (:func:`evolve_hand`; 0: off); ``evolve_baseline`` (0.25; 0: off; a fraction from 0 to 1,
    with the adaptive model only): the same against an opponent estimated to knock when it may
    (the baseline: over simple-vs-simple rounds 0.25 brought the samples' least deadwood from
    32.3 to 28.4 points against the real hands' 29.0, and the share of the real hidden cards a
    sample holds from 0.411 to 0.421, ``benchmarks/opponent_samples.py``; against ``simple`` it
    won 614 of 800 matches where 0 won 580 of the same deals, docs/ai.md); ``match_equity`` (False): compare candidates by the chance of
    winning the match after the round (R10.1, :func:`~.equity.equity_after` from the view's
    scores) instead of the round's points, for targets up to :data:`~.equity.MAX_TARGET` points;
    ``prune`` (2.0; 0.0: off): after ``prune_after`` (8) complete samples, and every 4 after, drop
    the candidates (never the default, candidate 0) that trail the leader by more than this many
    standard errors of the paired difference, so the rest of the budget goes to the close ones
    (:meth:`_pruned`). With 12 discards within 25 points it gained +2.33 (SE 0.76) and +1.07
    (SE 0.82) points per round over 8 discards within 15 without pruning in two paired duels at
    0.1 CPU s, and won 72.5% of 800 matches against simple where that won 71.2% (docs/ai.md);
    ``knock_prior`` (0.5): with the adaptive model, the prior probability (0 < p < 1) that the
    opponent knocks at its first chance (knock threshold 10, R7.2) before this match shows
    otherwise (:func:`~.opponent.threshold_prior`; the rest spread over thresholds 0..9);
    ``greedy_prior`` (0.8): with the adaptive model, the prior chance (0 < p < 1) that an
    opponent's discard is its least-deadwood one (R2.4), worth 5 discards of evidence
    (:func:`~.opponent.greedy_prior`).
    After each ``choose``, ``last_stats`` is a :class:`SearchStats`. Raises ``ValueError`` for a negative budget, for
    neither a time budget nor an iteration cap, for another ``opponent_model``, and (``choose``) when the view has no legal action.
    """

    level = "strong"
    # Discard heuristic weights (points of expected deadwood): the weight of the deadwood held
    # right after the discard (``now_weight`` early, plus ``now_weight_late`` as the stock runs
    # out) and the cost per unit chance that the discard completes a meld for the opponent.
    now_weight = 1.0
    now_weight_late = 1.5
    feed_weight = 8.0

    def __init__(self, *, seed: int | None = None, time_budget: float | None = 0.2,
                 clock: Callable[[], float] = time.perf_counter, max_iterations: int | None = None,
                 early_stop: bool = True, max_discards: int = 2, confidence: float = 1.5,
                 search_discards: int = 12, discard_margin: float = 25.0, draw_share: float = 0.3,
                 filter_tries: int = 20, filter_knock: bool = True, filter_depth: int = 2,
                 filter_reuse: bool = True, opponent_model: str = "adaptive", evolve: float = 0.5,
                 evolve_baseline: float = 0.25,
                 waiting_knock_confidence: float | None = 3.0, match_equity: bool = False,
                 prune: float = 2.0, prune_after: int = 8, knock_prior: float = BASELINE_PRIOR,
                 greedy_prior: float = GREEDY_MEAN):
        if time_budget is not None and time_budget < 0:
            raise ValueError("time_budget must be >= 0 seconds")
        if time_budget is None and (max_iterations is None or max_iterations < 1):
            raise ValueError("without a time_budget, max_iterations (the iteration budget) must be >= 1")
        if opponent_model not in ("adaptive", "filter"):
            raise ValueError("opponent_model must be 'adaptive' or 'filter'")
        self.opponent_model = opponent_model
        self.model = OpponentModel()
        self._style: Style | None = None
        self.seed = seed
        self.time_budget = time_budget
        self.clock = clock
        self.max_iterations = max_iterations
        self.early_stop = early_stop
        self.max_discards = max_discards
        self.confidence = confidence
        self.waiting_knock_confidence = confidence if waiting_knock_confidence is None else waiting_knock_confidence
        self.search_discards = search_discards
        self.discard_margin = discard_margin
        self.draw_share = draw_share
        self.filter_tries = filter_tries
        self.filter_knock = filter_knock
        self.filter_depth = filter_depth
        self.filter_reuse = filter_reuse
        self.evolve = evolve
        self.evolve_baseline = evolve_baseline
        self.match_equity = match_equity
        self.prune = prune
        self.prune_after = prune_after
        self.knock_prior = knock_prior
        self.greedy_prior = greedy_prior
        self._rng = random.Random(seed if seed is not None else random.SystemRandom().getrandbits(64))
        self.last_stats = SearchStats()

    # ------------------------------------------------------------------------------------------

    def choose(self, view: PlayerView) -> Action:
        legal = view.legal_actions
        if not legal:
            raise ValueError("no legal action in this view: it is not this seat's turn")
        self.last_stats = SearchStats()
        self.model.observe(view)
        if len(legal) == 1:
            return legal[0]
        k = read_knowledge(view)
        adaptive = self.opponent_model == "adaptive"
        self._style = self.style_estimate()
        rules = SimRules(
            knock_limit=view.knock_limit, gin_bonus=view.rules.gin_bonus,
            undercut_bonus=view.rules.undercut_bonus,
            multiplier=view.rules.multiplier_for(view.first_upcard),
            forbid=view.rules.forbid_discarding_drawn_upcard,
            opp_threshold=self._style.threshold if adaptive else None)
        cands = self._candidates(view, k, rules)
        if len(cands) == 1:
            return cands[0]
        rng = decision_rng(self.seed, view, self._rng)
        return self._search(view, k, rules, cands, rng)

    # ------------------------------------------------------------------------------------------
    # Candidates

    def _candidates(self, view: PlayerView, k: Knowledge, rules: SimRules) -> list[Action]:
        legal = view.legal_actions
        hand = k.own
        top = view.upcard
        if view.phase == "upcard":
            # Take first when the baseline would: the search decides anyway.
            if wants_card(hand, top.index, rules):
                return [TakeUpcard(), PassUpcard()]
            if not self._worth_considering(hand, top.index):
                return [PassUpcard()]
            return [PassUpcard(), TakeUpcard()]
        if view.phase == "draw":
            if not any(isinstance(a, DrawDiscard) for a in legal):
                return [DrawStock()]
            if wants_card(hand, top.index, rules):
                return [DrawDiscard(), DrawStock()]
            if not self._worth_considering(hand, top.index):
                return [DrawStock()]
            return [DrawStock(), DrawDiscard()]
        # discard phase: the best knock (if any), then discards by expected deadwood after the
        # next draw (dead cards excluded), with the least-deadwood discard as a tie-break.
        forbidden = forbidden_mask(view)
        dws = knock_deadwoods(hand, forbidden)
        knocks = [a for a in legal if isinstance(a, Knock)]
        out: list[Action] = []
        if knocks:
            best = min(knocks, key=lambda a: (dws[a.card.index], -VALUE[a.card.index],
                                              -RANK[a.card.index], -a.card.index))
            if dws[best.card.index] == 0:
                return [best]  # gin (R7.7): nothing beats it
            out.append(best)
        draws = stock_odds(k)
        discards = [a for a in legal if isinstance(a, Discard)]
        # Against an opponent that knocks as soon as it can, the deadwood held now matters more
        # and more as the stock shrinks; a discard the opponent can meld feeds its next knock.
        progress = 1.0 - min(1.0, k.stock_size / 31.0)
        now_w = self.now_weight + self.now_weight_late * progress
        p_opp = opponent_holds(k)
        feed_w = self.feed_weight

        def score(a: Discard) -> tuple:
            c = a.card.index
            e = expected_deadwood(hand & ~a.card.bit, draws)
            e += now_w * dws[c]
            if feed_w:
                e += feed_w * meld_chance(c, p_opp)
            return (e, dws[c], -VALUE[c], -c)

        keyed = sorted((score(a), i, a) for i, a in enumerate(discards))
        scored = [a for _, _, a in keyed]
        if not out:
            # No knock to weigh: the heuristic's best discard, and the next ones when their
            # heuristic scores are close, are compared by search.
            top = keyed[0][0][0]
            close = [a for key, _, a in keyed[:self.search_discards]
                     if key[0] - top <= self.discard_margin]
            return close
        return out + scored[:self.max_discards]

    @staticmethod
    def _worth_considering(hand: int, card: int) -> bool:
        """A discard-pile top that has no meld partner in the hand and is not a low card is not
        worth a search: drawing from the stock is played at once."""
        for p, _d in _PARTNERS[card]:
            if hand >> p & 1:
                return True
        return VALUE[card] <= 3

    def budget_for(self, view: PlayerView) -> float | None:
        """Seconds of search this decision may use: ``draw_share`` of the turn's ``time_budget``
        for an upcard or draw decision (R5, R6.1), the rest for a discard or knock (R6.2, R7);
        None without a time budget (an iteration budget only)."""
        if self.time_budget is None:
            return None
        if view.phase in ("upcard", "draw"):
            return self.time_budget * self.draw_share
        return self.time_budget * (1.0 - self.draw_share)

    # ------------------------------------------------------------------------------------------
    # Search

    def _search(self, view: PlayerView, k: Knowledge, rules: SimRules, cands: list[Action],
                rng: random.Random) -> Action:
        clock = self.clock
        budget = self.budget_for(view)
        cap = self.max_iterations
        timed = budget is not None
        start = clock() if timed else 0.0
        unseen = mask_indices(k.unseen)
        pile = [c.index for c in view.discard_pile]
        nc = len(cands)
        sums = [0.0] * nc
        rows: list[list[int]] = []
        iterations = 0
        stop = False
        i_am_dealer = view.seat == view.dealer
        pool: list[int] = []
        opps: list[int] = []  # the opponent hand of each complete sample
        value = self._valuer(view)
        # The candidates still compared: all of them, unless ``prune`` drops the clearly worse
        # ones (never the default, candidate 0). A dropped candidate's later entries are None,
        # so every candidate still active has a value in every row.
        active = list(range(nc))
        counts = [0] * nc
        while not stop:
            opp, stock = self._sample(k, rules, rng, unseen, pool)
            row: list = [None] * nc
            for i in active:
                if (timed and clock() - start >= budget) or (cap is not None and iterations >= cap):
                    stop = True
                    break
                row[i] = value(self._evaluate(cands[i], k.own, opp, stock, pile, rules, view, i_am_dealer))
                iterations += 1
            else:  # a complete sample: every active candidate scored
                rows.append(row)
                opps.append(opp)
                for i in active:
                    sums[i] += row[i]
                    counts[i] += 1
                n = len(rows)
                if self.prune and n >= self.prune_after and n % 4 == 0 and len(active) > 2:
                    active = self._pruned(rows, sums, active, self.prune)
                if self.early_stop and n >= 24 and n % 8 == 0 and self._clear(rows, sums, active):
                    stop = True
        n = len(rows)
        st = self.last_stats
        st.iterations = iterations
        st.determinizations = n
        st.candidates = [a.to_dict() for a in cands]
        st.means = [s / c for s, c in zip(sums, counts)] if n else []
        st.elapsed = clock() - start if timed else 0.0
        st.searched = True
        if n == 0:
            return cands[0]
        best = max(active, key=lambda i: (sums[i], -i))
        conf = self.confidence
        if type(cands[0]) is Knock and self._opponent_waits(rules):
            conf = self.waiting_knock_confidence  # the opponent waits: playing on gives it time
        if best != 0 and not self._beats_default(rows, best, conf):
            best = 0
        st.chosen = best
        if type(cands[best]) is Knock:
            return self._arrange_knock(cands[best], view, k, rules, opps)
        return cands[best]

    def _arrange_knock(self, knock: Knock, view: PlayerView, k: Knowledge, rules: SimRules,
                       opps: list[int]) -> Knock:
        """The knock with the melds to lay (R7.4): among the least-deadwood arrangements of the ten
        cards kept, the best mean points against the opponent hands sampled by the search
        (lay-offs included, R7.6); the engine's default arrangement (RULES.md, note to R7.4) unless
        another does strictly better on these samples. Without a choice, or for gin (no lay-offs,
        R9.4), the knock is returned as it is (the engine arranges it)."""
        hand = k.own & ~knock.card.bit
        options = mask_least_deadwood_meld_sets(hand)
        if len(options) < 2 or not opps or min_deadwood(hand) == 0:
            return knock
        live = FULL_MASK & ~k.own & ~k.dead
        default = mask_knock_arrangement(hand, live, k.opp_known)
        best, best_total = default, sum(knock_points(hand, opp, rules, default) for opp in opps)
        for ms in options:
            if ms != default:
                total = sum(knock_points(hand, opp, rules, ms) for opp in opps)
                if total > best_total:
                    best, best_total = ms, total
        return Knock(knock.card, tuple(sort_meld(mask_cards(m)) for m in best))

    def _sample(self, k: Knowledge, rules: SimRules, rng: random.Random, unseen: list[int],
                pool: list[int]) -> tuple[int, list[int]]:
        """One determinization ``(opponent_hand_mask, stock)``: weighted samples of the opponent's
        hidden cards (:func:`~.knowledge.sample_hidden`) until one is :func:`plausible`, at most
        ``1 + filter_tries`` draws; when none is, a plausible hand found earlier in this search
        (``pool``) is used again with a fresh stock order (``filter_reuse``), else the last draw."""
        opp, stock = sample_hidden(k, rng, unseen)
        if not self.filter_tries or not k.opp_turns:
            return opp, stock
        if self.opponent_model == "adaptive":
            return self._sample_adaptive(k, rules, rng, unseen, opp, stock)
        for attempt in range(self.filter_tries + 1):
            if attempt:
                opp, stock = sample_hidden(k, rng, unseen)
            if plausible(opp, k, rules, self.filter_knock, self.filter_depth):
                pool.append(opp)
                return opp, stock
        if self.filter_reuse and pool:
            opp = pool[rng.randrange(len(pool))]
            stock = [c for c in unseen if not opp >> c & 1]
            rng.shuffle(stock)
        return opp, stock

    def style_estimate(self) -> Style | None:
        """The opponent style the adaptive model estimates now (``model`` under ``knock_prior`` and
        ``greedy_prior``), or None with the ``"filter"`` model; what :meth:`choose` searches under."""
        if self.opponent_model != "adaptive":
            return None
        return self.model.style(self.knock_prior, self.greedy_prior)

    def _opponent_waits(self, rules: SimRules) -> bool:
        """True when the adaptive model estimates the opponent's knock threshold below the knock
        limit (it passes up knocks, R7.2); False without an estimate (the prior's threshold, 10, is
        never below a knock limit)."""
        return self._style is not None and self._style.threshold < rules.knock_limit

    def _sample_adaptive(self, k: Knowledge, rules: SimRules, rng: random.Random, unseen: list[int],
                         opp: int, stock: list[int]) -> tuple[int, list[int]]:
        """The adaptive model's determinization: a drawn opponent hand is kept with probability
        :func:`~.opponent.turn_likelihood` under the estimated style (``self._style``), so hands
        are sampled in proportion to their weight times that likelihood; after ``filter_tries``
        more draws, the most likely hand drawn is used. No hand is ever ruled out."""
        style = self._style if self._style is not None else Style()
        best = (-1.0, opp, stock)
        depth = self.filter_depth
        replays = 0
        share = self.evolve if self._opponent_waits(rules) else self.evolve_baseline
        if share:
            replays = int(share * sum(1 for took, _ in k.opp_turns if took is None) + 0.5)
        for attempt in range(self.filter_tries + 1):
            if attempt:
                opp, stock = sample_hidden(k, rng, unseen)
            if replays:
                opp, stock = evolve_hand(opp, stock, k.opp_known, replays, rng)
            u = rng.random()
            # The exact likelihood is needed only when it might accept (u below it) or beat the
            # best hand so far; when the last turn's factor (an upper bound) does neither, the
            # outcome is the same with it.
            a = turn_likelihood(opp, k, style, rules, depth, below=min(u, best[0]))
            if u < a:
                return opp, stock
            if a > best[0]:
                best = (a, opp, stock)
        return best[1], best[2]

    def _valuer(self, view: PlayerView) -> Callable[[int], float]:
        """What a playout's result (points for this seat, negative when the opponent scores) is
        worth to the search: the points themselves, or with ``match_equity`` the chance (0..1) of
        winning the match after them (:func:`~.equity.equity_after`, R10.1, a table lookup);
        points for a match longer than :data:`~.equity.MAX_TARGET` (its table would be too big)."""
        scores, seat, target = view.scores, view.seat, view.rules.target_score
        if not self.match_equity or target > MAX_TARGET:
            return _identity
        return lambda points: equity_after(points, scores, seat, target)

    @staticmethod
    def _beats_default(rows: list[list[int]], i: int, confidence: float) -> bool:
        """True when candidate ``i`` beats the heuristic default (candidate 0) by more than
        ``confidence`` standard errors of the paired difference over the samples."""
        if len(rows) < 2:
            return False
        mean, se = StrongPolicy._paired(rows, i, 0)
        return mean > confidence * se

    @staticmethod
    def _paired(rows: list[list], i: int, j: int) -> tuple[float, float]:
        """``(mean, standard error)`` of candidate ``i``'s value minus candidate ``j``'s over
        ``rows`` (at least 2, both with a value in each), in points (or match equity)."""
        n = len(rows)
        diffs = [r[i] - r[j] for r in rows]
        mean = sum(diffs) / n
        var = sum((x - mean) ** 2 for x in diffs) / (n - 1)
        return mean, math.sqrt(var / n)

    @staticmethod
    def _pruned(rows: list[list], sums: list[float], active: list[int], z: float) -> list[int]:
        """The candidates of ``active`` (indices, all with a value in every row of ``rows``) that
        stay in the search: the leader (best sum), the default (candidate 0) and every other one
        whose paired deficit to the leader is not above ``z`` standard errors. Dropping the
        clearly worse ones leaves their playouts to the close contest (successive elimination)."""
        lead = max(active, key=lambda i: (sums[i], -i))
        keep = []
        for j in active:
            if j != lead and j != 0:
                mean, se = StrongPolicy._paired(rows, lead, j)
                if mean > z * se:
                    continue
            keep.append(j)
        return keep

    @staticmethod
    def _clear(rows: list[list], sums: list[float], active: list[int]) -> bool:
        """True when the leader's paired advantage over every other candidate still compared
        (``active``) is positive and at least 3 standard errors (an advantage that
        is the same on every sample counts as clear; a tie never does)."""
        lead = max(active, key=lambda i: sums[i])
        for j in active:
            if j == lead:
                continue
            mean, se = StrongPolicy._paired(rows, lead, j)
            if mean <= 0 or mean < 3.0 * se:
                return False
        return True

    @staticmethod
    def _evaluate(action: Action, own: int, opp: int, stock: list[int], pile: list[int],
                  rules: SimRules, view: PlayerView, i_am_dealer: bool) -> int:
        """Points for this seat of ``action`` on one determinization (``opp`` hand, ``stock``)."""
        stock = list(stock)
        pile = list(pile)
        t = type(action)
        if t is Knock:
            return knock_points(own & ~action.card.bit, opp, rules)
        if t is Discard:
            pile.append(action.card.index)
            if len(stock) <= 2:
                return 0
            return play_out([own & ~action.card.bit, opp], stock, pile, 1, "draw", 0, rules)
        if t is DrawStock:
            c = stock.pop()
            return play_out([own | 1 << c, opp], stock, pile, 0, "discard", 0, rules)
        if t is DrawDiscard or t is TakeUpcard:
            c = pile.pop()
            f = (1 << c) if rules.forbid else 0
            return play_out([own | 1 << c, opp], stock, pile, 0, "discard", f, rules)
        # PassUpcard (R5)
        if not i_am_dealer:
            top = pile[-1]
            if wants_card(opp, top, rules):  # the dealer takes it (R5.2)
                pile.pop()
                f = (1 << top) if rules.forbid else 0
                return play_out([own, opp | 1 << top], stock, pile, 1, "discard", f, rules)
            c = stock.pop()  # both passed: the non-dealer (this seat) draws (R5.4)
            return play_out([own | 1 << c, opp], stock, pile, 0, "discard", 0, rules)
        c = stock.pop()  # second pass: the non-dealer (opponent) draws from the stock (R5.4)
        return play_out([own, opp | 1 << c], stock, pile, 1, "discard", 0, rules)
