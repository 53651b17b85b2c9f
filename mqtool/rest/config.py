"""The REST listener configuration `STATE/rest.yaml`: address and port, the bounds the
HTTP server enforces (connections, idle time, body size), and the users with their
mqweb roles. Passwords are stored as scrypt hashes, never as given; the file is
written readable by its owner only. `rest.status.json` beside it tells where a serving
loop listens (the port an OS-chosen port 0 got).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import errno
import hashlib
import hmac
import ipaddress
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mqtool import processes
from mqtool.engine.http.config import (
    DEFAULT_MAXCONN,
    DEFAULT_TIMEOUT,
    MAXCONN_RANGE,
    PORT_RANGE,
    TIMEOUT_RANGE,
    ConfigError,
    ServerOptions,
)

CONFIG_NAME = "rest.yaml"
STATUS_NAME = "rest.status.json"
DEFAULT_HOST = "127.0.0.1"
#: IBM MQ's default MAXMSGL: the largest message a put can carry, so the largest body.
DEFAULT_MAXBODY = 4 * 1024 * 1024
MAXBODY_RANGE = (1024, 100 * 1024 * 1024)
#: mqweb's roles (IBM MQ "Roles on the IBM MQ Console and REST API").
ROLES = ("MQWebAdmin", "MQWebAdminRO", "MQWebUser")
# scrypt cost: about 50 ms a check on a workstation; verified credentials are cached in
# memory by the server (keyed by an HMAC, never the password), so this is paid once.
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1
_KEYS = ("host", "port", "maxconn", "timeout", "maxbody", "users", "tls")
_USER_KEYS = ("name", "roles", "password", "commands")
_TLS_KEYS = ("cert", "key")
#: A grant of every command (`mqtool rest init --grant NAME`).
ALL_COMMANDS = "ALL"


@dataclass(frozen=True)
class RestUser:
    """One user of the REST API: a name, its mqweb roles, and its password's hash."""

    name: str
    roles: tuple[str, ...]
    password: str  # scrypt$N$r$p$salt$hash (base64)
    # The verbs a MQWebUser may run besides those that change nothing (ALL: every one);
    # mqtool.rest.authority decides. A file without the key grants none.
    commands: tuple[str, ...] = ()

    def has(self, *roles: str) -> bool:
        return any(role in self.roles for role in roles)


@dataclass(frozen=True)
class TlsFiles:
    """The PEM certificate (chain) and unencrypted private key `mqtool serve` answers
    https with (absolute paths, checked by `mqtool rest init` and at every start)."""

    cert: Path
    key: Path


@dataclass(frozen=True)
class RestConfig:
    """The REST listener as `rest.yaml` describes it."""

    port: int
    host: str = DEFAULT_HOST
    maxconn: int = DEFAULT_MAXCONN
    timeout: float = DEFAULT_TIMEOUT
    maxbody: int = DEFAULT_MAXBODY
    users: tuple[RestUser, ...] = field(default_factory=tuple)
    tls: TlsFiles | None = None

    @property
    def scheme(self) -> str:
        return "http" if self.tls is None else "https"

    def user(self, name: str) -> RestUser | None:
        # IBM: user ids are not case sensitive (except for MQWebUser's, which are the
        # operating system's); mqtool has no operating system users, so names match exactly.
        return next((user for user in self.users if user.name == name), None)

    def options(self, state_dir: Path) -> ServerOptions:
        """The HTTP server options of the listener (no documents, no compression)."""
        return ServerOptions(
            name="REST",
            port=self.port,
            ip=self.host,
            docroot=Path(state_dir),
            maxconn=self.maxconn,
            timeout=self.timeout,
            comp=(),
            compsizehw=0,
            compsizesw=0,
            path=config_path(state_dir),
        )


def config_path(state_dir: Path) -> Path:
    return Path(state_dir) / CONFIG_NAME


def status_path(state_dir: Path) -> Path:
    return Path(state_dir) / STATUS_NAME


# -------------------------------------------------------------------- passwords
def hash_password(password: str, salt: bytes | None = None) -> str:
    """The stored form of a password: scrypt with a random 16-byte salt."""
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P)
    encoded = [base64.b64encode(part).decode("ascii") for part in (salt, digest)]
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${encoded[0]}${encoded[1]}"


