"""The HTTP server configuration file NAME.conf: keywords, defaults, errors, template."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mqtool.engine.http.config import (
    KEYWORDS,
    ConfigError,
    ServerOptions,
    load_options,
    template,
)


def _write(folder: Path, text: str | bytes, name: str = "WEB1.conf") -> Path:
    path = folder / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


def _error(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_options(path, "WEB1")
    return caught.value


def test_defaults(tmp_path: Path) -> None:
    path = _write(tmp_path, "PORT-8080\n")
    assert load_options(path, "WEB1") == ServerOptions(
        name="WEB1",
        port=8080,
        ip="127.0.0.1",
        docroot=tmp_path / "www" / "WEB1",
        maxconn=100,
        timeout=30.0,
        comp=(),
        compsizehw=0,
        compsizesw=0,
        path=path,
    )


def test_every_keyword(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "# HTTP81PORT, as in the seed\n"
        "\n"
        "PORT-8081\n"
        "IP-0.0.0.0   # every interface\n"
        "DOCROOT-pages/site\n"
        "MAXCONN-250\n"
        "TIMEOUT-2.5\n"
        "COMP-gzip, Deflate\n"
        "COMPSIZEHW-20000\n"
        "COMPSIZESW-1000\n",
    )
    options = load_options(path, "WEB1")
    assert options.port == 8081
    assert options.ip == "0.0.0.0"
    assert options.docroot == tmp_path / "pages" / "site"
    assert options.maxconn == 250
    assert options.timeout == 2.5
    assert options.comp == ("gzip", "deflate")
    assert options.compsizehw == 20000
    assert options.compsizesw == 1000


def test_keywords_case_spacing_and_crlf(tmp_path: Path) -> None:
    path = _write(tmp_path, "  port - 9000 \r\ncomp-DEFLATE\r\nip-::1\r\n")
    options = load_options(path, "WEB1")
    assert (options.port, options.comp, options.ip) == (9000, ("deflate",), "::1")


def test_absolute_docroot_and_empty_comp(tmp_path: Path) -> None:
    root = tmp_path / "elsewhere"
    path = _write(tmp_path, f"PORT-1\nDOCROOT-{root}\nCOMP-\n")
    options = load_options(path, "WEB1")
    assert options.docroot == root
    assert options.comp == ()


def test_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    path = _write(tmp_path, b"\xef\xbb\xbfPORT-80\n")
    assert load_options(path, "WEB1").port == 80


def test_frozen(tmp_path: Path) -> None:
    options = load_options(_write(tmp_path, "PORT-80"), "WEB1")
    with pytest.raises(AttributeError):
        options.port = 81  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("PORT-80\nHOST-x\n", 2, "unknown keyword HOST"),
        ("PORT-80\n\n# c\nPORT-81\n", 4, "duplicate keyword PORT (first given on line 1)"),
        ("PORT-80\nport-80\n", 2, "duplicate keyword PORT"),
        ("PORT 80\n", 1, "expected KEYWORD-value"),
        ("-80\n", 1, "expected KEYWORD-value"),
        ("PORT--1\n", 1, "PORT--1: must be a whole number from 0 to 65535"),
        ("PORT-65536\n", 1, "from 0 to 65535"),
        ("PORT-http\n", 1, "from 0 to 65535"),
        ("PORT-+80\n", 1, "from 0 to 65535"),
        ("PORT-8_0\n", 1, "from 0 to 65535"),
        ("PORT-\n", 1, "from 0 to 65535"),
        ("PORT-\u0668\u0660\n", 1, "from 0 to 65535"),  # Arabic-Indic 80
        ("PORT-80\nIP-localhost\n", 2, "must be an IPv4 or IPv6 address"),
        ("PORT-80\nIP-256.1.1.1\n", 2, "IPv4 or IPv6"),
        ("PORT-80\nDOCROOT-\n", 2, "DOCROOT-: must name a folder"),
        ("PORT-80\nMAXCONN-0\n", 2, "MAXCONN-0: must be a whole number from 1 to 65535"),
        ("PORT-80\nMAXCONN-lots\n", 2, "from 1 to 65535"),
        ("PORT-80\nTIMEOUT-0\n", 2, "from 0.001 to 86400"),
        ("PORT-80\nTIMEOUT-86401\n", 2, "from 0.001 to 86400"),
        ("PORT-80\nTIMEOUT-1.2345\n", 2, "at most 3 decimals"),
        ("PORT-80\nTIMEOUT--1\n", 2, "TIMEOUT--1"),
        ("PORT-80\nCOMP-br\n", 2, "'br' is not a coding"),
        ("PORT-80\nCOMP-gzip,,deflate\n", 2, "'' is not a coding"),
        ("PORT-80\nCOMP-gzip,GZIP\n", 2, "gzip is listed twice"),
        ("PORT-80\nCOMPSIZEHW--1\n", 2, "from 0 to 2147483647"),
        ("PORT-80\nCOMPSIZEHW-2147483648\n", 2, "from 0 to 2147483647"),
        ("PORT-80\nCOMPSIZESW-1k\n", 2, "COMPSIZESW-1k: must be a whole number"),
        # issue 8: 4,300+ digits made int() raise a plain ValueError (exit 70 everywhere)
        ("PORT-" + "9" * 5000 + "\n", 1, "from 0 to 65535"),
        ("PORT-80\nMAXCONN-" + "1" * 4301 + "\n", 2, "from 1 to 65535"),
        ("PORT-80\nCOMPSIZEHW-" + "7" * 10_000 + "\n", 2, "from 0 to 2147483647"),
        ("PORT-80\nCOMPSIZESW-1" + "0" * 4400 + "\n", 2, "from 0 to 2147483647"),
        ("PORT-80\nTIMEOUT-" + "9" * 5000 + ".5\n", 2, "from 0.001 to 86400"),
        ("PORT-80\nMAXCONN-\u0663\n", 2, "MAXCONN-\u0663: must be a whole number"),  # Arabic-Indic 3
        ("PORT-80\nMAXCONN-1\u0663\n", 2, "from 1 to 65535"),
        ("PORT-80\nTIMEOUT-\u0661.5\n", 2, "from 0.001 to 86400"),
        ("PORT-80\nCOMPSIZEHW-\uff11\n", 2, "from 0 to 2147483647"),  # fullwidth 1
        ("# only a comment\n\nIP-127.0.0.1\n", 3, "end of file without a PORT line"),
        ("", 1, "PORT is required"),
    ],
)
def test_errors_name_file_and_line(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    path = _write(tmp_path, text)
    error = _error(path)
    assert str(error).startswith(f"{path}:{line}: ")
    assert fragment in str(error)
    assert (error.path, error.line) == (path, line)


def test_unknown_keyword_lists_the_known_ones(tmp_path: Path) -> None:
    error = _error(_write(tmp_path, "PORT-80\nSSL-YES\n"))
    assert ", ".join(KEYWORDS) in str(error)


def test_not_utf8_names_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, b"PORT-80\n# caf\xe9\n")
    error = _error(path)
    assert str(error) == f"{path}:2: not UTF-8 (byte 0xE9 at column 6)"


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.conf"
    error = _error(path)
    assert str(error).startswith(f"{path}: cannot read the file: ")
    assert error.line is None


def test_unreadable_folder(tmp_path: Path) -> None:
    error = _error(tmp_path)  # a folder is not a readable file
    assert str(error).startswith(f"{tmp_path}: cannot read the file: ")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file")
def test_unreadable_permissions(tmp_path: Path) -> None:
    path = _write(tmp_path, "PORT-80\n")
    path.chmod(0)
    assert "cannot read the file" in str(_error(path))


def test_line_numbers_count_only_newlines(tmp_path: Path) -> None:
    # A form feed is not a line end for an editor; it must not shift the count.
    path = _write(tmp_path, "PORT-80\n# page\x0c break\nNOPE-1\n")
    assert str(_error(path)).startswith(f"{path}:3: unknown keyword NOPE")


def test_template_round_trips(tmp_path: Path) -> None:
    text = template("HTTP81PORT", 8081, ("gzip", "deflate"), 20000, 1000)
    for keyword in KEYWORDS:
        assert f"\n{keyword}-" in text
        assert f"# {keyword}: " in text
    path = _write(tmp_path, text, "HTTP81PORT.conf")
    options = load_options(path, "HTTP81PORT")
    assert options == ServerOptions(
        name="HTTP81PORT",
        port=8081,
        ip="127.0.0.1",
        docroot=tmp_path / "www" / "HTTP81PORT",
        maxconn=100,
        timeout=30.0,
        comp=("gzip", "deflate"),
        compsizehw=20000,
        compsizesw=1000,
        path=path,
    )


def test_template_defaults_load(tmp_path: Path) -> None:
    path = _write(tmp_path, template("WEB1", 80))
    options = load_options(path, "WEB1")
    assert (options.comp, options.compsizehw, options.compsizesw) == ((), 0, 0)


def test_port_0_lets_the_system_choose(tmp_path: Path) -> None:
    assert load_options(_write(tmp_path, template("WEB1", 0)), "WEB1").port == 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"port": -1},
        {"port": 70000},
        {"port": 80, "comp": ("br",)},
        {"port": 80, "compsizehw": -1},
        {"port": 80, "compsizesw": 2**31},
    ],
)
def test_template_rejects_what_would_not_load(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=r"must|not a coding"):
        template("WEB1", **kwargs)  # type: ignore[arg-type]


def test_long_numbers_are_checked_without_converting(tmp_path: Path) -> None:
    # Leading zeros do not make a number out of range; the value shown in an
    # error is shortened so one bad line cannot flood a console.
    path = _write(tmp_path, "PORT-" + "0" * 5000 + "80\nMAXCONN-" + "0" * 5000 + "\n")
    error = _error(path)
    assert "MAXCONN-0000000000" in str(error) and "(5000 characters)" in str(error)
    assert len(str(error)) < 300
    path = _write(tmp_path, "PORT-" + "0" * 5000 + "80\n")
    assert load_options(path, "WEB1").port == 80
