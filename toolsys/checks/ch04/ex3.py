"""Exercise 4.3, redact secrets and absolute paths: the check and its reference, `redact`.

Nothing secret and no absolute path may reach a model-visible message: a variable is secret because
of its name, not its value, and the result is a redacted copy of the text.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Mapping

from toolsys.checks import CheckFailed, Described, exercise
from toolsys.checks._differential import Call, agree, calls

# text, environment, the redacted text, secrets that must be gone, why
_REDACT_CASES: list[tuple[str, dict[str, str], str, tuple[str, ...], str]] = [
    (
        "API key sk-fake-aaaa1111 was rejected",
        {"OPENAI_API_KEY": "sk-fake-aaaa1111", "HOME": "/home/alice"},
        "API key [redacted] was rejected",
        ("sk-fake-aaaa1111",),
        "Replace the value of every variable whose NAME contains KEY, TOKEN, SECRET or "
        "PASSWORD with [redacted].",
    ),
    (
        "user alice (language forecast-v2) sent sk-fake-eeee5555",
        {"USER": "alice", "LANGUAGE": "forecast-v2", "API_KEY": "sk-fake-eeee5555"},
        "user alice (language forecast-v2) sent [redacted]",
        ("sk-fake-eeee5555",),
        "Only variables whose NAME contains KEY, TOKEN, SECRET or PASSWORD are secret: USER and "
        "LANGUAGE are not, so their values stay.",
    ),
    (
        "db login with hunter2hunter2 as client cl-fake-5555",
        {"DB_PASSWORD": "hunter2hunter2", "CLIENT_SECRET": "cl-fake-5555"},
        "db login with [redacted] as client [redacted]",
        ("hunter2hunter2", "cl-fake-5555"),
        "PASSWORD and SECRET are secret words too, not only KEY and TOKEN.",
    ),
    (
        "GET https://api.weather.example/v1/forecast?key=sk-fake-bbbb2222 failed",
        {"WEATHER_API_KEY": "sk-fake-bbbb2222"},
        "GET https://api.weather.example/v1/forecast?key=[redacted] failed",
        ("sk-fake-bbbb2222",),
        "A secret inside a URL is still a secret; and a URL is not a file path: keep it.",
    ),
    (
        "sync as sa-fake-7777 with key kr-fake-8888 refused",
        {"TOKEN_SYNC_SERVICE": "sa-fake-7777", "KEYRING_PASS": "kr-fake-8888"},
        "sync as [redacted] with key [redacted] refused",
        ("sa-fake-7777", "kr-fake-8888"),
        "The word may be anywhere in the NAME, not only at its end: TOKEN_SYNC_SERVICE and "
        "KEYRING_PASS are secret too (test `word in name.upper()`, not endswith).",
    ),
    (
        "auth with ghp_fake_cccc3333 denied",
        {"github_token": "ghp_fake_cccc3333"},
        "auth with [redacted] denied",
        ("ghp_fake_cccc3333",),
        "Compare names case-insensitively: github_token is a TOKEN too.",
    ),
    (
        "tried tok-fake-1234-extra, then tok-fake-1234",
        {"A_TOKEN": "tok-fake-1234", "B_TOKEN": "tok-fake-1234-extra"},
        "tried [redacted], then [redacted]",
        ("tok-fake-1234", "extra"),
        "When one secret is a prefix of another, replace the longest first.",
    ),
    # the same, whatever order a set of the values comes in: with one pair, half the hash
    # seeds put the longer value first, and a loop that does not sort passes by luck
    (
        ", ".join(f"tok{i}-fake-ab-cd, tok{i}-fake-ab, tok{i}-fake" for i in range(1, 6)),
        {
            f"{kind}{i}_TOKEN": f"tok{i}-fake{tail}"
            for i in range(1, 6)
            for kind, tail in (("A", ""), ("B", "-ab"), ("C", "-ab-cd"))
        },
        ", ".join(["[redacted]"] * 15),
        ("-ab", "-cd"),
        "When one secret is a prefix of another, replace the longest first: sort the values by "
        "length, longest first (a set or a dict comes in no such order).",
    ),
    (
        "p4ss+word.1 rejected; retried p4ss+word.1",
        {"MAIL_PASSWORD": "p4ss+word.1"},
        "[redacted] rejected; retried [redacted]",
        ("p4ss+word.1",),
        "Replace every occurrence, and replace the text as it is: str.replace, not a regular "
        "expression ('+' and '.' mean something there).",
    ),
    (
        "retry 1 of 3 with sk-fake-dddd4444",
        {"DEBUG_TOKEN": "1", "API_KEY": "sk-fake-dddd4444"},
        "retry 1 of 3 with [redacted]",
        ("sk-fake-dddd4444",),
        "Ignore secret values shorter than 4 characters, or every '1' in the text disappears.",
    ),
    (
        "session x9q2 expired; pin abc kept",
        {"SESSION_TOKEN": "x9q2", "PIN_SECRET": "abc"},
        "session [redacted] expired; pin abc kept",
        ("x9q2",),
        "A value of exactly 4 characters is a secret (at least 4: len(value) >= 4); 3 is not.",
    ),
    (
        "cannot open '/home/alice/reports/q3.csv': permission denied",
        {},
        "cannot open '<path>/q3.csv': permission denied",
        ("/home", "alice"),
        "Replace all the directories of an absolute path, keep only the file name, and stop at "
        "the closing quote.",
    ),
    (
        'File "/srv/app/tools/weather.py", line 3, in get_weather',
        {},
        'File "<path>/weather.py", line 3, in get_weather',
        ("/srv", "app/tools"),
        "A path ends at a quote, comma, space or bracket.",
    ),
    (
        "/root/notes.txt: no space left on device",
        {},
        "<path>/notes.txt: no space left on device",
        ("/root",),
        "A path may start the text, and one directory is enough: /root/notes.txt is absolute.",
    ),
    (
        "copied /data/in/a.csv,/data/out/b.csv",
        {},
        "copied <path>/a.csv,<path>/b.csv",
        ("/data",),
        "A comma ends a path, and the next path starts after it.",
    ),
    (
        "Zoë's export to /srv/données/été.csv failed with clé-fake-ünï-9",
        {"EXPORT_SECRET": "clé-fake-ünï-9", "USER": "Zoë"},
        "Zoë's export to <path>/été.csv failed with [redacted]",
        ("données", "clé-fake-ünï-9"),
        "Paths and secrets may hold any letter, not only ASCII: a segment is anything but the "
        "characters that end a path.",
    ),
    (
        "",
        {"API_KEY": "sk-fake-ffff6666"},
        "",
        (),
        "An empty text stays empty.",
    ),
    (
        "see data/orders.csv and/or the 1/2 split",
        {},
        "see data/orders.csv and/or the 1/2 split",
        (),
        "Only absolute paths (starting with /) are redacted; relative ones and 'and/or' stay.",
    ),
]


def redact(text: str, environ: Mapping[str, str]) -> str:
    """Reference for 4.3: `toolsys`'s redaction with `environ` as the environment."""
    from unittest import mock

    from toolsys._redact import redact as toolsys_redact

    with mock.patch.dict(os.environ, dict(environ)):
        return toolsys_redact(text)