def check_password(stored: str, password: str) -> bool:
    """Whether `password` is the one `stored` was made from (constant-time compare)."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest, validate=True)
        given = hashlib.scrypt(
            password.encode("utf-8"),
            salt=base64.b64decode(salt, validate=True),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
        )
    except (ValueError, binascii.Error, MemoryError):
        return False
    return hmac.compare_digest(given, expected)


def _valid_hash(stored: str) -> bool:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt" or not all(part.isdigit() for part in parts[1:4]):
        return False
    try:
        base64.b64decode(parts[4], validate=True)
        base64.b64decode(parts[5], validate=True)
    except (ValueError, binascii.Error):
        return False
    # Costs a forged file could set to exhaust memory or time are refused.
    return 2 <= int(parts[1]) <= 2**20 and 1 <= int(parts[2]) <= 32 and 1 <= int(parts[3]) <= 16


# ------------------------------------------------------------------ validation
def role_name(text: str) -> str:
    """A role as typed (any case) in IBM's spelling; ValueError naming the roles."""
    for role in ROLES:
        if role.lower() == text.strip().lower():
            return role
    raise ValueError(f"{text!r} is not an mqweb role (roles: {', '.join(ROLES)})")


def user_name(text: str) -> str:
    """A user name: 1-64 printable characters without blanks or a colon (HTTP Basic
    authentication separates name and password with the first colon)."""
    if not 1 <= len(text) <= 64 or not text.isprintable() or ":" in text or any(c.isspace() for c in text):
        raise ValueError(f"{text!r} is not a user name: 1-64 printable characters, no blank or colon")
    return text


def grantable() -> list[str]:
    """The verbs a grant may name: every verb of the dialects that changes something,
    in table order, without repeats."""
    from mqtool import tables

    found: dict[str, None] = {}
    for dialect in tables.DIALECTS:
        for spec in tables.load(dialect).verbs.values():
            if spec.writes:
                found.setdefault(spec.name, None)
    return list(found)


def grant_verb(word: str) -> str:
    """A verb as a grant names it (any case, or an abbreviation such as DEF) in its
    full name, or ALL; ValueError naming the verbs a grant takes."""
    from mqtool import tables

    upper = word.strip().upper()
    if upper == ALL_COMMANDS:
        return ALL_COMMANDS
    for dialect in tables.DIALECTS:
        spec = tables.load(dialect).verb(upper)
        if spec is not None and spec.writes:
            return spec.name
    raise ValueError(f"{word.strip()[:40]!r} is not a verb a grant takes ({', '.join(grantable())} or ALL)")


def grants(words: Any, name: str) -> tuple[str, ...]:
    """The `commands` of a user (a list of verbs, or ALL) in their full names."""
    if words is None:
        return ()
    if isinstance(words, str):
        words = [words]
    if not isinstance(words, list):
        raise ValueError(f"user {name}: commands must be a list of verbs or ALL")
    verbs = tuple(dict.fromkeys(grant_verb(str(word)) for word in words))
    return (ALL_COMMANDS,) if ALL_COMMANDS in verbs else verbs


def host_address(text: str) -> str:
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        raise ValueError(f"{text!r} is not an IPv4 or IPv6 address (e.g. 127.0.0.1)") from None


def _number(key: str, value: Any, low: float, high: float, whole: bool = True) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and not isinstance(value, int)):
        raise ValueError(f"{key} must be a {'whole ' if whole else ''}number from {low:g} to {high:g}")
    if not low <= value <= high:
        raise ValueError(f"{key} must be from {low:g} to {high:g}, not {value}")
    return value


def from_document(data: Any, where: str = "") -> RestConfig:
    """A RestConfig from the parsed YAML; ConfigError saying what is wrong."""
    prefix = f"{where}: " if where else ""
    try:
        if not isinstance(data, dict):
            raise ValueError("the file must be a mapping of host, port, maxconn, timeout, maxbody and users")
        unknown = [str(key) for key in data if key not in _KEYS]
        if unknown:
            raise ValueError(f"unknown key {unknown[0]} (known: {', '.join(_KEYS)})")
        if "port" not in data:
            raise ValueError("port is required")
        users: list[RestUser] = []
        for index, row in enumerate(data.get("users") or [], start=1):
            if not isinstance(row, dict) or any(key not in _USER_KEYS for key in row):
                raise ValueError(f"user {index} must be a mapping of {', '.join(_USER_KEYS)}")
            name = user_name(str(row.get("name", "")))
            roles = row.get("roles") or []
            if isinstance(roles, str):
                roles = [roles]
            if not isinstance(roles, list) or not roles:
                raise ValueError(f"user {name} needs at least one role ({', '.join(ROLES)})")
            stored = str(row.get("password", ""))
            if not _valid_hash(stored):
                raise ValueError(f"user {name}: password is not a hash mqtool wrote (mqtool rest init writes it)")
            if any(user.name == name for user in users):
                raise ValueError(f"user {name} is listed twice")
            chosen = tuple(dict.fromkeys(role_name(str(r)) for r in roles))
            commands = grants(row.get("commands"), name)
            if commands and "MQWebUser" not in chosen:
                raise ValueError(f"user {name}: commands are granted to a MQWebUser only")
            users.append(RestUser(name, chosen, stored, commands))
        return RestConfig(
            port=_number("port", data["port"], *PORT_RANGE),
            host=host_address(str(data.get("host", DEFAULT_HOST))),
            maxconn=_number("maxconn", data.get("maxconn", DEFAULT_MAXCONN), *MAXCONN_RANGE),
            timeout=float(_number("timeout", data.get("timeout", DEFAULT_TIMEOUT), *TIMEOUT_RANGE, whole=False)),
            maxbody=_number("maxbody", data.get("maxbody", DEFAULT_MAXBODY), *MAXBODY_RANGE),
            users=tuple(users),
            tls=_tls(data.get("tls")),
        )
    except ValueError as exc:
        raise ConfigError(f"{prefix}{exc}") from None


