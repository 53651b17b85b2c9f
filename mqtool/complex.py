"""The complex: system defaults per platform, the default complex, and system settings."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from mqtool.state import Store, SystemRecord, Transaction
from mqtool.state.records import CPU_MODELS

ZTPF_DEFAULTS: dict[str, Any] = {
    "cpu": "z15",
    "processor": "B",  # CPU-x in the console header
    "subsystem": "BSS",
    "ssu": "HPN",
    "istream": 1,
    "offset": "-05:00",
    "swbsize": 1024,
    "swbpool": 33000,
    "sweephi": 80,
    "sweeplo": 40,
    "listener": "",
}

LOG_DEFAULTS: dict[str, Any] = {
    "TWOACTV": "YES",
    "TWOARCH": "YES",
    "TWOBSDS": "YES",
    "OFFLOAD": "YES",
    "INBUFF": 60,
    "OUTBUFF": 4000,
    "WRTHRSH": 20,
    "MAXARCH": 500,
    "MAXRTU": 2,
    "MAXCNOFF": 31,
    "DEALLCT": 0,
    "COMPLOG": "NONE",
    "ZHYWRITE": "NO",
    "ZHYLINK": "NO",
    # mqtool's description of the active logs
    "LOGDS": 3,
    "LOGSIZE": 4 * 1024**3,
    "STRIPES": 1,
    "PPRC": "NO",
    # zHyperLink write sessions the storage subsystem has free for this queue manager:
    # 64 on a DS8000, less those that Db2 or other queue managers on it hold
    "ZHLFREE": 64,
}

# CSQ6ARVP, the archive parameters (IBM defaults; SET ARCHIVE changes them until restart)
ARCHIVE_DEFAULTS: dict[str, Any] = {
    "ALCUNIT": "BLK",
    "ARCPFX1": "CSQARC1",
    "ARCPFX2": "CSQARC2",
    "ARCRETN": 9999,
    "ARCWRTC": ["1", "3", "4"],
    "ARCWTOR": "YES",
    "BLKSIZE": 28672,
    "CATALOG": "NO",
    "COMPACT": "NO",
    "PRIQTY": 25715,
    "PROTECT": "NO",
    "QUIESCE": 5,
    "SECQTY": 540,
    "TSTAMP": "NO",
    "UNIT": "TAPE",
    "UNIT2": "",
}

# Days of statistics records kept (mqtool smf): a week, as an installation keeps a week
# of SMF data online before it is offloaded; `mqtool smf purge` removes more at once.
SMF_RETAIN = 7
MAX_SMF_RETAIN = 3660

ZOS_DEFAULTS: dict[str, Any] = {
    "cpu": "z15",
    "offset": "+00:00",
    "statime": 1,
    "smfretain": SMF_RETAIN,
    "listener": "",
    "log": LOG_DEFAULTS,
    "archive": ARCHIVE_DEFAULTS,
}

PLATFORM_NAMES = {"ztpf": "z/TPF", "zos": "z/OS"}


def defaults(platform: str) -> dict[str, Any]:
    base = ZTPF_DEFAULTS if platform == "ztpf" else ZOS_DEFAULTS
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}


def bootstrap_system(tx: Transaction, system: SystemRecord, now: float) -> None:
    """Lets the system's dialect create its built-in objects (queue manager, system queues)."""
    if system.platform == "ztpf":
        from mqtool.commands.ztpf_http import bootstrap as http_bootstrap
        from mqtool.commands.ztpf_mq import bootstrap as ztpf_bootstrap

        ztpf_bootstrap(tx, system, now)
        http_bootstrap(tx, system, now)
    else:
        from mqtool.commands.zos import bootstrap as zos_bootstrap

        zos_bootstrap(tx, system, now)


def create_default(tx: Transaction, now: float) -> None:
    """The default complex: z/TPF TPF1 on a z15 with queue manager TPFQM, and z/OS CSQ1."""
    tpf = SystemRecord("TPF1", "ztpf", defaults("ztpf") | {"qmgr": "TPFQM"})
    tx.put_system(tpf)
    bootstrap_system(tx, tpf, now)
    zos = SystemRecord("CSQ1", "zos", defaults("zos") | {"cpf": "-CSQ1"})
    tx.put_system(zos)
    bootstrap_system(tx, zos, now)
    tx.set_meta("current_system", "TPF1")


def ensure_complex(store: Store, now: float) -> None:
    """Any command that finds no store creates the default complex (a store that has
    one is only read: a reading command works on a full disk)."""
    with store.transaction(write=False) as tx:
        if tx.get_meta("initialised") is not None:
            return
    with store.transaction() as tx:
        if tx.get_meta("initialised") is None:
            create_default(tx, now)
            tx.set_meta("initialised", "1")


