"""FIDE Dutch conformance: random tournaments paired by our engine, checked by bbpPairings.

Run: .venv/bin/python -m bench.dutch_conformance [--tournaments N] [--seed S] [--keep DIR]

Each tournament has 5 to 60 players and 5 to 11 rounds; every round is paired by
``pairings.dutch.pair_round``, then given random results: wins, draws and losses,
forfeits (one side or both), requested byes (half-point, full-point and zero-point, written
as TRF-2026 ``240`` records' results ``H``/``F``/``Z`` in the round), withdrawals (the player
is absent from then on), in half the tournaments one to three prohibited pairings (groups of
two or three players who must not meet, for the whole event or a span of rounds, written as
``260`` records) and, in one tournament of ten, Baku acceleration (written as ``250``
records). The tournament is written as TRF-2026 with ``league.chess.trf`` and handed to
bbpPairings' checker (``--dutch FILE -c``), which re-pairs every round itself and lists the
rounds whose pairing (pairs and colours) differs. The share of rounds it accepts is
reported; the first failures are listed with their TRF file kept (``--keep``, by default
``var/dutch-conformance``) for debugging.

bbpPairings (https://github.com/BieremaBoyzProgramming/bbpPairings, Apache-2.0) is not a
dependency: the script builds it with the machine's ``make`` and ``g++`` from a source tree
given by ``--bbp-source`` or the ``BBP_SOURCE`` environment variable, or from the git mirror
``/work/.mirror/BieremaBoyzProgramming+bbpPairings/repo`` when present, or uses a built
``bbpPairings.exe`` given by ``--bbp`` / ``BBP_PAIRINGS``. Without any of them it says how to
get it and exits 0.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from league.chess import trf
from pairings.dutch import (
    DRAW,
    FORFEIT_LOSS,
    FORFEIT_WIN,
    FULL_BYE,
    HALF_BYE,
    LOSS,
    PAIRING_BYE,
    WIN,
    ZERO_BYE,
    DutchGame,
    DutchPlayer,
    NoValidPairing,
    baku_acceleration,
    pair_round,
)

MIRROR = Path("/work/.mirror/BieremaBoyzProgramming+bbpPairings/repo")
BUILD_DIR = Path(os.environ.get("LEAGUE_VAR_DIR", "var")) / "bbpPairings"
HOW_TO_GET = """bbpPairings is not available, so the conformance run is skipped.
Get it with:
  git clone https://github.com/BieremaBoyzProgramming/bbpPairings /tmp/bbpPairings
  (cd /tmp/bbpPairings && make)
then run:  .venv/bin/python -m bench.dutch_conformance --bbp /tmp/bbpPairings/bbpPairings.exe
(or give the source tree with --bbp-source / BBP_SOURCE and this script builds it)."""

# TRF result codes of our result kinds.
CODE = {
    WIN: "1",
    DRAW: "=",
    LOSS: "0",
    FORFEIT_WIN: "+",
    FORFEIT_LOSS: "-",
    PAIRING_BYE: "U",
    FULL_BYE: "F",
    HALF_BYE: "H",
    ZERO_BYE: "Z",
}
POINTS = {
    WIN: Fraction(1),
    DRAW: Fraction(1, 2),
    LOSS: Fraction(0),
    FORFEIT_WIN: Fraction(1),
    FORFEIT_LOSS: Fraction(0),
    PAIRING_BYE: Fraction(1),
    FULL_BYE: Fraction(1),
    HALF_BYE: Fraction(1, 2),
    ZERO_BYE: Fraction(0),
}


def find_bbp(explicit: str | None, source: str | None) -> Path | None:
    """A runnable bbpPairings: given, or built from a source tree or the git mirror."""
    explicit = explicit or os.environ.get("BBP_PAIRINGS")
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    built = BUILD_DIR / "bbpPairings.exe"
    if built.is_file():
        return built
    source = source or os.environ.get("BBP_SOURCE")
    if not shutil.which("make") or not shutil.which("g++"):
        return None
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    if source:
        shutil.copytree(source, BUILD_DIR, dirs_exist_ok=True)
    elif MIRROR.is_dir():
        archive = subprocess.run(
            ["git", f"--git-dir={MIRROR}", "archive", "HEAD"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(BUILD_DIR)], input=archive, check=True)
    else:
        return None
    print(f"Building bbpPairings in {BUILD_DIR} (a few minutes) ...", flush=True)
    subprocess.run(["make", "-C", str(BUILD_DIR)], check=True, capture_output=True)
    return built if built.is_file() else None


@dataclass
class Sim:
    """A tournament being played: each player's history and state."""

    size: int
    rounds: int
    accelerated: bool
    ratings: list[int]
    history: dict[int, list[DutchGame]] = field(default_factory=dict)
    withdrawn: set[int] = field(default_factory=set)
    absent: dict[int, set[int]] = field(default_factory=dict)  # round -> players not paired
    #: Prohibited pairings (TRF record 260): (first round, last round, start numbers).
    forbidden: list[tuple[int, int, tuple[int, ...]]] = field(default_factory=list)

    def forbidden_in(self, round_number: int) -> list[tuple[int, int]]:
        """The pairs of start numbers that must not meet in round ``round_number``."""
        return [
            (a, b)
            for first, last, numbers in self.forbidden
            if first <= round_number <= last
            for i, a in enumerate(numbers)
            for b in numbers[i + 1 :]
        ]

    def score(self, number: int) -> Fraction:
        return self.score_before(number, len(self.history[number]))

    def score_before(self, number: int, rounds: int) -> Fraction:
        """The points of the player's first ``rounds`` rounds."""
        return sum((POINTS[g.result] for g in self.history[number][:rounds]), Fraction(0))


