"""How close are the strong level's sampled opponent hands to the real ones? (issue 16; prints figures)

    .venv/bin/python benchmarks/opponent_samples.py --rounds 30 '{}' '{"filter_depth": 4}'

(``filter_depth`` beyond 2 scores an approximate likelihood: see ``turn_likelihood``.)

Each positional argument is a JSON object of strong-policy attributes (a *variant*; ``{}`` is the
default). Rounds of ``simple`` against ``simple`` are dealt from a fixed seed; at every discard
decision where the opponent has made at least ``--min-turns`` turns, each variant's own sampler
(``StrongPolicy._sample``, with the style the variant estimates before it has seen a round:
its prior, since these policies never play) draws ``--samples`` opponent hands
from that seat's view, and so does the reference: plain weighted draws
(:func:`~games.engine.ai.knowledge.sample_hidden`, no likelihood). Printed per sampler: the share
of the opponent's real hidden cards a sample holds (overlap, 0..1), the mean least deadwood of
the samples (points) against the real hand's, and CPU milliseconds per sample with its ratio to
the reference's (the same run, so the machine's speed cancels out).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.engine.ai import StrongPolicy  # noqa: E402
from games.engine.ai.knowledge import mask_indices, read_knowledge, sample_hidden  # noqa: E402
from games.engine.ai.playout import SimRules, min_deadwood  # noqa: E402
from games.engine.ai.simple import baseline_rounds  # noqa: E402
from games.engine.cards import cards_mask  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("variants", nargs="*", default=["{}"], help="JSON strong-policy options per variant")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--samples", type=int, default=8, help="hands drawn per decision and sampler")
    ap.add_argument("--min-turns", type=int, default=3, help="opponent turns a decision needs")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    variants = [json.loads(v) for v in args.variants]
    names = ["reference (plain weighted draws)"] + [json.dumps(v) for v in variants]
    # per sampler: samples, overlap sum, deadwood sum, CPU seconds
    acc = [[0, 0.0, 0.0, 0.0] for _ in names]
    real_dw = 0
    decisions = 0
    rng = random.Random(args.seed)
    for r_i in range(args.rounds):
        for state, seat, view in baseline_rounds(rng, 1):
            k = read_knowledge(view)
            if view.phase == "discard" and len(k.opp_turns) >= args.min_turns:
                real = cards_mask(state.round.hands[1 - seat])
                real_hidden = real & ~k.opp_known
                real_dw += min_deadwood(real)
                decisions += 1
                unseen = mask_indices(k.unseen)
                for s_i in range(len(names)):
                    if s_i:
                        p = StrongPolicy(seed=1, time_budget=None, max_iterations=1, **variants[s_i - 1])
                        p._style = p.style_estimate()
                        r = SimRules(view.knock_limit, view.rules.gin_bonus, view.rules.undercut_bonus,
                                     1, view.rules.forbid_discarding_drawn_upcard,
                                     opp_threshold=p._style.threshold if p._style else None)
                    t0 = time.process_time()
                    for i in range(args.samples):
                        srng = random.Random(1000 * r_i + 17 * decisions + i)
                        if s_i:
                            opp, _stock = p._sample(k, r, srng, unseen, [])
                        else:
                            opp, _stock = sample_hidden(k, srng, unseen)
                        a = acc[s_i]
                        a[0] += 1
                        a[1] += bin(opp & real_hidden).count("1") / max(1, bin(real_hidden).count("1"))
                        a[2] += min_deadwood(opp)
                    acc[s_i][3] += time.process_time() - t0
    print(f"{args.rounds} rounds of simple against simple (seed {args.seed}), {decisions} discard decisions "
          f"with at least {args.min_turns} opponent turns, {args.samples} samples each; "
          f"the real hand's mean least deadwood {real_dw / max(1, decisions):.2f} points")
    ref_ms = 1000 * acc[0][3] / max(1, acc[0][0])
    print(f"{'sampler':<48} {'overlap':>8} {'deadwood':>9} {'ms/sample':>10} {'x ref':>7}")
    for name, (n, ov, dw, t) in zip(names, acc):
        ms = 1000 * t / max(1, n)
        print(f"{name:<48} {ov / max(1, n):>8.4f} {dw / max(1, n):>9.2f} {ms:>10.3f} {ms / ref_ms:>7.2f}")


if __name__ == "__main__":
    main()