# -- system settings: what `mqtool system add|alter` (and a complex YAML) may set -----


class SettingError(ValueError):
    """A system setting that is not valid; the text names the allowed values."""


class Setting(NamedTuple):
    platforms: tuple[str, ...]
    kind: str  # int, choice, pattern, offset, listener, cpf, qmgr
    help: str
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    pattern: str = ""
    what: str = ""  # the allowed values in words, for a pattern


BOTH = ("ztpf", "zos")
SETTINGS: dict[str, Setting] = {
    "cpu": Setting(
        BOTH, "choice", "CPU model; z15 and later have the Integrated Accelerator for zEDC", choices=CPU_MODELS
    ),
    "offset": Setting(BOTH, "offset", "display offset from UTC, +hh:mm or -hh:mm"),
    "listener": Setting(
        BOTH,
        "listener",
        "the TCP listeners, host(port) each, comma-separated (START LISTENER adds one); '' for none",
    ),
    "processor": Setting(
        ("ztpf",), "pattern", "processor id (CPU- in the console header)", pattern=r"[A-Z0-9]", what="1 letter or digit"
    ),
    "subsystem": Setting(
        ("ztpf",),
        "pattern",
        "subsystem name (SS- in the console header)",
        pattern=r"[A-Z][A-Z0-9]{0,3}",
        what="1-4 letters or digits, starting with a letter",
    ),
    "ssu": Setting(
        ("ztpf",),
        "pattern",
        "subsystem user (SSU- in the console header)",
        pattern=r"[A-Z][A-Z0-9]{0,3}",
        what="1-4 letters or digits, starting with a letter",
    ),
    "istream": Setting(("ztpf",), "int", "I-stream number (IS- in the console header)", 1, 99),
    "swbsize": Setting(("ztpf",), "int", "bytes per system work block, 16 of them chain header", 128, 65536),
    "swbpool": Setting(("ztpf",), "int", "system work blocks available to MQ", 1, 100_000_000),
    "sweephi": Setting(("ztpf",), "int", "percent of SWBPOOL in use that starts the sweeper", 1, 100),
    "sweeplo": Setting(("ztpf",), "int", "percent of SWBPOOL in use where the sweeper stops (below SWEEPHI)", 0, 99),
    "qmgr": Setting(("ztpf",), "qmgr", "the system's queue manager (defined with its system queues)"),
    "cpf": Setting(("zos",), "cpf", "command prefix string, 1-8 characters starting with a special character"),
    "statime": Setting(("zos",), "int", "statistics interval in minutes (CSQ6SYSP STATIME)", 0, 1440),
    "smfretain": Setting(
        ("zos",),
        "int",
        "days the statistics records (mqtool smf) are kept; 0 keeps them until mqtool smf purge",
        0,
        MAX_SMF_RETAIN,
    ),
}

# CSQ6LOGP ranges (IBM MQ for z/OS system parameters) for the log settings; a key that
# the z/OS keyword table describes (SET LOG) is checked by that table instead.
LOG_RULES: dict[str, tuple[int, int] | tuple[str, ...]] = {
    "INBUFF": (28, 60),
    "OUTBUFF": (40, 4000),
    "WRTHRSH": (1, 256),
    "MAXARCH": (10, 1000),
    "MAXRTU": (1, 99),
    "MAXCNOFF": (1, 31),
    "DEALLCT": (0, 1440),
    "COMPLOG": ("NONE", "RLE", "ANY"),
    "LOGDS": (2, 310),
    "LOGSIZE": (1024**2, 4 * 1024**3),
    "STRIPES": (1, 4),
    "ZHLFREE": (0, 64),
}

SYSTEM_NAME = {
    "ztpf": (re.compile(r"^[A-Z][A-Z0-9]{0,7}$"), "1-8 letters or digits, starting with a letter"),
    "zos": (
        re.compile(r"^[A-Z@#$][A-Z0-9@#$]{0,3}$"),
        "a subsystem id: 1-4 letters, digits or @ # $, not a digit first",
    ),
}
# First characters a CPF may have: IBM's special characters, less those that mean
# something else to mqtool (`.` directive, `*` comment, `;` end of command, quotes
# and parentheses).
CPF_FIRST = "¢<+|&!$¬-/%_?:#@="
_CPF = re.compile(r"^[A-Z0-9@#$]{0,7}$")


def check_system_name(platform: str, name: str) -> str:
    """The name upper-cased, or SettingError."""
    upper = name.strip().upper()
    pattern, what = SYSTEM_NAME[platform]
    if not pattern.match(upper):
        raise SettingError(f"{name!r} is not a valid {PLATFORM_NAMES[platform]} system name: {what}")
    return upper