def simulate(rng: random.Random, sizes: tuple[int, int] = (5, 60)) -> tuple[Sim, int, str | None]:
    """Play one random tournament; (the tournament, rounds paired, error if pairing stopped)."""
    size = rng.randint(*sizes)
    rounds = rng.randint(5, 11)
    sim = Sim(
        size,
        rounds,
        rng.random() < 0.1,
        sorted((rng.randint(1000, 2800) for _ in range(size)), reverse=True),
    )
    sim.history = {n: [] for n in range(1, size + 1)}
    if rng.random() < 0.5:
        # Prohibited pairings (record 260): one to three groups of two or three players
        # (team-mates, family) who must not meet, for the whole event or some rounds of it.
        for _ in range(rng.randint(1, 3)):
            numbers = tuple(sorted(rng.sample(range(1, size + 1), rng.choice([2, 2, 3]))))
            if rng.random() < 0.5:
                first, last = 1, rounds
            else:
                first = rng.randint(1, rounds)
                last = rng.randint(first, rounds)
            sim.forbidden.append((first, last, numbers))
    for round_number in range(1, rounds + 1):
        requested: dict[int, str] = {}
        for n in range(1, size + 1):
            if n in sim.withdrawn:
                requested[n] = ZERO_BYE
            elif round_number > 1 and rng.random() < 0.01:
                sim.withdrawn.add(n)
                requested[n] = ZERO_BYE
            elif rng.random() < 0.03:
                requested[n] = rng.choice([HALF_BYE, HALF_BYE, ZERO_BYE, FULL_BYE])
        players = [
            DutchPlayer(
                n,
                sim.score(n),
                sim.ratings[n - 1],
                tuple(sim.history[n]),
                absent_this_round=n in requested,
            )
            for n in range(1, size + 1)
        ]
        sim.absent[round_number] = set(requested)
        try:
            paired = pair_round(
                players,
                round_number,
                rounds,
                accelerated=sim.accelerated,
                forbidden=sim.forbidden_in(round_number),
            )
        except NoValidPairing as error:
            for n, kind in requested.items():
                sim.history[n].append(DutchGame(None, None, False, kind))
            return sim, round_number - 1, str(error)
        for n, kind in requested.items():
            sim.history[n].append(DutchGame(None, None, False, kind))
        if paired.bye is not None:
            sim.history[paired.bye].append(DutchGame(None, None, False, PAIRING_BYE))
        for white, black in paired.pairs:
            roll = rng.random()
            if roll < 0.03:
                w, b = (
                    (FORFEIT_WIN, FORFEIT_LOSS)
                    if rng.random() < 0.5
                    else (FORFEIT_LOSS, FORFEIT_WIN)
                )
                played = False
            elif roll < 0.035:
                w, b, played = FORFEIT_LOSS, FORFEIT_LOSS, False
            else:
                outcome = rng.random()
                w, b = (
                    (WIN, LOSS)
                    if outcome < 0.4
                    else (DRAW, DRAW)
                    if outcome < 0.65
                    else (LOSS, WIN)
                )
                played = True
            sim.history[white].append(DutchGame(black, "w", played, w))
            sim.history[black].append(DutchGame(white, "b", played, b))
    return sim, rounds, None


