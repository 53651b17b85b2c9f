"""The complex: system defaults per platform, the default complex, and system settings."""

from __future__ import annotations

from typing import Any

from mqtool.state import Store, SystemRecord, Transaction

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
}

ZOS_DEFAULTS: dict[str, Any] = {
    "cpu": "z15",
    "offset": "+00:00",
    "statime": 1,
    "listener": "",
    "log": LOG_DEFAULTS,
    "archive": {},
}

PLATFORM_NAMES = {"ztpf": "z/TPF", "zos": "z/OS"}


def defaults(platform: str) -> dict[str, Any]:
    base = ZTPF_DEFAULTS if platform == "ztpf" else ZOS_DEFAULTS
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}


def bootstrap_system(tx: Transaction, system: SystemRecord, now: float) -> None:
    """Lets the system's dialect create its built-in objects (queue manager, system queues)."""
    if system.platform == "ztpf":
        from mqtool.commands.ztpf_mq import bootstrap as ztpf_bootstrap

        ztpf_bootstrap(tx, system, now)
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
    """Any command that finds no store creates the default complex."""
    with store.transaction() as tx:
        if tx.get_meta("initialised") is None:
            create_default(tx, now)
            tx.set_meta("initialised", "1")
