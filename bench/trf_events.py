"""TRF out and in, checked by bbpPairings: chess events run through the league itself.

Each random event (``--players`` 5 to 16, ``--rounds`` 4 to 7 by default) is created in a
scratch chess league; every round is paired and published by ``manage.py pair_round`` (the
FIDE Dutch system, ``league.chess.pairing``), given random results through the result
service (wins, draws, losses, and one game in twenty forfeited; half the events forbid one
random pair for every round, record 260, and a round has a full-point bye ``F`` given to a
random player one time in ten) and written by ``manage.py
export_trf``. After each round the TRF-2026 file goes to bbpPairings' checker (``--dutch
FILE -c``, which re-pairs every round and reports those whose pairing or colours differ).
When our engine finds no legal pairing, bbpPairings is asked to pair that round and must
fail too. At the end each event is imported into an empty league (``manage.py import_trf``)
and exported again: the two files must be identical.

Prints the rounds checked and accepted, the events whose round trip differs, and the time.
bbpPairings is found or built as ``bench.dutch_conformance`` does (``--bbp``, ``BBP_PAIRINGS``,
``--bbp-source``, ``BBP_SOURCE`` or the git mirror); without it the script says how to get
it and exits 0.

    .venv/bin/python -m bench.trf_events                 # 20 events
    .venv/bin/python -m bench.trf_events --events 200 --seed 3
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, nargs=2, default=(5, 16), metavar=("MIN", "MAX"))
    parser.add_argument("--rounds", type=int, nargs=2, default=(4, 7), metavar=("MIN", "MAX"))
    parser.add_argument("--bbp", help="a built bbpPairings.exe")
    parser.add_argument("--bbp-source", help="a bbpPairings source tree to build")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = parser.parse_args(argv)
    if args.events < 1 or args.players[0] < 2 or args.rounds[0] < 1:
        parser.error("--events, --players and --rounds must be positive (players at least 2)")

    (ROOT / "var").mkdir(exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="bench-trf-", dir=ROOT / "var"))
    # The embedded default in a scratch directory, whatever the caller's environment says.
    os.environ["LEAGUE_VAR_DIR"] = str(scratch)
    os.environ.pop("DATABASE_URL", None)
    os.environ["CELERY_BROKER_URL"] = "filesystem://"
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(40)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    sys.path.insert(0, str(ROOT))
    from bench.dutch_conformance import HOW_TO_GET, find_bbp

    bbp = find_bbp(args.bbp, args.bbp_source)
    if bbp is None:
        print(HOW_TO_GET)
        return 0
    try:
        return run(scratch, bbp, args)
    finally:
        if args.keep:
            print(f"scratch directory kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def run(scratch: Path, bbp: Path, args: argparse.Namespace) -> int:
    import django

    django.setup()
    from django.core.management import CommandError, call_command

    from bench.dutch_conformance import check
    from league import competitions, services
    from league.models import Competition, League

    (scratch / "broker" / "queue").mkdir(parents=True, exist_ok=True)
    (scratch / "broker" / "processed").mkdir(parents=True, exist_ok=True)
    call_command("migrate", verbosity=0)
    rng = random.Random(args.seed)
    start = time.perf_counter()
    checked = accepted = no_pairing = agreed = forbidden = full_byes = 0
    differing: list[str] = []
    failures: list[str] = []
    for index in range(args.events):
        league = League.objects.create(
            name=f"Club {index}",
            slug=f"club-{index}",
            sport="Chess",
            start_date=dt.date(2024, 1, 1),
        )
        size = rng.randint(*args.players)
        rounds = rng.randint(*args.rounds)
        event = competitions.create_competition(
            league, name=f"Swiss {index}", planned_rounds=rounds
        )
        for number, rating in enumerate(sorted(rng.sample(range(1200, 2600), size), reverse=True)):
            player = services.register_player(league, f"Player {number + 1:02d}")
            competitions.enter_player(event, player, seed_rating=rating)
        entrants = [entrant.player for entrant in event.entrants.select_related("player")]
        if rng.random() < 0.5:
            # A forbidden pairing (record 260) for the whole event.
            competitions.forbid_pairing(event, rng.sample(entrants, 2))
            forbidden += 1
        path = scratch / f"event-{index}.trf"
        for round_number in range(1, rounds + 1):
            if rng.random() < 0.1:
                # A full-point bye the pairing does not allocate (F).
                competitions.request_bye(
                    event, rng.choice(entrants), round_number=round_number, kind="requested_full"
                )
                full_byes += 1
            try:
                call_command("pair_round", league.slug, event.slug, stdout=io.StringIO())
            except CommandError:
                no_pairing += 1
                call_command("export_trf", league.slug, event.slug, "--output", str(path))
                refused = subprocess.run(
                    [str(bbp), "--dutch", str(path), "-p", str(path) + ".out"],
                    capture_output=True,
                    timeout=600,
                    check=False,
                )
                agreed += refused.returncode == 1
                if refused.returncode != 1:
                    failures.append(f"{path.name} round {round_number}: bbpPairings pairs it")
                break
            for fixture in event.fixtures.filter(round_number=round_number):
                if rng.random() < 0.05:
                    winner = rng.choice([fixture.player_a, fixture.player_b, None])
                    competitions.record_forfeit(event, fixture, winner=winner)
                else:
                    score = rng.choice(["1", "0.5", "0"])
                    services.record_fixture_result(league, fixture, score_a=score)
            call_command("export_trf", league.slug, event.slug, "--output", str(path))
            _rounds, rejected, output = check(bbp, path)
            checked += round_number
            accepted += round_number - len(rejected)
            if rejected:
                kept = scratch / f"rejected-{index}-{round_number}.trf"
                shutil.copy(path, kept)
                failures.append(f"{kept.name}: rounds {rejected}\n{output}")
        copy = League.objects.create(
            name=f"Copy {index}",
            slug=f"copy-{index}",
            sport="Chess",
            start_date=dt.date(2024, 1, 1),
        )
        out = io.StringIO()
        call_command("import_trf", copy.slug, str(path), stdout=out, stderr=io.StringIO())
        again = scratch / f"again-{index}.trf"
        call_command("export_trf", copy.slug, out.getvalue().strip(), "--output", str(again))
        if again.read_bytes() != path.read_bytes():
            differing.append(path.name)
        assert Competition.objects.filter(league=copy).count() == 1
    elapsed = time.perf_counter() - start
    print(f"{args.events} events (seed {args.seed}), {elapsed:.0f} s")
    share = 100 * accepted / checked if checked else 0.0
    print(f"bbpPairings' checker accepted {accepted} of {checked} round checks ({share:.1f} %)")
    print(f"rounds our engine could not pair: {no_pairing}; bbpPairings agreed on {agreed}")
    print(f"events with a forbidden pairing: {forbidden}; full-point byes: {full_byes}")
    print(f"export, import, export: {args.events - len(differing)} of {args.events} identical")
    for failure in failures[:10]:
        print(failure)
    for name in differing[:10]:
        print(f"round trip differs: {name}")
    return 0 if not failures and not differing else 1


if __name__ == "__main__":
    sys.exit(main())
