"""The translation check CI runs (``bin/check-translations``): every catalogue complete and
sound, every converted template free of text outside translation tags.

It fails (exit status 1, one line per problem naming the file and line) when

- a catalogue (``locale/<ll>/LC_MESSAGES/*.po``) has an untranslated entry (an empty
  ``msgstr``, or an empty plural form) or a fuzzy one;
- a translation breaks a placeholder: it lacks one of its source's ``%(name)s``, ``{name}``
  or positional ``%s`` / ``%d``, or adds one the source does not have (a plural form may
  leave a named one out, as ``msgfmt`` allows: "ein Spieler" for ``%(n)s player``);
- a template outside ``locale/UNCONVERTED.txt`` has visible text (words between tags, or in
  a ``title``, ``aria-label``, ``alt`` or ``placeholder`` attribute) outside ``{% translate %}``
  / ``{% blocktranslate %}``;
- ``locale/UNCONVERTED.txt`` names a file that no longer exists.

A listed file is left out of the catalogues too (``web/management/commands/makemessages.py``):
a template whose text is all inside translation tags is still unconverted until its strings
are in the catalogues and translated, so the check does not ask for it to leave the list.

Pure Python, no Django: it reads files. ``msgfmt --check`` (GNU gettext) is run on each
catalogue as well when it is installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNCONVERTED = ROOT / "locale" / "UNCONVERTED.txt"

# Placeholders: %(name)s, %(name).3f, %s, %d, %.1f, {name}, {0}; "%%" is a literal percent.
_NAMED = re.compile(r"%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?[sdifgeExXr]")
_POSITIONAL = re.compile(r"%(?!\()[-#0 +]*\d*(?:\.\d+)?[sdifgeExXr]")
_BRACED = re.compile(r"(?<!\{)\{(\w*)\}(?!\})")


@dataclass
class Entry:
    """One message of a catalogue."""

    line: int
    msgctxt: str | None = None
    msgid: str = ""
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)


def _unquote(text: str) -> str:
    body = text.strip()
    if not (body.startswith('"') and body.endswith('"')):
        raise ValueError(f"not a quoted string: {text!r}")
    out, chars, i = [], body[1:-1], 0
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}
    while i < len(chars):
        if chars[i] == "\\" and i + 1 < len(chars):
            out.append(escapes.get(chars[i + 1], chars[i + 1]))
            i += 2
        else:
            out.append(chars[i])
            i += 1
    return "".join(out)


def parse_po(text: str) -> list[Entry]:
    """The entries of a PO file (obsolete ``#~`` entries left out)."""
    entries: list[Entry] = []
    current: Entry | None = None
    key: tuple[str, int] | None = None
    flags: set[str] = set()

    def finish() -> None:
        nonlocal current
        if current is not None:
            entries.append(current)
        current = None

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            finish()
            key = None
            continue
        if line.startswith("#~"):
            continue
        if line.startswith("#,"):
            if current is not None and current.msgid:
                finish()
            flags |= {flag.strip() for flag in line[2:].split(",")}
            continue
        if line.startswith("#"):
            continue
        match = re.match(r"(msgctxt|msgid_plural|msgid|msgstr)(?:\[(\d+)\])?\s+(.*)", line)
        if match:
            name, index, rest = match.group(1), match.group(2), match.group(3)
            if name in ("msgctxt", "msgid") and current is not None and current.msgstr:
                finish()
            if current is None:
                current = Entry(line=number, flags=flags)
                flags = set()
            key = (name, int(index or 0))
            _append(current, key, _unquote(rest))
        elif line.startswith('"') and current is not None and key is not None:
            _append(current, key, _unquote(line))
    finish()
    return entries


def _append(entry: Entry, key: tuple[str, int], text: str) -> None:
    name, index = key
    if name == "msgctxt":
        entry.msgctxt = (entry.msgctxt or "") + text
    elif name == "msgid":
        entry.msgid += text
    elif name == "msgid_plural":
        entry.msgid_plural = (entry.msgid_plural or "") + text
    else:
        entry.msgstr[index] = entry.msgstr.get(index, "") + text


def placeholders(text: str, percent: bool = True) -> tuple[set[str], int, set[str]]:
    """The named ``%(x)s``, the count of positional ``%s`` and the ``{x}`` in ``text``;
    without ``percent`` (an entry flagged ``no-python-format``: a "95 %" is text) the
    braces only."""
    plain = text.replace("%%", "")
    if not percent:
        return set(), 0, set(_BRACED.findall(plain))
    return (
        set(_NAMED.findall(plain)),
        len(_POSITIONAL.findall(plain)),
        set(_BRACED.findall(plain)),
    )


def entry_problems(entry: Entry) -> list[str]:
    """What is wrong with one entry (empty: nothing)."""
    if entry.msgid == "":
        return []  # the header
    name = entry.msgid if len(entry.msgid) <= 60 else entry.msgid[:57] + "..."
    problems = []
    if "fuzzy" in entry.flags:
        problems.append(f"fuzzy entry {name!r}")
    forms = entry.msgstr or {0: ""}
    if any(not text for text in forms.values()):
        problems.append(f"untranslated entry {name!r}")
        return problems
    percent = "no-python-format" not in entry.flags
    singular = placeholders(entry.msgid, percent)
    plural = (
        placeholders(entry.msgid_plural, percent) if entry.msgid_plural is not None else singular
    )
    for index, text in sorted(forms.items()):
        named, positional, braced = placeholders(text, percent)
        allowed_named, allowed_braced = singular[0] | plural[0], singular[2] | plural[2]
        extra = (named - allowed_named) | (braced - allowed_braced)
        # A plural form may leave a named placeholder out (the count: "ein Spieler").
        missing: set[str] = set()
        if entry.msgid_plural is None:
            missing = (singular[0] - named) | (singular[2] - braced)
        if extra or missing or positional != max(singular[1], plural[1]):
            problems.append(
                f"translation {index} of {name!r} breaks a placeholder"
                + (f" (adds {sorted(extra)})" if extra else "")
                + (f" (lacks {sorted(missing)})" if missing else "")
                + (
                    f" ({positional} positional, the source has {max(singular[1], plural[1])})"
                    if positional != max(singular[1], plural[1])
                    else ""
                )
            )
    return problems


def catalogue_problems(path: Path, root: Path = ROOT) -> list[str]:
    """Every problem of the catalogue at ``path``, each naming the file and the line."""
    shown = _shown(path, root)
    try:
        entries = parse_po(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        return [f"{shown}: cannot be read: {error}"]
    found = [
        f"{shown}:{entry.line}: {problem}" for entry in entries for problem in entry_problems(entry)
    ]
    msgfmt = shutil.which("msgfmt")
    if msgfmt is not None:
        result = subprocess.run(
            [msgfmt, "--check", "-o", "/dev/null", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            found.append(f"{shown}: msgfmt --check: {result.stderr.strip()}")
    return found


# Templates.

_COMMENT_BLOCK = re.compile(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", re.S)
_BLOCKTRANSLATE = re.compile(
    r"{%\s*blocktrans(?:late)?\b.*?%}.*?{%\s*endblocktrans(?:late)?\s*%}", re.S
)
_TAG = re.compile(r"{%.*?%}|{{.*?}}|{#.*?#}", re.S)
_RAW_ELEMENT = re.compile(r"<(script|style|pre|code)\b[^>]*>.*?</\1>", re.S | re.I)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_ELEMENT = re.compile(r"<[a-zA-Z!/][^>]*>", re.S)
_ENTITY = re.compile(r"&#?\w+;")
_VISIBLE_ATTRIBUTE = re.compile(
    r"""\b(title|aria-label|alt|placeholder)\s*=\s*("([^"]*)"|'([^']*)')""", re.I
)
#: A word a reader would read: two letters or more.
_WORD = re.compile(r"[^\W\d_]{2,}")


def _blank(match: re.Match[str]) -> str:
    """The match replaced by as many newlines as it held (line numbers stay right)."""
    return "\n" * match.group(0).count("\n") + " "


def template_problems(path: Path, root: Path = ROOT) -> list[str]:
    """The visible text of the template at ``path`` that is outside translation tags."""
    shown = _shown(path, root)
    text = path.read_text(encoding="utf-8")
    text = _COMMENT_BLOCK.sub(_blank, text)
    text = _BLOCKTRANSLATE.sub(_blank, text)
    text = _TAG.sub(_blank, text)
    text = _HTML_COMMENT.sub(_blank, text)
    text = _RAW_ELEMENT.sub(_blank, text)
    problems = []
    for match in _VISIBLE_ATTRIBUTE.finditer(text):
        value = match.group(3) if match.group(3) is not None else match.group(4)
        if _WORD.search(value):
            line = text.count("\n", 0, match.start()) + 1
            problems.append(
                f"{shown}:{line}: {match.group(1)} {value.strip()[:60]!r} is not "
                "marked for translation"
            )
    text = _ELEMENT.sub(_blank, text)
    text = _ENTITY.sub(" ", text)
    for number, line in enumerate(text.splitlines(), start=1):
        if _WORD.search(line):
            problems.append(
                f"{shown}:{number}: {line.strip()[:60]!r} is not marked for translation"
            )
    return problems


def unconverted(path: Path = UNCONVERTED) -> list[str]:
    """The files ``locale/UNCONVERTED.txt`` lists (relative paths; ``#`` starts a comment)."""
    if not path.exists():
        return []
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        name = line.split("#", 1)[0].strip()
        if name:
            names.append(name)
    return names


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def check(root: Path = ROOT) -> list[str]:
    """Every problem of the project at ``root``."""
    problems: list[str] = []
    for catalogue in sorted((root / "locale").glob("*/LC_MESSAGES/*.po")):
        problems += catalogue_problems(catalogue, root)
    listed = unconverted(root / "locale" / "UNCONVERTED.txt")
    for name in listed:
        if not (root / name).exists():
            problems.append(f"locale/UNCONVERTED.txt: {name} does not exist")
    for template in sorted((root / "templates").rglob("*")):
        if template.suffix not in (".html", ".txt") or not template.is_file():
            continue
        name = str(template.relative_to(root))
        if name not in listed:
            problems += template_problems(template, root)
    return problems


def main(argv: list[str] | None = None) -> int:
    """Print every problem; 1 when there is any, else 0."""
    problems = check()
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} translation problem(s); see docs/languages.md", file=sys.stderr)
        return 1
    print("Translations: every catalogue complete, every converted template marked.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
