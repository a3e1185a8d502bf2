"""The translation check (bin/check-translations, web/translation_check.py) fails on a fuzzy
entry, an untranslated one, a broken placeholder and an unmarked template, and passes a sound
project; each problem names its file and line."""

from __future__ import annotations

from pathlib import Path

from web.translation_check import check

HEADER = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Language: de\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

"""

GOOD_ENTRIES = """#, python-format
msgid "Signed in as %(name)s"
msgstr "Angemeldet als %(name)s"

#, python-format
msgid "%(n)s player"
msgid_plural "%(n)s players"
msgstr[0] "ein Spieler"
msgstr[1] "%(n)s Spieler"

msgctxt "result"
msgid "Draw"
msgstr "Remis"

msgid "Rank {rank} of {players}"
msgstr "Platz {rank} von {players}"
"""

GOOD_TEMPLATE = """{% load i18n %}<h1>{% translate "Leagues" %}</h1>
<p title="{% translate 'Standings' %}">
{% blocktranslate %}Played by {{ name }}{% endblocktranslate %}</p>
{% comment %}Notes for developers are not shown.{% endcomment %}
<span>{{ row.rating }}</span> &amp; 42 %
"""


def project(tmp_path: Path, entries: str = GOOD_ENTRIES, template: str = GOOD_TEMPLATE) -> Path:
    messages = tmp_path / "locale" / "de" / "LC_MESSAGES"
    messages.mkdir(parents=True)
    (messages / "django.po").write_text(HEADER + entries, encoding="utf-8")
    pages = tmp_path / "templates" / "pages"
    pages.mkdir(parents=True)
    (pages / "home.html").write_text(template, encoding="utf-8")
    return tmp_path


def test_a_sound_project_passes(tmp_path: Path) -> None:
    assert check(project(tmp_path)) == []


def test_a_fuzzy_entry_fails(tmp_path: Path) -> None:
    entries = GOOD_ENTRIES + '\n#, fuzzy\nmsgid "Standings"\nmsgstr "Tabelle"\n'
    problems = check(project(tmp_path, entries=entries))
    assert len(problems) == 1
    assert "django.po:" in problems[0]
    assert "fuzzy entry 'Standings'" in problems[0]


def test_an_untranslated_entry_fails(tmp_path: Path) -> None:
    entries = GOOD_ENTRIES + '\nmsgid "Standings"\nmsgstr ""\n'
    problems = check(project(tmp_path, entries=entries))
    assert any("untranslated entry 'Standings'" in problem for problem in problems)


def test_an_untranslated_plural_form_fails(tmp_path: Path) -> None:
    entries = (
        GOOD_ENTRIES
        + '\nmsgid "%(n)s match"\nmsgid_plural "%(n)s matches"\nmsgstr[0] "%(n)s Begegnung"'
        + '\nmsgstr[1] ""\n'
    )
    problems = check(project(tmp_path, entries=entries))
    assert any("untranslated entry '%(n)s match'" in problem for problem in problems)


def test_a_broken_named_placeholder_fails(tmp_path: Path) -> None:
    entries = (
        GOOD_ENTRIES + '\nmsgid "Full standings of %(league)s"\nmsgstr "Tabelle von %(liga)s"\n'
    )
    problems = check(project(tmp_path, entries=entries))
    broken = [problem for problem in problems if "breaks a placeholder" in problem]
    assert len(broken) == 1
    assert "adds ['liga']" in broken[0]
    assert "lacks ['league']" in broken[0]


def test_a_lost_positional_placeholder_fails(tmp_path: Path) -> None:
    entries = GOOD_ENTRIES + '\nmsgid "%s ranked"\nmsgstr "gewertet"\n'
    problems = check(project(tmp_path, entries=entries))
    assert any("'%s ranked' breaks a placeholder" in problem for problem in problems)


def test_a_percent_sign_in_a_plain_label_is_text(tmp_path: Path) -> None:
    plain = '\n#, no-python-format\nmsgid "lower end of the 95 % interval"\n'
    problems = check(project(tmp_path, entries=GOOD_ENTRIES + plain + 'msgstr "95-%-Grenze"\n'))
    assert problems == []
    # Without the flag the same "% i" reads as a positional placeholder the translation lost.
    formatted = GOOD_ENTRIES + '\nmsgid "the 95 % interval"\nmsgstr "das 95-%-Intervall"\n'
    problems = check(project(tmp_path / "formatted", entries=formatted))
    assert any("breaks a placeholder" in problem for problem in problems)


def test_a_broken_braced_placeholder_fails(tmp_path: Path) -> None:
    entries = GOOD_ENTRIES + '\nmsgid "Rank {rank}"\nmsgstr "Platz {rang}"\n'
    problems = check(project(tmp_path, entries=entries))
    assert any("'Rank {rank}' breaks a placeholder" in problem for problem in problems)


def test_an_unmarked_template_fails_naming_the_line(tmp_path: Path) -> None:
    template = GOOD_TEMPLATE + "<p>Full standings</p>\n"
    problems = check(project(tmp_path, template=template))
    assert len(problems) == 1
    assert problems[0].endswith("'Full standings' is not marked for translation")
    assert ":6:" in problems[0]


def test_an_unmarked_attribute_fails(tmp_path: Path) -> None:
    template = GOOD_TEMPLATE + '<abbr title="Provisional rating">P</abbr>\n'
    problems = check(project(tmp_path, template=template))
    assert len(problems) == 1
    assert "title 'Provisional rating' is not marked" in problems[0]


def test_a_listed_template_is_not_checked_yet(tmp_path: Path) -> None:
    root = project(tmp_path, template=GOOD_TEMPLATE + "<p>Full standings</p>\n")
    (root / "locale" / "UNCONVERTED.txt").write_text(
        "# not converted yet\ntemplates/pages/home.html\n", encoding="utf-8"
    )
    assert check(root) == []


def test_a_listed_file_that_does_not_exist_fails(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "locale" / "UNCONVERTED.txt").write_text("templates/gone.html\n", encoding="utf-8")
    assert check(root) == ["locale/UNCONVERTED.txt: templates/gone.html does not exist"]


def test_the_project_itself_passes() -> None:
    assert check() == []
