"""Game review (issue 16): one player's decisions of a match, judged by the strong evaluator.

``match_review(rules=..., first_dealer=..., decks=..., moves=..., seat=..., iterations=...)`` replays
the match from its deck orders and move log and, at each decision of ``seat`` (a move where it had
more than one legal action), rebuilds that seat's :func:`~.views.player_view` *before* the move: its
hand, the discard pile, the stock size, the opponent's pick-ups from the discard pile and this
round's history redacted for it (R4.3, R6.1). The evaluator is given that view and nothing else,
so the review of a decision is the same whatever the opponent's hidden cards or the stock order
were (only what the player could know is used).

Each decision is judged like the ``strong`` policy's search (``games/engine/ai/strong.py``, with its
opponent model fed the player's views of the match in order, as the policy is when it plays): the
policy's candidate actions for that view plus the action taken are scored on the same
determinizations (opponent hands and stock orders sampled from the view by the policy's own
sampler, common random numbers), each candidate followed by the policy's playout of the rest of
the round; a knock is scored exactly against each sampled defender hand with the melds laid
(lay-offs, undercut, R7.6, R9.3). The value of an action is the mean of the round's points for the
player (negative when the opponent scores). The evaluator's preferred action is the candidate with
the best mean (the taken action on a tie); the *expected loss* of the decision is the preferred
mean minus the taken action's mean (points, 0 when the taken action is preferred), with the
standard error of that paired difference over the determinizations.

A *mistake* is a decision whose expected loss is above :data:`MISTAKE_POINTS` points.

Budget: ``iterations`` playouts per decision in total (a determinization scores every candidate,
so ``iterations // candidates`` determinizations, at least 2); no clock is read, and the random
stream of each decision is derived from ``seed`` and the view (:func:`~.ai.base.decision_rng`), so a
review is a function of the views, the moves and the budget. With few determinizations the
preferred action is the best of several noisy means and the expected losses are biased upwards
(the best of n noisy estimates); the standard error shows how far to trust each one.

No framework imports here (the engine stays framework-free).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from .actions import Action, Knock, action_from_dict
from .ai.base import decision_rng
from .ai.knowledge import Knowledge, mask_indices, read_knowledge
from .ai.playout import SimRules, min_deadwood
from .ai.strong import StrongPolicy
from .cards import Card, cards_mask, mask_cards
from .errors import BadArgument
from .melds import FULL_MASK, best_defence, mask_knock_arrangement, mask_value
from .rules import RuleSet
from .state import MatchState, apply, deal, legal_actions, new_match
from .views import PlayerView, player_view

MISTAKE_POINTS = 3.0
"""A decision whose expected loss is above this many points is counted as a mistake."""

REVIEW_SEED = 16
"""The seed of every review's random streams (each decision's stream also depends on its view)."""

COSTLIEST_PER_ROUND = 3


@dataclass(frozen=True, slots=True)
class DecisionReview:
    """The review of one decision.

    ``round``: the round's number; ``seq``: the move's number in the match's move log (1, 2, ...);
    ``phase``: ``"upcard"``, ``"draw"`` or ``"discard"``; ``hand``: the player's cards before the
    move; ``upcard``: the top of the discard pile then (None when empty); ``action``: the action
    taken and ``best_action``: the evaluator's preferred one (JSON forms of
    :mod:`~.actions`); ``expected_loss``: points the taken action is expected to lose against the
    preferred one (>= 0); ``standard_error``: of that loss (points); ``samples``: determinizations
    scored; ``candidates``: actions compared (1: the move was forced by the evaluator's standards,
    e.g. gin, and nothing was searched).
    """

    round: int
    seq: int
    phase: str
    hand: tuple[Card, ...]
    upcard: Card | None
    action: dict
    best_action: dict
    expected_loss: float
    standard_error: float
    samples: int
    candidates: int

    @property
    def mistake(self) -> bool:
        """True when the expected loss is above :data:`MISTAKE_POINTS`."""
        return self.expected_loss > MISTAKE_POINTS

    def to_dict(self) -> dict:
        return {
            "round": self.round, "seq": self.seq, "phase": self.phase,
            "hand": [c.code for c in self.hand], "upcard": self.upcard.code if self.upcard else None,
            "action": self.action, "best_action": self.best_action,
            "expected_loss": round(self.expected_loss, 2), "standard_error": round(self.standard_error, 2),
            "mistake": self.mistake, "samples": self.samples, "candidates": self.candidates,
        }


def _same_action(a: Action, b: Action) -> bool:
    """Same action, a knock judged by its discard only when either leaves the melds to the engine."""
    if type(a) is not type(b):
        return False
    if isinstance(a, Knock):
        return a.card == b.card and (a.melds is None or b.melds is None or a == b)
    return a == b


def _knock_value(action: Knock, k: Knowledge, opp: int, rules: SimRules) -> int:
    """Points for the knocker of ``action`` against the sampled defender hand ``opp`` (mask): the
    melds named, or the engine's default arrangement for a knock without melds (RULES.md, note to
    R7.4, from what the knocker knows); gin when no deadwood is left (R7.7, R9.4, no lay-offs);
    else the defender's best defence with lay-offs (R7.6), a knock (R9.2) or an undercut (R9.3)."""
    hand = k.own & ~action.card.bit
    if action.melds is None:
        live = FULL_MASK & ~k.own & ~k.dead
        masks = mask_knock_arrangement(hand, live, k.opp_known)
    else:
        masks = tuple(cards_mask(m) for m in action.melds)
    used = 0
    for m in masks:
        used |= m
    kdw = mask_value(hand & ~used)
    if kdw == 0:
        return (min_deadwood(opp) + rules.gin_bonus) * rules.multiplier
    ddw = best_defence([mask_cards(m) for m in masks], mask_cards(opp)).deadwood_count
    if kdw < ddw:
        return (ddw - kdw) * rules.multiplier
    return -(kdw - ddw + rules.undercut_bonus) * rules.multiplier


