"""Write the FIDE Dutch test fixtures: small random tournaments paired by bbpPairings itself.

Run: .venv/bin/python -m bench.dutch_fixtures [--bbp PATH] [--count N] [--seed S]

Each fixture is one round of a small tournament (5 to 14 players, random results, byes,
forfeits and withdrawals, from ``bench.dutch_conformance.simulate``): the players' histories
before the round, and the pairing bbpPairings (``--dutch FILE -p``) makes for it. The
expectations come from bbpPairings alone, so ``tests/unit/test_dutch.py`` can check the
engine against them without bbpPairings installed. Output: ``tests/unit/dutch_fixtures.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.dutch_conformance import find_bbp, simulate, to_trf

OUTPUT = Path(__file__).resolve().parent.parent / "tests" / "unit" / "dutch_fixtures.json"


def bbp_pairing(bbp: Path, text: str) -> tuple[list[list[int]], int | None]:
    """bbpPairings' pairing of the round after those in the TRF ``text``: (pairs, bye)."""
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "in.trf"
        target = Path(scratch) / "out.txt"
        source.write_text(text, encoding="utf-8", newline="")
        subprocess.run([str(bbp), "--dutch", str(source), "-p", str(target)], check=True)
        lines = target.read_text().split()
    numbers = [int(x) for x in lines[1:]]
    pairs, bye = [], None
    for white, black in zip(numbers[::2], numbers[1::2], strict=True):
        if black == 0:
            bye = white
        else:
            pairs.append([white, black])
    return pairs, bye


def main(argv: list[str] | None = None) -> int:
    """Generate the fixtures file."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--bbp")
    parser.add_argument("--count", type=int, default=12, help="tournaments")
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args(argv)
    bbp = find_bbp(args.bbp, None)
    if bbp is None:
        print("bbpPairings is needed to write the fixtures; see bench/dutch_conformance.py.")
        return 0
    rng = random.Random(args.seed)
    fixtures: list[dict[str, object]] = []
    while len({f["tournament"] for f in fixtures}) < args.count:
        seed = rng.randrange(2**32)
        sim, rounds, _error = simulate(random.Random(seed), sizes=(5, 14))
        for round_number in range(1, rounds + 1):
            text = to_trf(sim, round_number - 1)
            pairs, bye = bbp_pairing(bbp, text)
            fixtures.append(
                {
                    "tournament": seed,
                    "round": round_number,
                    "total_rounds": sim.rounds,
                    "accelerated": sim.accelerated,
                    "players": [
                        {
                            "number": n,
                            "score": str(sim.score_before(n, round_number - 1)),
                            "rating": sim.ratings[n - 1],
                            "rounds": [
                                [g.opponent, g.colour, g.played, g.result]
                                for g in sim.history[n][: round_number - 1]
                            ],
                            "absent": n in sim.absent.get(round_number, ()),
                        }
                        for n in range(1, sim.size + 1)
                    ],
                    "pairs": pairs,
                    "bye": bye,
                }
            )
    # One round per line: compact, and a regenerated file diffs by round.
    text = "[\n" + ",\n".join(json.dumps(f, separators=(",", ":")) for f in fixtures) + "\n]\n"
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"{len(fixtures)} rounds of {args.count} tournaments written to {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
