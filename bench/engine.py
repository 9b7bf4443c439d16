"""Engine benchmarks: win checks and waits per second (medians of repeated runs); append to BENCHMARKS."""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.hand import is_complete, waits  # noqa: E402
from engine.tiles import full_set, to_counts  # noqa: E402

REPEATS = 5
HANDS = 2000


def _median_rate(fn: Callable[[], int], repeats: int = REPEATS) -> float:
    """Median of `repeats` runs of fn (which returns how many operations it did), in ops/s."""
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        n = fn()
        rates.append(n / (time.perf_counter() - started))
    return statistics.median(rates)


def _random_hand(rng: random.Random, size: int) -> list[int]:
    return to_counts(rng.sample(full_set(), size))


def _complete_hand(rng: random.Random, naturals: int) -> list[int]:
    """A random complete 14-tile hand (four sets + pair), with 14 - naturals tiles taken out as wilds."""
    while True:
        c = [0] * 34
        for _ in range(4):
            if rng.random() < 0.6:
                start = rng.randrange(3) * 9 + rng.randrange(7)
                ks = [start, start + 1, start + 2]
            else:
                ks = [rng.randrange(34)] * 3
            for k in ks:
                c[k] += 1
        c[rng.randrange(34)] += 2
        if max(c) > 4:
            continue
        tiles = [k for k, n in enumerate(c) for _ in range(n)]
        rng.shuffle(tiles)
        return to_counts(tiles[:naturals])


def _hand_sets(wilds: int) -> tuple[list[list[int]], list[list[int]]]:
    rng = random.Random(1000 + wilds)
    complete = [_complete_hand(rng, 14 - wilds) for _ in range(HANDS)]
    random_hands = [_random_hand(rng, 14 - wilds) for _ in range(HANDS)]
    return complete, random_hands


def _rate_is_complete(hands: list[list[int]], wilds: int) -> float:
    return _median_rate(lambda: sum(1 for h in hands if is_complete(h, wilds, seven_pairs=True) or True))


def _rate_agari(hands: list[list[int]]) -> float:
    from mahjong.agari import Agari

    agari = Agari()
    return _median_rate(lambda: sum(1 for h in hands if agari.is_agari(h) or True))


def bench_win_checks() -> None:
    """Win checks per second on complete and random 14-tile hands, 0–2 wilds, beside mahjong's Agari."""
    print("win checks / s (14 tiles, seven pairs on)")
    for wilds in (0, 1, 2):
        complete, random_hands = _hand_sets(wilds)
        for label, hands in (("complete", complete), ("random", random_hands)):
            ours = _rate_is_complete(hands, wilds)
            line = f"  wilds={wilds} {label:8s} tilefold {ours:12,.0f}"
            if wilds == 0:
                line += f"   mahjong Agari {_rate_agari(hands):12,.0f}   ratio {ours / _rate_agari(hands):.2f}x"
            print(line)


def bench_waits() -> None:
    """Wait computations per second on random 13-tile hands and tenpai hands, 0–1 wilds."""
    print("waits / s (13 tiles, seven pairs on)")
    for wilds in (0, 1):
        rng = random.Random(2000 + wilds)
        random_hands = [_random_hand(rng, 13 - wilds) for _ in range(HANDS // 4)]
        tenpai = []
        for _ in range(HANDS // 4):
            h = _complete_hand(rng, 14 - wilds)
            h[next(k for k in range(34) if h[k])] -= 1
            tenpai.append(h)
        for label, hands in (("random", random_hands), ("ready", tenpai)):
            rate = _median_rate(
                lambda hands=hands, wilds=wilds: sum(1 for h in hands if waits(h, wilds, seven_pairs=True) or True)
            )
            print(f"  wilds={wilds} {label:8s} {rate:12,.0f}")


#: Benchmarks run by main(), in order; others append theirs (e.g. bench_selfplay).
def bench_selfplay() -> None:
    """Complete hands per second, bots at every seat, on one core (target >= 300 per variant).

    Timed with process CPU time (one core, unaffected by other processes sharing the machine),
    after one warm-up match that fills the hand-analysis memo tables; median of 3 matches of 64 hands.
    """
    from engine.selfplay import play_match, seeds_from

    for variant, options in (("koudiandian", {}), ("koudiandian", {"wilds": True}), ("hanshan", {})):
        play_match(variant, dict(options, hands=16), seeds_from(f"warm-{variant}"))
        rates = []
        for rep in range(3):
            started = time.process_time()
            state, log = play_match(variant, dict(options, hands=64), seeds_from(f"bench-{variant}-{rep}"))
            rates.append(state.hands_played / (time.process_time() - started))
        print(
            f"self-play {variant} {options or ''}: {statistics.median(rates):,.0f} hands/s "
            f"({len(log) / state.hands_played:.0f} events per hand)"
        )


def bench_scoring() -> None:
    """Hanshan scoring calls per second on winning hands with 0-4 配子 (H-7..H-10, G-10); target >= 500 with 3-4."""
    from engine.options import normalise
    from engine.scoring import WinContext, score
    from engine.tiles import parse

    options = normalise("hanshan", {})
    hands = {
        0: "123m456m789m123pEE",
        1: "123m456m789m12pEEN",
        2: "123m456m789m1pEENN",
        3: "123m456m789mEENNN",
        4: "123m456m78mEENNNN",
    }
    for wilds, text in hands.items():
        tiles = tuple(parse(text))
        ctx = WinContext("hanshan", options, 1, 0, tiles, (), tiles[-1], "self_draw", wild=parse("N")[0])
        assert score(ctx)["ok"], text

        def run(ctx=ctx) -> int:
            for _ in range(20):
                score(ctx)
            return 20

        print(f"hanshan scoring, {wilds} 配子: {_median_rate(run):,.0f} calls/s")


BENCHMARKS: list[Callable[[], None]] = [bench_win_checks, bench_waits, bench_selfplay, bench_scoring]


def main() -> None:
    for bench in BENCHMARKS:
        bench()


if __name__ == "__main__":
    main()