# Pieces of text the exercise's two rules decide: words, relative paths, and/or, 1/2, URLs (a
# secret inside one too), absolute paths (in quotes, brackets, after '=', non-ASCII, deep), a
# lone '/'. Left out, as the text does not decide them: a path ending in '/', a path right after
# a ':', a secret inside a path ('[redacted]' holds brackets, which end a path), and shapes of
# keys that no variable holds (which toolsys's own redaction also catches).
_PIECES = ["word", "data/orders.csv", "and/or", "1/2", "https://host/v1/x?k=abcd1234",
           "/home/alice/q3.csv", "'/tmp/a b/c.txt'", "(/var/log/x.log)", "/etc/hosts,",
           "/srv/é/ü.txt", "[/a/b.c]", "x=/opt/app/run.sh", "/a/b/c/d/e.f.g", "/x", "/",
           "~/x/y", "./x/y", "user@example.com", "clé-secrète", "1", "abc"]  # fmt: skip
_SEPARATORS = [" ", ", ", "; ", "\n", " (", ") ", '"', "\t"]
_NAMES_43 = ["API_KEY", "api_key", "GitHub_Token", "DB_PASSWORD", "MY_SECRET", "DEBUG_TOKEN",
             "HOME", "USER", "KEYRING_PATH"]  # fmt: skip
