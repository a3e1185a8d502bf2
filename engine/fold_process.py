"""A fold computed in a process of its own, its history rows handed back as it goes.

A caller that writes the rows as the fold produces them (a full replay on SQLite) would
otherwise take turns with the fold on one core: the fold's NumPy calls and the driver's
parameter binding both hold the interpreter. Here the fold runs in a child interpreter (this
package and NumPy only: no Django, no database), on another core, and sends each period's
rows, its progress and its result through a pipe; the caller's thread only receives them.

The child runs the same engine code from the same checkout, so the numbers are the same bits
as a fold in the caller's process. An error in the fold is raised again in the caller (the
same exception type and message); the child is ended when the caller stops listening (an
exception in a callback, a kill of the caller: the child's next write finds the pipe closed).
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
import pickle
import subprocess
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from engine.fold import History

__all__ = ["FoldProcessError", "fold_elsewhere"]

#: The checkout whose ``engine`` the child imports: this one's.
ROOT = Path(__file__).resolve().parents[1]
#: Pipe capacity asked for (Linux's default ceiling for an unprivileged process): a few
#: periods' rows, so the fold runs ahead while the caller writes the previous ones.
PIPE_BYTES = 1 << 20
#: F_SETPIPE_SZ (Linux; not in every Python's fcntl module).
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)


class FoldProcessError(RuntimeError):
    """The fold's process ended without a result (killed, out of memory, a crash)."""


def fold_elsewhere(
    function: Callable[..., Any],
    /,
    *args: Any,
    on_progress: Callable[[int, int], None] | None = None,
    on_history: Callable[[History], None] | None = None,
    attribute: str | None = None,
    **kwargs: Any,
) -> Any:
    """``function(*args, **kwargs, on_progress=…, on_history=…)`` computed in a child process.

    ``function`` is an engine fold (``engine.fold.fold``, ``engine.instant.fold_instant``…)
    taking ``on_progress`` and ``on_history`` keywords; the callbacks given here are called in
    this process, in the order the fold calls them. Returns the fold's result, or its
    ``attribute`` when given (the child sends only that: an instant fold's per-row values
    need not cross the pipe when the caller keeps its ``fold``).
    """
    request = pickle.dumps(
        (
            function.__module__,
            function.__qualname__,
            args,
            kwargs,
            on_progress is not None,
            on_history is not None,
            attribute,
        ),
        protocol=pickle.HIGHEST_PROTOCOL,
    )
    child = subprocess.Popen(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); {_SERVE}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert child.stdin is not None
    assert child.stdout is not None
    try:
        _widen(child.stdout)
        try:
            with child.stdin:
                child.stdin.write(request)
        except BrokenPipeError:
            # The child ended before reading the whole request.
            raise _ended(child) from None
        del request  # as big as the inputs: not kept through the fold
        while True:
            try:
                message = pickle.load(child.stdout)
            except (EOFError, pickle.UnpicklingError):
                # Ended between messages, or in the middle of one (killed, out of memory).
                raise _ended(child) from None
            kind = message[0]
            if kind == "history":
                assert on_history is not None
                on_history(message[1])
            elif kind == "progress":
                assert on_progress is not None
                on_progress(message[1], message[2])
            elif kind == "result":
                return message[1]
            else:
                raise message[1]
    finally:
        if child.poll() is None:
            child.kill()
        child.stdout.close()
        child.wait()


def _ended(child: subprocess.Popen[bytes]) -> FoldProcessError:
    """The error for a child that stopped talking (its exit status once it has ended)."""
    try:
        code = child.wait(timeout=10)
    except subprocess.TimeoutExpired:
        child.kill()
        code = child.wait()
    return FoldProcessError(f"the fold's process ended without a result (exit status {code})")


_SERVE = "from engine.fold_process import serve; serve()"


def serve() -> None:
    """The child: read one request from standard input, fold, write the messages out."""
    out = sys.stdout.buffer
    _widen(out)
    module, name, args, kwargs, progress, history, attribute = pickle.load(sys.stdin.buffer)

    def send(*message: Any) -> None:
        # Pickled whole before it is written: a message that cannot be pickled leaves
        # nothing half-written in the stream.
        out.write(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
        out.flush()

    function: Any = importlib.import_module(module)
    for part in name.split("."):
        function = getattr(function, part)
    if progress:
        kwargs["on_progress"] = lambda done, total: send("progress", done, total)
    if history:
        kwargs["on_history"] = lambda rows: send("history", rows)
    try:
        result = function(*args, **kwargs)
        send("result", result if attribute is None else getattr(result, attribute))
    except BrokenPipeError:
        # The caller stopped listening (it failed, or was killed): nobody to tell, and
        # the interpreter's last flush of the pipe must not complain either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
        sys.exit(1)
    except Exception as error:  # handed to the caller, which raises it again
        error.add_note(f"In the fold's process:\n{traceback.format_exc()}")
        try:
            send("error", error)
        except (pickle.PicklingError, TypeError, AttributeError):
            send("error", FoldProcessError(f"{type(error).__name__}: {error}"))


def _widen(pipe: IO[bytes]) -> None:
    """Ask for a larger pipe buffer (harmless where it is refused)."""
    with contextlib.suppress(OSError):
        fcntl.fcntl(pipe.fileno(), _F_SETPIPE_SZ, PIPE_BYTES)
