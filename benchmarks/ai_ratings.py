"""Published ratings of the AI levels (issue 13): Glicko-2 from their results against each other.

    .venv/bin/python benchmarks/ai_ratings.py --iterations 100 --jobs 1 \\
        --matches strong-simple=100 strong-random=40 simple-random=200 --save ratings.json
    .venv/bin/python benchmarks/ai_ratings.py --load ratings.json [more.json ...]   # only the ratings

Plays each pairing with ``ai_strength.py``'s machinery (matches to 100 points under the Oklahoma
defaults, duplicate deals with the seats swapped, the first dealer alternating) and rates the three
levels with the ``glicko2`` package (Glickman's Glicko-2, the same package as people's ratings,
``games/ratings.py``), no rating arithmetic of our own:

- ``simple`` is the anchor: it is held at ``--anchor`` (1500) with deviation 0 and never updated
  (a rating pool needs a fixed point; only differences are measured);
- the other levels start at rating 1500, deviation (RD) 350, volatility 0.06;
- the matches of every pairing are spread evenly over as many rating periods as the smallest
  pairing has matches (so the pairings are interleaved, not rated one after the other); in a period
  each level is updated once with all its results of the period (1 for a match won, 0 for a match
  lost) against its opponents' ratings and deviations from before the period, as Glicko-2
  prescribes. ``rating +- 2 RD`` is printed as the 95% interval.

A level that wins (or loses) every match against another has no finite best estimate: its rating
against that level keeps moving with every further match, so such a difference is a lower bound
set by the number of matches played (the script says so when it happens).

``--iterations N`` bounds the strong level's search by N playouts per decision (no clock: the same
moves on a loaded machine as on an idle one); ``--budget S --cpu-clock`` uses CPU seconds instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import glicko2  # noqa: E402

import ai_strength  # noqa: E402

LEVELS = ("random", "simple", "strong")


def parse_pairings(items: list[str]) -> list[tuple[str, str, int]]:
    """``["strong-simple=100", ...]`` -> ``[("strong", "simple", 100), ...]``."""
    out = []
    for item in items:
        pair, _, n = item.partition("=")
        a, _, b = pair.partition("-")
        if a not in LEVELS or b not in LEVELS or a == b or not n.isdigit():
            raise SystemExit(f"--matches: expected LEVEL-LEVEL=N with levels {', '.join(LEVELS)}, got {item!r}")
        out.append((a, b, int(n)))
    return out


def play(pairings, *, jobs: int, budget: float, seed: int) -> list[dict]:
    """Play the pairings; returns one row per match: ``{"a", "b", "index", "a_won", "rounds"}``."""
    rows = []
    for a, b, n in pairings:
        recs, elapsed = ai_strength.run(ai_strength.play_engine_match, a, b, n, jobs, budget, seed, "oklahoma")
        print(ai_strength.report("okgin engine", a, b, recs, elapsed), flush=True)
        rows += [{"a": a, "b": b, "index": i, "a_won": r.a_won, "rounds": len(r.round_points)}
                 for i, r in enumerate(recs)]
    return rows


def rate(rows: list[dict], anchor: float = 1500.0, anchor_level: str = "simple") -> dict[str, dict]:
    """Glicko-2 ratings of the levels from the match ``rows`` (see the module docstring):
    ``{level: {"rating", "rd", "volatility", "matches", "won"}}``; ``anchor_level`` is held at
    ``anchor`` (deviation 0) and the other levels are rated against it and each other."""
    players = {lv: glicko2.Player(rating=1500, rd=350, vol=0.06) for lv in LEVELS}
    players[anchor_level] = glicko2.Player(rating=anchor, rd=0.0, vol=0.06)
    by_pairing: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        by_pairing.setdefault((r["a"], r["b"]), []).append(r)
    periods = min((len(v) for v in by_pairing.values()), default=0)
    counts = {lv: [0, 0] for lv in LEVELS}
    for i in range(periods):
        games: dict[str, list[tuple[float, float, float]]] = {lv: [] for lv in LEVELS}
        pre = {lv: (p.rating, p.rd) for lv, p in players.items()}
        for (a, b), matches in by_pairing.items():
            n = len(matches)
            for m in matches[i * n // periods:(i + 1) * n // periods]:  # spread evenly over the periods
                won = 1.0 if m["a_won"] else 0.0
                games[a].append((*pre[b], won))
                games[b].append((*pre[a], 1.0 - won))
                for lv, sc in ((a, won), (b, 1.0 - won)):
                    counts[lv][0] += 1
                    counts[lv][1] += int(sc)
        for lv, gs in games.items():
            if lv == anchor_level or not gs:
                continue
            players[lv].update_player([g[0] for g in gs], [g[1] for g in gs], [g[2] for g in gs])
    return {lv: {"rating": p.rating, "rd": p.rd, "volatility": p.vol, "matches": counts[lv][0],
                 "won": counts[lv][1]} for lv, p in players.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", nargs="+", default=["strong-simple=100", "strong-random=40", "simple-random=200"],
                    help="pairings LEVEL-LEVEL=N (even N: duplicate pairs)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--iterations", type=int, default=100, help="strong's playouts per decision (no clock)")
    ap.add_argument("--budget", type=float, default=None, help="instead: strong's seconds per turn")
    ap.add_argument("--cpu-clock", action="store_true", help="count --budget in CPU seconds")
    ap.add_argument("--seed", type=int, default=1, help="deal sequence seed")
    ap.add_argument("--anchor", type=float, default=1500.0, help="the rating given to simple")
    ap.add_argument("--save", help="write the match results to this JSON file")
    ap.add_argument("--load", nargs="+", help="rate the match results of these JSON files (--save) instead of playing")
    args = ap.parse_args(argv)
    if args.load:
        rows = []
        for path in args.load:
            with open(path) as f:
                rows += json.load(f)["matches"]
    else:
        iterations = None if args.budget is not None else args.iterations
        ai_strength.STRONG_BUDGET.update(iterations=iterations, cpu_clock=args.cpu_clock)
        budget_text = f"{iterations} playouts/decision" if iterations else f"{args.budget} s/turn"
        print(f"strong's budget {budget_text}; seed {args.seed}; jobs {args.jobs}", flush=True)
        rows = play(parse_pairings(args.matches), jobs=args.jobs, budget=args.budget or 0.1, seed=args.seed)
        if args.save:
            with open(args.save, "w") as f:
                json.dump({"budget": budget_text, "seed": args.seed, "matches": rows}, f)
    ratings = rate(rows, anchor=args.anchor)
    print("| level | rating | RD | 95% interval | matches | won |")
    print("| --- | --- | --- | --- | --- | --- |")
    for lv in sorted(LEVELS, key=lambda lv: -ratings[lv]["rating"]):
        r = ratings[lv]
        print(f"| {lv} | {r['rating']:.0f} | {r['rd']:.0f} | {r['rating'] - 2 * r['rd']:.0f} .. "
              f"{r['rating'] + 2 * r['rd']:.0f} | {r['matches']} | {r['won']} |")
    pairs: dict[tuple[str, str], list[bool]] = {}
    for r in rows:
        pairs.setdefault((r["a"], r["b"]), []).append(r["a_won"])
    for (a, b), won in pairs.items():
        lo, hi = ai_strength.wilson(sum(won), len(won))
        note = "  (a clean sweep: the difference is a lower bound)" if sum(won) in (0, len(won)) else ""
        print(f"{a} vs {b}: {sum(won)}/{len(won)} = {sum(won) / len(won):.1%} (95% CI {lo:.1%} .. {hi:.1%}){note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