def check_setting(platform: str, key: str, raw: str) -> Any:
    """Converts and checks one setting given as text; returns the value to store."""
    setting = SETTINGS.get(key)
    if setting is None:
        raise SettingError(f"unknown setting {key}; settings: {', '.join(SETTINGS)}")
    if platform not in setting.platforms:
        other = PLATFORM_NAMES[setting.platforms[0]]
        raise SettingError(f"applies to {other} systems only, not to {PLATFORM_NAMES[platform]}")
    text = raw.strip()
    if setting.kind == "int":
        return _int(text, setting.low, setting.high)
    if setting.kind == "choice":
        if text.lower() not in setting.choices:
            raise SettingError(f"{raw!r} is not valid: {', '.join(setting.choices)}")
        return text.lower()
    if setting.kind == "pattern":
        if not re.fullmatch(setting.pattern, text.upper()):
            raise SettingError(f"{raw!r} is not valid: {setting.what}")
        return text.upper()
    if setting.kind == "offset":
        from mqtool.clock import ClockError, format_offset, parse_offset

        try:
            return format_offset(parse_offset(text))
        except ClockError as exc:
            raise SettingError(str(exc)) from exc
    if setting.kind == "listener":
        from mqtool.engine.channels import conname

        try:
            addresses = conname.parse_list(text, listener=True)
        except conname.ConnameError as exc:
            raise SettingError(f"{exc}; e.g. 127.0.0.1(1414), or several separated by commas") from exc
        if len(set(addresses)) != len(addresses):
            raise SettingError(f"{raw!r} names an address twice")
        return conname.format_list(addresses)
    if setting.kind == "cpf":
        upper = text.upper()
        if not upper or len(upper) > 8 or upper[0] not in CPF_FIRST or not _CPF.match(upper[1:]):
            raise SettingError(
                f"{raw!r} is not a command prefix: 1-8 characters, the first one of {' '.join(CPF_FIRST)}, "
                "then letters, digits, @ # $"
            )
        return upper
    # qmgr: the ZMQSC name rules of the queue manager, upper-cased like an unquoted name
    from mqtool.tables import check_name, load

    upper = text.upper()
    rule = load("ztpf_mq").objects["QMGR"].name_rule
    reason = check_name(rule, upper, generic_ok=False) if rule else None
    if reason:
        raise SettingError(f"{raw!r} is not a queue manager name: {reason}")
    return upper


def check_parameter(group: str, key: str, raw: str, known: dict[str, Any]) -> Any:
    """One z/OS log (CSQ6LOGP) or archive (CSQ6ARVP) parameter, KEY=VALUE. The keys are
    those of `known` (the defaults); the value is checked by the z/OS keyword table when
    it describes the key (SET LOG / SET ARCHIVE), else by LOG_RULES, else by the type of
    the default."""
    name = key.strip().upper()
    if name not in known:
        raise SettingError(f"unknown {group} parameter {key}; parameters: {', '.join(known) or 'none'}")
    text = raw.strip()
    spec = _zos_keyword(group, name)
    if spec is not None:
        from mqtool.tables import convert

        # Upper case, as MQSC reads an unquoted value (UNIT=tape is TAPE).
        upper = text.upper()
        value, error = convert(spec, upper.split(",") if spec.type == "list" else upper)
        if error is None:
            return value
        raise SettingError(f"{name}={raw} is not valid: {error.allowed or spec.describe_values()}")
    rule = LOG_RULES.get(name) if group == "log" else None
    default = known[name]
    if isinstance(rule, tuple) and rule and isinstance(rule[0], int):
        low, high = rule[0], rule[1]
        return _int(text, int(low), int(high), name)
    if rule:
        if text.upper() not in rule:
            raise SettingError(f"{name}={raw} is not valid: {', '.join(str(r) for r in rule)}")
        return text.upper()
    if isinstance(default, bool) or str(default).upper() in ("YES", "NO"):
        if text.upper() not in ("YES", "NO"):
            raise SettingError(f"{name}={raw} is not valid: YES, NO")
        return text.upper()
    if isinstance(default, int):
        return _int(text, 0, 2**31 - 1, name)
    if isinstance(default, (list, tuple)):
        return [item.strip().upper() for item in text.split(",") if item.strip()]
    if not text or len(text) > 44:
        raise SettingError(f"{name}={raw} is not valid: 1-44 characters")
    return text.upper()


def _zos_keyword(group: str, name: str) -> Any:
    from mqtool.tables import load

    obj = load("zos").objects.get(group.upper())
    spec = None if obj is None else obj.keywords.get(name)
    return spec if spec is not None and "SET" in spec.verbs else None  # not ARCHIVE LOG's OFFLOAD