def _observe(policy: StrongPolicy, view: PlayerView) -> None:
    """Let the policy's opponent model (``games/engine/ai/opponent.py``) learn from ``view``, as
    :meth:`StrongPolicy.choose` does with every view it is given."""
    model = getattr(policy, "model", None)
    if model is not None:
        model.observe(view)


def _sim_rules(policy: StrongPolicy, view: PlayerView) -> SimRules:
    """The playout rules of ``view`` and the opponent style the policy estimates now, set up as
    :meth:`StrongPolicy.choose` sets them up before its search."""
    style = policy.style_estimate()
    policy._style = style
    extra = {"opp_threshold": style.threshold} if style is not None else {}
    return SimRules(knock_limit=view.knock_limit, gin_bonus=view.rules.gin_bonus,
                    undercut_bonus=view.rules.undercut_bonus,
                    multiplier=view.rules.multiplier_for(view.first_upcard),
                    forbid=view.rules.forbid_discarding_drawn_upcard, **extra)


def decision_review(view: PlayerView, action: Action, *, iterations: int, seed: int = REVIEW_SEED,
                    seq: int = 0, policy: StrongPolicy | None = None) -> DecisionReview:
    """Judge ``action`` (the one taken, legal in ``view``) against the evaluator's candidates, as
    the module docstring says, with ``iterations`` playouts in total (at least 2 determinizations).
    Reads only ``view`` (and, with ``policy``, what that policy's opponent model learned from the
    player's earlier views of the match: :func:`match_review` passes one policy that sees them in
    order; without, a fresh one that sees this view only). Raises ``BadArgument`` when
    ``iterations`` < 1, the view has no legal action or ``action`` is not one of them (a knock is
    matched by its discard)."""
    if type(iterations) is not int or iterations < 1:
        raise BadArgument(f"iterations must be a whole number >= 1, got {iterations!r}")
    legal = view.legal_actions
    if not any(_same_action(action, a) for a in legal):
        raise BadArgument(f"{action!r} is not a legal action in this view")
    if policy is None:
        policy = StrongPolicy(seed=seed, time_budget=None, max_iterations=iterations)
        _observe(policy, view)
    k = read_knowledge(view)
    rules = _sim_rules(policy, view)
    cands = list(policy._candidates(view, k, rules)) if len(legal) > 1 else [action]
    taken = next((i for i, a in enumerate(cands) if _same_action(action, a)), None)
    if taken is None:
        cands.append(action)
        taken = len(cands) - 1
    else:
        cands[taken] = action  # the melds as laid
    base = dict(round=view.round_number, seq=seq, phase=view.phase, hand=view.hand, upcard=view.upcard,
                action=action.to_dict())
    if len(cands) == 1:
        return DecisionReview(**base, best_action=action.to_dict(), expected_loss=0.0, standard_error=0.0,
                              samples=0, candidates=1)
    rng = decision_rng(seed, view, random.Random(seed))
    unseen = mask_indices(k.unseen)
    pile = [c.index for c in view.discard_pile]
    i_am_dealer = view.seat == view.dealer
    nc = len(cands)
    n = max(2, iterations // nc)
    pool: list[int] = []
    rows: list[list[int]] = []
    for _ in range(n):
        opp, stock = policy._sample(k, rules, rng, unseen, pool)
        rows.append([
            _knock_value(a, k, opp, rules) if isinstance(a, Knock)
            else policy._evaluate(a, k.own, opp, stock, pile, rules, view, i_am_dealer)
            for a in cands
        ])
    sums = [sum(r[i] for r in rows) for i in range(nc)]
    best = max(range(nc), key=lambda i: (sums[i], i == taken, -i))
    loss, se = 0.0, 0.0
    if best != taken:
        loss, se = StrongPolicy._paired(rows, best, taken)
    return DecisionReview(**base, best_action=cands[best].to_dict(), expected_loss=loss, standard_error=se,
                          samples=n, candidates=nc)


@dataclass(frozen=True, slots=True)
class ReviewMove:
    """One move of the log: ``seq`` (1, 2, ...), ``seat``, ``action`` (an action or its JSON form),
    ``auto_played`` (chosen by the server's AI for a player who ran out of time: not reviewed)."""

    seq: int
    seat: int
    action: Action | dict
    auto_played: bool = False


def review_decisions(*, rules: RuleSet, first_dealer: int, decks: Iterable[Sequence[Card | str]],
                     moves: Iterable[ReviewMove], seat: int) -> list[tuple[PlayerView, Action, int, bool]]:
    """``[(view, action, seq, is_decision)]``: each move of ``seat`` with the view it had before the
    move, by replaying the match; ``is_decision``: more than one legal action and not auto-played
    (the others are kept for the opponent model, which learns from every view). Raises what
    :func:`~.state.new_match`, :func:`~.state.deal` and :func:`~.state.apply` raise on a log that
    does not replay (``BadArgument`` when the decks run out)."""
    if seat not in (0, 1) or type(seat) is not int:
        raise BadArgument(f"seat must be 0 or 1, got {seat!r}")
    decks = iter(decks)
    state: MatchState = new_match(rules, first_dealer)
    out = []
    for move in moves:
        action = move.action if not isinstance(move.action, dict) else action_from_dict(move.action)
        if state.phase == "deal":
            deck = next(decks, None)
            if deck is None:
                raise BadArgument("the moves need another round but no deck order is left")
            state, _ = deal(state, deck)
        if move.seat == seat:
            decision = not move.auto_played and len(legal_actions(state, seat)) > 1
            out.append((player_view(state, seat), action, move.seq, decision))
        state, _ = apply(state, move.seat, action)
    return out


def match_review(*, rules: RuleSet, first_dealer: int, decks: Iterable[Sequence[Card | str]],
                 moves: Iterable[ReviewMove], seat: int, iterations: int, seed: int = REVIEW_SEED,
                 progress: Callable[[int, int], None] | None = None) -> list[DecisionReview]:
    """Review every decision of ``seat`` in the match (:func:`review_decisions`, then
    :func:`decision_review` on each view), in move order. ``progress(done, total)`` is called
    before the first decision and after each one. Raises like :func:`review_decisions` and
    :func:`decision_review`."""
    seen = review_decisions(rules=rules, first_dealer=first_dealer, decks=decks, moves=moves, seat=seat)
    total = sum(decision for *_, decision in seen)
    if type(iterations) is not int or iterations < 1:
        raise BadArgument(f"iterations must be a whole number >= 1, got {iterations!r}")
    policy = StrongPolicy(seed=seed, time_budget=None, max_iterations=iterations)
    out = []
    if progress:
        progress(0, total)
    for view, action, seq, decision in seen:
        _observe(policy, view)  # every view of the player, in order, as the strong policy sees them
        if not decision:
            continue
        out.append(decision_review(view, action, iterations=iterations, seed=seed, seq=seq, policy=policy))
        if progress:
            progress(len(out), total)
    return out


def review_summary(decisions: Sequence[DecisionReview]) -> dict:
    """The shown review: ``{"mistakes": n, "mistake_threshold": points, "expected_loss": total
    points, "rounds": [{"round", "decisions", "mistakes", "expected_loss", "costliest": [decision
    dicts, at most 3, the largest expected losses above 0 first]}]}``."""
    rounds: dict[int, list[DecisionReview]] = {}
    for d in decisions:
        rounds.setdefault(d.round, []).append(d)
    out_rounds = []
    for number in sorted(rounds):
        ds = rounds[number]
        costly = sorted((d for d in ds if d.expected_loss > 0), key=lambda d: (-d.expected_loss, d.seq))
        out_rounds.append({
            "round": number, "decisions": len(ds), "mistakes": sum(d.mistake for d in ds),
            "expected_loss": round(sum(d.expected_loss for d in ds), 2),
            "costliest": [d.to_dict() for d in costly[:COSTLIEST_PER_ROUND]],
        })
    return {"mistakes": sum(d.mistake for d in decisions), "mistake_threshold": MISTAKE_POINTS,
            "expected_loss": round(sum(d.expected_loss for d in decisions), 2), "rounds": out_rounds}
