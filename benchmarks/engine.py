"""Rules-engine benchmark: prints figures, asserts nothing (speed targets are read, not tested).

Run: ``.venv/bin/python benchmarks/engine.py [--hands N] [--seconds S] [--seed N]``

Measures, pinned to one core when the OS allows it, on the same random hands in the same run:

1. best arrangement of random 10-card hands (hands/s): ours (mask API ``mask_min_deadwood``, the
   card API ``min_deadwood`` and the full ``best_arrangement`` with melds) against OpenSpiel's
   ``GinRummyUtils.min_deadwood`` (C++ via pybind);
2. best knock of random 11-card hands (hands/s): ours ``mask_best_knock`` / ``best_knock`` against
   OpenSpiel's ``min_deadwood`` on 11 cards (which returns the least deadwood over every discard);
3. complete random-play rounds per second: ours (deal + ``legal_actions`` + ``apply`` to the end,
   uniform random choice) against ``pyspiel.load_game("gin_rummy", {"oklahoma": True})`` driven
   from Python the same way (chance outcomes + ``legal_actions`` + ``apply_action``).

Card indices differ: ours is ``suit * 13 + rank - 1`` with suits C D H S; OpenSpiel's is
``suit * 13 + rank - 1`` with suits s c d h. :func:`to_openspiel` converts explicitly; the script
checks the conversion on all 52 cards by name and reports how many hands both engines score alike.

Targets (issue 2): 11-card knock >= 200,000 hands/s; random rounds >= OpenSpiel's from Python.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import (FULL_DECK, Card, RuleSet, apply, best_arrangement, best_knock,  # noqa: E402
                          deal, legal_actions, min_deadwood, new_match, shuffled_deck)
from games.engine.melds import mask_best_knock, mask_min_deadwood  # noqa: E402

try:
    import pyspiel
except ImportError:  # the reference is optional: pip install -e '.[bench]'
    pyspiel = None

OUR_SUITS = "CDHS"
OPENSPIEL_SUITS = "scdh"


def to_openspiel(index: int) -> int:
    """Our card index (suits C D H S) -> OpenSpiel's (suits s c d h); rank order is the same."""
    suit, rank = divmod(index, 13)
    return OPENSPIEL_SUITS.index(OUR_SUITS[suit].lower()) * 13 + rank


def pin_one_core() -> str:
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[-1]})
        return f"pinned to cpu {cpus[-1]}"
    except (AttributeError, OSError) as exc:  # not Linux, or not allowed
        return f"not pinned ({exc.__class__.__name__})"


def rate(fn, items, repeat: int = 3) -> float:
    """Best of ``repeat`` runs of ``fn`` over ``items``: items per second."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(items)
        best = min(best, time.perf_counter() - t0)
    return len(items) / best


def rounds_rate(play_one, seconds: float) -> tuple[float, int]:
    """Play rounds for about ``seconds``; return (rounds per second, rounds played)."""
    n = 0
    t0 = time.perf_counter()
    while True:
        play_one()
        n += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return n / elapsed, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=50_000, help="random hands per measurement")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of random play per engine")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

    print(f"okgin engine benchmark: python {sys.version.split()[0]}, {pin_one_core()}")
    rng = random.Random(args.seed)
    hands10 = [tuple(rng.sample(range(52), 10)) for _ in range(args.hands)]
    hands11 = [tuple(rng.sample(range(52), 11)) for _ in range(args.hands)]
    masks10 = [sum(1 << i for i in h) for h in hands10]
    masks11 = [sum(1 << i for i in h) for h in hands11]
    cards10 = [tuple(Card.from_index(i) for i in h) for h in hands10]
    cards11 = [tuple(Card.from_index(i) for i in h) for h in hands11]

    utils = None
    if pyspiel is not None:
        utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
        # the index conversion, checked card by card against OpenSpiel's own names
        for card in FULL_DECK:
            name = utils.card_string(to_openspiel(card.index))
            assert name[0] == ("T" if card.rank == 10 else card.code[0]) and name[1] == card.suit.lower(), name
        os10 = [[to_openspiel(i) for i in h] for h in hands10]
        os11 = [[to_openspiel(i) for i in h] for h in hands11]
        agree10 = sum(mask_min_deadwood(m) == utils.min_deadwood(h) for m, h in zip(masks10, os10))
        agree11 = sum(mask_best_knock(m)[0] == utils.min_deadwood(h) for m, h in zip(masks11, os11))
        print(f"card index conversion checked on 52 cards; deadwood agreement with OpenSpiel: "
              f"10-card {agree10}/{len(hands10)}, 11-card knock {agree11}/{len(hands11)}")
    else:
        print("OpenSpiel not installed (pip install -e '.[bench]'): our figures only")

    rows = []

    def row(label, ours, theirs=None):
        rows.append((label, ours, theirs))
        ratio = f"{ours / theirs:6.2f}x" if theirs else "      -"
        theirs_s = f"{theirs:12,.0f}" if theirs else "           -"
        print(f"  {label:<44} {ours:12,.0f} {theirs_s} {ratio}")

    print(f"\n  {'measure (per second)':<44} {'ours':>12} {'OpenSpiel':>12}  ratio")
    os_10 = rate(lambda hs: [utils.min_deadwood(h) for h in hs], os10) if utils else None
    row("10-card best arrangement, count (mask)", rate(lambda ms: [mask_min_deadwood(m) for m in ms], masks10), os_10)
    row("10-card best arrangement, count (cards)", rate(lambda cs: [min_deadwood(c) for c in cs], cards10), os_10)
    row("10-card best arrangement, melds (cards)", rate(lambda cs: [best_arrangement(c) for c in cs], cards10[:10000]),
        os_10)
    os_11 = rate(lambda hs: [utils.min_deadwood(h) for h in hs], os11) if utils else None
    knock_mask = rate(lambda ms: [mask_best_knock(m) for m in ms], masks11)
    row("11-card best knock, count + discard (mask)", knock_mask, os_11)
    row("11-card best knock, KnockOption (cards)", rate(lambda cs: [best_knock(c) for c in cs], cards11[:10000]), os_11)

    play_rng = random.Random(args.seed + 1)
    rules = RuleSet()

    def our_round():
        state, _ = deal(new_match(rules, play_rng.randrange(2)), shuffled_deck(play_rng))
        while state.round is not None:
            state, _ = apply(state, state.to_act, play_rng.choice(legal_actions(state)))

    ours_rounds, n_ours = rounds_rate(our_round, args.seconds)
    os_rounds = None
    if pyspiel is not None:
        game = pyspiel.load_game("gin_rummy", {"oklahoma": True})

        def os_round():
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[play_rng.randrange(len(outcomes))][0])
                else:
                    state.apply_action(play_rng.choice(state.legal_actions()))

        os_rounds, _ = rounds_rate(os_round, args.seconds)
    row(f"random-play rounds ({n_ours} of ours)", ours_rounds, os_rounds)

    print("\ntargets: 11-card knock >= 200,000 hands/s: "
          f"{'met' if knock_mask >= 200_000 else 'MISSED'} ({knock_mask:,.0f}); "
          f"random rounds >= OpenSpiel's: "
          + (f"{'met' if ours_rounds >= os_rounds else 'MISSED'} ({ours_rounds:,.0f} vs {os_rounds:,.0f})"
             if os_rounds else "n/a"))


if __name__ == "__main__":
    main()