def _int(text: str, low: int, high: int, name: str = "") -> int:
    label = f"{name}={text}" if name else repr(text)
    if not re.fullmatch(r"[0-9]{1,12}", text):  # ASCII digits only
        raise SettingError(f"{label} is not valid: a whole number {low}-{high}")
    value = int(text)
    if not low <= value <= high:
        raise SettingError(f"{label} is not valid: {low}-{high}")
    return value


def check_system(system: SystemRecord, others: list[SystemRecord]) -> None:
    """Rules between settings, and between systems: SWEEPLO below SWEEPHI; a CPF that is
    neither a prefix of another system's CPF nor has one as its prefix (a command line
    must select one system); a listener address used once."""
    attrs = system.attrs
    if system.platform == "ztpf" and int(attrs.get("sweeplo", 0)) >= int(attrs.get("sweephi", 100)):
        raise SettingError(f"sweeplo {attrs.get('sweeplo')} must be below sweephi {attrs.get('sweephi')}")
    cpf = str(attrs.get("cpf", "")).upper()
    from mqtool.engine.channels.listeners import configured

    mine = configured(system)
    for other in others:
        if other.name == system.name:
            continue
        theirs = str(other.attrs.get("cpf", "")).upper()
        both = system.platform == other.platform == "zos" and cpf and theirs
        if both and (cpf.startswith(theirs) or theirs.startswith(cpf)):
            raise SettingError(f"cpf {cpf} clashes with {theirs} of system {other.name}: neither may begin the other")
        for address in mine:
            for theirs_address in configured(other):
                if address.covers(theirs_address):  # PORT 0 overlaps nothing: each gets its own port
                    raise SettingError(f"listener {address} is already a listener of system {other.name}")


# The settings of a system, as the options of `mqtool system add/alter` name them: name,
# metavar, help.
SETTING_OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("cpu", "MODEL", "CPU model z13, z14, z15, z16 or z17; z15 and later have the zEDC accelerator [z15]."),
    ("offset", "+HH:MM", "Display offset from UTC [z/TPF -05:00, z/OS +00:00]."),
    (
        "listener",
        "HOST(PORT)",
        "TCP listeners, comma-separated (START LISTENER adds one); a sender's CONNAME names one; '' for none.",
    ),
    ("processor", "X", "z/TPF: processor id, CPU- in the console header [B]."),
    ("subsystem", "NAME", "z/TPF: subsystem, SS- in the console header, 1-4 characters [BSS]."),
    ("ssu", "NAME", "z/TPF: subsystem user, SSU- in the console header, 1-4 characters [HPN]."),
    ("istream", "N", "z/TPF: I-stream number 1-99, IS- in the console header [1]."),
    ("swbsize", "BYTES", "z/TPF: bytes per system work block, 128-65536 [1024]."),
    ("swbpool", "N", "z/TPF: system work blocks available to MQ [33000]."),
    ("sweephi", "PCT", "z/TPF: SWB use (percent of the pool) that starts the sweeper [80]."),
    ("sweeplo", "PCT", "z/TPF: SWB use where the sweeper stops, below --sweephi [40]."),
    ("qmgr", "NAME", "z/TPF: define the system's queue manager (with its system queues)."),
    ("cpf", "PREFIX", "z/OS: command prefix string, 1-8 characters, e.g. -CSQ2 [-NAME]."),
    ("statime", "MINUTES", "z/OS: statistics interval 0-1440 minutes [1]."),
    (
        "smfretain",
        "DAYS",
        f"z/OS: days the statistics records of mqtool smf are kept, 0-{MAX_SMF_RETAIN}; 0 keeps them until "
        f"mqtool smf purge [{SMF_RETAIN}].",
    ),
)


def add_command_line(record: Any, qmgr: str | None) -> str:
    """The `mqtool system add` command that recreates a system's settings (used in the
    header of `mqtool export`): only the settings that differ from the defaults."""
    base = defaults(record.platform)
    words = ["mqtool", "system", "add", record.name, "--platform", record.platform]
    for name, _, _ in SETTING_OPTIONS:
        if name == "qmgr":
            if qmgr and record.platform == "ztpf":
                words += ["--qmgr", qmgr]
            continue
        if name == "cpf" and record.attrs.get("cpf") == "-" + record.name:
            continue
        if name in record.attrs and record.attrs[name] != base.get(name):
            words += [f"--{name}", str(record.attrs[name])]
    for group in ("log", "archive"):
        for key, value in dict(record.attrs.get(group) or {}).items():
            if value != dict(base.get(group) or {}).get(key):
                shown = ",".join(str(v) for v in value) if isinstance(value, list) else value
                words += [f"--{group}", f"{key}={shown}"]
    import shlex  # here: a command that does not quote words need not load it

    return " ".join(shlex.quote(word) for word in words)