def _tls(data: Any) -> TlsFiles | None:
    if data is None:
        return None
    if not isinstance(data, dict) or sorted(data) != sorted(_TLS_KEYS):
        raise ValueError("tls must be a mapping of cert and key (the paths of PEM files)")
    paths = [Path(str(data[key])) for key in _TLS_KEYS]
    if not all(path.is_absolute() for path in paths):
        raise ValueError("tls: cert and key must be absolute paths (mqtool rest init writes them so)")
    return TlsFiles(*paths)


def load(state_dir: Path) -> RestConfig | None:
    """The configuration of `state_dir`, or None when there is none (no REST listener)."""
    path = config_path(state_dir)
    from mqtool import inputs, yamldoc

    try:
        text = inputs.read_file(path, 1024 * 1024, "the largest rest.yaml").decode("utf-8")
    except inputs.InputError as exc:
        if exc.errno == errno.ENOENT:
            return None
        raise ConfigError(f"{path}: cannot read the file: {exc}", path) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read the file: {exc}", path) from None

    try:
        data = yamldoc.load(text)
    except yamldoc.AliasBudgetError as exc:
        raise ConfigError(f"{path}:{exc.line}:{exc.column}: not accepted: {exc.text}", path) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{line}: not YAML: {getattr(exc, 'problem', None) or exc}", path) from None
    return from_document(data, str(path))


def to_text(config: RestConfig) -> str:
    """The commented YAML of a configuration (what `mqtool rest init` writes)."""
    users: list[dict[str, Any]] = []
    for user in config.users:
        row: dict[str, Any] = {"name": user.name, "roles": list(user.roles), "password": user.password}
        if user.commands:
            row["commands"] = list(user.commands)
        users.append(row)
    document: dict[str, Any] = {
        "host": config.host,
        "port": config.port,
        "maxconn": config.maxconn,
        "timeout": config.timeout,
        "maxbody": config.maxbody,
        "users": users,
    }
    if config.tls is not None:
        document["tls"] = {"cert": str(config.tls.cert), "key": str(config.tls.key)}
    head = [
        "# mqtool REST API stand-in (IBM mqweb): read by `mqtool serve` and the shell when they start.",
        "# host: the address to listen on (127.0.0.1: this machine only); port 0: the system chooses.",
        "# maxconn: connections at once; timeout: seconds a request may take; maxbody: largest body in bytes.",
        "# users: name, mqweb roles (MQWebAdmin, MQWebAdminRO, MQWebUser), scrypt hash of the password,",
        "#   commands: the verbs a MQWebUser may run besides DISPLAY (ALL: every one; none when absent).",
        "# tls: the PEM certificate and key of https (absent: plain http).",
        "",
    ]
    return "\n".join(head) + yaml.safe_dump(document, sort_keys=False)


def write(state_dir: Path, config: RestConfig) -> Path:
    """Writes `rest.yaml` (owner read/write only), replacing the file atomically."""
    path = config_path(state_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(to_text(config))
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    return path


# ---------------------------------------------------------------------- status
def write_status(state_dir: Path, host: str, port: int, scheme: str = "http") -> None:
    """Records where this process listens, for `mqtool rest show` and scripts."""
    path = status_path(state_dir)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    record = {"pid": os.getpid(), "host": host, "port": port, "scheme": scheme}
    temporary.write_text(json.dumps(record), encoding="utf-8")
    os.replace(temporary, path)


def clear_status(state_dir: Path) -> None:
    """Forgets this process's listener (another process's record stays)."""
    status = read_status(state_dir)
    if status is not None and status.get("pid") == os.getpid():
        with contextlib.suppress(OSError):
            status_path(state_dir).unlink()


def read_status(state_dir: Path) -> dict[str, Any] | None:
    """Where a live process listens ({"pid", "host", "port"}), or None."""
    try:
        status = json.loads(status_path(state_dir).read_text(encoding="utf-8"))
        pid = int(status["pid"])
        port = int(status["port"])
        host = str(status["host"])
        scheme = "https" if status.get("scheme") == "https" else "http"
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not processes.alive(pid):
        return None  # the process ended without removing it (kill -9)
    return {"pid": pid, "host": host, "port": port, "scheme": scheme}