def to_trf(sim: Sim, rounds: int, *, next_absences: bool = True) -> str:
    """The tournament's first ``rounds`` rounds as a TRF-2026 file.

    With ``next_absences`` the requested byes and absences of round ``rounds + 1`` are
    written too, so that a pairing program pairing that round leaves those players out.
    """
    tournament = trf.Tournament(
        name="Dutch conformance",
        player_count=sim.size,
        rounds_planned=sim.rounds,
        initial_colour="W",
    )
    for n in range(1, sim.size + 1):
        games = sim.history[n][:rounds]
        tournament.players.append(
            trf.PlayerRecord(
                start_number=n,
                name=f"Player {n:02d}",
                rating=sim.ratings[n - 1],
                points=Decimal(sum((POINTS[g.result] for g in games), Fraction(0)).numerator)
                / Decimal(sum((POINTS[g.result] for g in games), Fraction(0)).denominator),
                rounds=[trf.RoundEntry(g.opponent, g.colour or "-", CODE[g.result]) for g in games],
            )
        )
    if next_absences:
        # Record 240: the byes requested for the next round (absent players are "Z").
        kinds: dict[str, list[int]] = {}
        for n in sorted(sim.absent.get(rounds + 1, ())):
            kinds.setdefault(CODE[sim.history[n][rounds].result], []).append(n)
        for kind, numbers in sorted(kinds.items()):
            tournament.byes.append(trf.ByeRecord(kind, rounds + 1, tuple(numbers)))
    for first, last, numbers in sim.forbidden:
        tournament.prohibited.append(trf.ProhibitedPairing(first, last, numbers))
    if sim.accelerated:
        for round_index in range(sim.rounds):
            points = baku_acceleration(1, sim.size, round_index, sim.rounds)
            if points:
                last = 2 * -(-sim.size // 4)
                tournament.accelerations.append(
                    trf.AccelerationRecord(
                        Decimal(points.numerator) / Decimal(points.denominator),
                        round_index + 1,
                        round_index + 1,
                        1,
                        last,
                    )
                )
    return trf.write(tournament, trf.TRF_2026)


def check(bbp: Path, path: Path) -> tuple[int, list[int], str]:
    """Run the checker: (rounds checked, rounds it rejected, its output)."""
    run = subprocess.run(
        [str(bbp), "--dutch", str(path), "-c"], capture_output=True, text=True, timeout=600
    )
    output = run.stdout + run.stderr
    checked = 0
    rejected: list[int] = []
    current = 0
    for line in run.stdout.splitlines():
        if ": Round #" in line:
            current = int(line.rsplit("#", 1)[1])
            checked += 1
        elif line.strip() and current and (current not in rejected):
            rejected.append(current)
    if run.returncode not in (0,):
        rejected = rejected or list(range(1, checked + 1)) or [0]
    return checked, rejected, output


def run_one(
    job: tuple[int, int, str, str, str, float],
) -> tuple[int, int, int, list[int], str, str, int, int] | None:
    """Play, write and check one tournament: (index, rounds, accepted, rejected, file,
    output, prohibited pairings, full-point byes).

    None when the job starts after the deadline (``time.time()``; 0: none): tournaments
    are started in index order, so those finished always form a prefix of the sequence.
    """
    index, seed, bbp, scratch, keep, deadline = job
    if deadline and time.time() > deadline:
        return None
    sim, rounds, error = simulate(random.Random(seed))
    path = Path(scratch) / f"t{index:05d}-{seed}.trf"
    rejected: list[int] = []
    output = ""
    if rounds:
        path.write_text(to_trf(sim, rounds, next_absences=False), encoding="utf-8", newline="")
        _checked, rejected, output = check(Path(bbp), path)
        rejected = [r for r in rejected if r <= rounds]
    if error:
        # Our engine found no legal pairing for the next round: bbpPairings must agree.
        path.write_text(to_trf(sim, rounds), encoding="utf-8", newline="")
        run = subprocess.run(
            [str(bbp), "--dutch", str(path), "-p", str(path) + ".out"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if run.returncode != 1:
            rejected.append(rounds + 1)
            output += f"\nRound {rounds + 1}: we found no legal pairing, bbpPairings did.\n"
        rounds += 1
    kept = ""
    if rejected:
        kept = str(Path(keep) / path.name)
        shutil.copy(path, kept)
    path.unlink(missing_ok=True)
    return (
        index,
        rounds,
        rounds - len(rejected),
        rejected,
        kept,
        output if rejected else (error or ""),
        len(sim.forbidden),
        sum(game.result == FULL_BYE for games in sim.history.values() for game in games),
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; prints the acceptance rate, returns the process exit code."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=1, help="tournaments checked in parallel")
    parser.add_argument("--bbp", help="a built bbpPairings executable")
    parser.add_argument("--bbp-source", help="a bbpPairings source tree to build")
    parser.add_argument(
        "--keep",
        default=str(Path(os.environ.get("LEAGUE_VAR_DIR", "var")) / "dutch-conformance"),
        help="where the TRF files of rejected tournaments are kept",
    )
    parser.add_argument("--show", type=int, default=5, help="failures listed in full")
    parser.add_argument(
        "--time-limit",
        type=float,
        default=0,
        help="seconds; start no tournament after this and report those finished",
    )
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="index of the first tournament of the seed's sequence to play (to resume or shard)",
    )
    args = parser.parse_args(argv)
    bbp = find_bbp(args.bbp, args.bbp_source)
    if bbp is None:
        print(HOW_TO_GET)
        return 0
    keep = Path(args.keep)
    keep.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    seeds = [rng.randrange(2**32) for _ in range(args.first + args.tournaments)]
    total_rounds = accepted = stopped = done = with_forbidden = full_byes = 0
    failures: list[tuple[int, list[int], str, str]] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        deadline = time.time() + args.time_limit if args.time_limit else 0.0
        jobs = [
            (i, seeds[i], str(bbp), scratch, str(keep), deadline)
            for i in range(args.first, args.first + args.tournaments)
        ]
        with multiprocessing.Pool(max(1, args.jobs)) as pool:
            for outcome in pool.imap_unordered(run_one, jobs):
                if outcome is None:
                    continue
                index, rounds, ok, rejected, kept, output, forbidden, full = outcome
                done += 1
                with_forbidden += forbidden > 0
                full_byes += full
                total_rounds += rounds
                accepted += ok
                if not rejected and output:
                    stopped += 1
                if rejected:
                    failures.append((index, rejected, kept, output))
                if rejected:
                    print(f"  tournament {index}: rounds {rejected} rejected ({kept})", flush=True)
                if done % 25 == 0:
                    print(
                        f"  {done} tournaments, {accepted}/{total_rounds} rounds accepted "
                        f"({time.perf_counter() - started:.0f} s)",
                        flush=True,
                    )
    rate = 100 * accepted / total_rounds if total_rounds else 100.0
    print(
        f"Tournaments {args.first} to {args.first + done - 1} of seed {args.seed} ({done} of "
        f"{args.tournaments} asked), {total_rounds} rounds: "
        f"{accepted} accepted by bbpPairings' checker = {rate:.2f} %; "
        f"{len(failures)} tournaments with a rejected round; "
        f"{stopped} ended early (no legal pairing by the absolute criteria); "
        f"{with_forbidden} tournaments with prohibited pairings (260), "
        f"{full_byes} full-point byes (F); "
        f"{time.perf_counter() - started:.0f} s."
    )
    for index, rejected, kept, output in sorted(failures)[: args.show]:
        print(f"- tournament {index}: rounds {rejected} rejected; file {kept}")
        print("  " + "\n  ".join(output.strip().splitlines()[:40]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