_VALUES_43 = ["abcd1234", "abcd12345678", "s3cr3t", "s3cr3tlonger", "1", "abc", "a.b*c+",
              "clé-secrète", "x=1"]  # fmt: skip


def _redact_call(rng: random.Random, size: int) -> Call:
    """A text of a few pieces and separators (the secrets' values among them, as words and
    inside URLs) and an environment: secret names in any case, values short and long, one the
    prefix of another, with regex characters, non-ASCII, and harmless variables."""
    environ = {name: rng.choice(_VALUES_43) for name in rng.sample(_NAMES_43, rng.randint(0, 4))}
    pieces = _PIECES + list(environ.values())
    text = "".join(
        rng.choice(pieces) + rng.choice(_SEPARATORS) for _ in range(rng.randint(0, 1 + size // 2))
    )
    return Call((text, environ))


_GENERATED = calls(_redact_call, seed=43, count=200)


@exercise(
    "4.3",
    title="Redact secrets and absolute paths",
    hints=[
        "Two passes: secrets first, with str.replace, then paths, with one regular expression. "
        "A variable is secret because of its name, not its value.",
        "Secrets: the values of variables whose name.upper() contains KEY, TOKEN, SECRET or "
        "PASSWORD and that are at least 4 characters long, replaced longest first. Paths: an "
        "absolute path starts at a '/' that is not preceded by a letter, digit, '.', '/' or ':' "
        "(a lookbehind, (?<!...), keeps URLs and 'and/or' out).",
        "Path pattern: the lookbehind, '/', then one or more 'segment/' and a last segment, where "
        "a segment excludes whitespace, quotes, brackets, commas, semicolons and colons. Replace "
        "each match with '<path>/' + the last segment: re.sub(pattern, lambda m: ..., text).",
    ],
    reference=lambda: redact,
)
def _check_redact(student: Callable[[str, Mapping[str, str]], str]) -> None:
    for text, environ, expected, gone, hint in _REDACT_CASES:
        what = f"redact({text!r}, {environ!r})"
        got = student(text, dict(environ))
        if type(got) is not str:
            raise CheckFailed(
                f"{what} should return a str.",
                expected=Described("a str"),
                got=got,
                hint="Return the redacted copy of `text` (strings are immutable: keep the result "
                "of each replace).",
            )
        leaked = [word for word in gone if word in got]
        if leaked:
            raise CheckFailed(
                f"{what} still contains {', '.join(map(repr, leaked))}.",
                expected=expected,
                got=got,
                hint=hint,
            )
        if got != expected:
            raise CheckFailed(
                f"{what} changed the text differently from the exercise's rules.",
                expected=expected,
                got=got,
                hint=hint,
            )
    agree(
        student,
        redact,
        _GENERATED,
        name="redact",
        hint="Secrets first: the values (4 characters or more) of the variables whose name, upper-"
        "cased, holds KEY, TOKEN, SECRET or PASSWORD, longest first; then each absolute path "
        "(a '/' not after a letter, digit, '.', '~', '/' or ':') becomes '<path>/' + its file "
        "name.",
    )
