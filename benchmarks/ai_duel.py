"""Compare settings of the strong level on identical deals (a paired test; prints figures).

    .venv/bin/python benchmarks/ai_duel.py --budget 0.1 --cpu-clock --deals 200 '{}' '{"search_discards": 1}'

Each positional argument is a JSON object of strong-policy attributes (a *variant*; ``{}`` is the
default). Every variant plays single rounds against ``simple`` (Oklahoma defaults, scores 0-0) on
the same ``--deals`` deals, once from each seat, so the variants see the same cards and the
baseline plays the same way until their choices differ. Printed per variant: strong's net points
per round with its standard error, the round outcomes (who knocked, how it ended: count and net
points for strong), and for each variant after the first the paired difference to the first with
its standard error (much tighter than comparing two match win rates) and how many rounds ended
with the same points.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections import Counter
from multiprocessing import Pool

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.engine import RuleSet, apply, deal, new_match, player_view, shuffled_deck  # noqa: E402
from benchmarks.ai_strength import STRONG_BUDGET, make_policy  # noqa: E402

VARIANTS: list[dict] = []
BUDGET = 0.1


def play_round(task) -> tuple[int, int, int, int, str]:
    """One round of deal ``d`` with strong (variant ``v``) in ``seat``: ``(d, seat, v, points, outcome)``
    where points are strong's (negative when simple scores) and outcome is e.g. ``"strong:gin"``."""
    d, seat, v = task
    state = new_match(RuleSet(), first_dealer=d % 2)
    state, _ = deal(state, shuffled_deck(random.Random(f"okgin-duel-{d}")))
    strong = make_policy("strong", d * 7 + seat, BUDGET, VARIANTS[v])
    simple = make_policy("simple", 0, BUDGET)
    while True:
        s = state.to_act
        state, events = apply(state, s, (strong if s == seat else simple).choose(player_view(state, s)))
        if any(e.type == "round_ended" for e in events):
            r = state.results[-1]
            if r.winner is None:
                return d, seat, v, 0, "wall"
            who = "strong" if r.knocker == seat else "simple"
            return d, seat, v, (r.points if r.winner == seat else -r.points), f"{who}:{r.outcome}"


def mean_se(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    return m, sd / math.sqrt(n)


def main(argv=None) -> int:
    global BUDGET
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("variants", nargs="+", help="JSON objects of strong-policy attributes")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--first-deal", type=int, default=0, help="number of the first deal (other deals, same count)")
    ap.add_argument("--budget", type=float, default=0.1, help="strong's seconds of search per turn")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--cpu-clock", action="store_true",
                    help="count the budget in CPU seconds of the process, not wall seconds (a shared machine)")
    args = ap.parse_args(argv)
    STRONG_BUDGET["cpu_clock"] = args.cpu_clock  # read by make_policy in the forked processes
    VARIANTS.extend(json.loads(v) for v in args.variants)
    BUDGET = args.budget
    deals = range(args.first_deal, args.first_deal + args.deals)
    tasks = [(d, s, v) for d in deals for s in (0, 1) for v in range(len(VARIANTS))]
    t = time.time()
    with Pool(args.jobs) as pool:
        results = pool.map(play_round, tasks, chunksize=4)
    points = {(d, s, v): p for d, s, v, p, _ in results}
    outcomes = [Counter() for _ in VARIANTS]
    outcome_points = [Counter() for _ in VARIANTS]
    for _d, _s, v, p, o in results:
        outcomes[v][o] += 1
        outcome_points[v][o] += p
    keys = [(d, s) for d in deals for s in (0, 1)]
    print(f"strong vs simple, {len(keys)} rounds per variant (deals {deals.start}-{deals.stop - 1} x 2 seats), "
          f"budget {args.budget} {'CPU ' if args.cpu_clock else ''}s/turn, {time.time() - t:.0f} s")
    for v, opts in enumerate(VARIANTS):
        m, se = mean_se([points[k + (v,)] for k in keys])
        print(f"variant {v} {json.dumps(opts, sort_keys=True)}: strong's net {m:+.2f} points/round (SE {se:.2f})")
        print("    " + ", ".join(f"{o} {outcomes[v][o]} ({outcome_points[v][o]:+d})" for o in sorted(outcomes[v])))
        if v:
            diffs = [points[k + (v,)] - points[k + (0,)] for k in keys]
            dm, dse = mean_se(diffs)
            same = sum(1 for x in diffs if x == 0)
            print(f"    paired vs variant 0: {dm:+.2f} points/round (SE {dse:.2f}); same points in {same}/{len(keys)} rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
