"""TCP channel benchmark (issue 17): 10,000 messages of 32 KB generated XML moved from a
z/TPF sender (TPF1, store A) to a z/TPF receiver (TPF2, store B) over 127.0.0.1, each
store run by its own `mqtool serve` process, against the in-store channel of
bench_channels.py (TPF1 to TPF2 in one store, driven by `tick` in this process): the same
queue managers, only the transport differs.

Measured, each on new stores: the messages put to the transmission queue first (not
timed), then the transfer timed: from START CHANNEL until the receiver's queue holds
every message and the transmission queue is empty. Configurations:

- in-store NONE and ZLIBFAST (the reference),
- TCP NONE and TCP ZLIBFAST,
- TLS NONE and TLS ZLIBFAST (SSLCIPH TLS_AES_128_GCM_SHA256, certificates made for the
  run by tls_setup.py), when `cryptography` (the test extra) is installed.

Figures: messages per second; bytes of message data (after compression), of frames
(what the channel writes: data and control) and on the socket (after TLS); the
payload's compression ratio on the wire.

Targets (issue 17): TCP NONE at >= 0.7x the in-store NONE rate; TLS costs <= 1.3x the
same channel without TLS (time); ZLIBFAST over TLS puts the same payload ratio on the
wire as the in-store channel (within 1 point). The median of --rounds rounds counts.

Run:  python benchmarks/bench_tcp_channels.py [--count 10000] [--size 32768] [--batchsz 320]
          [--rounds 3] [--only instore,tcp,tls]
Figures are also printed on `RESULT ` lines. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_channels import _depth, _fill, transfer
from userenv import user_env

from mqtool.clock import Clock
from mqtool.complex import bootstrap_system, defaults, ensure_complex
from mqtool.engine.channels import listeners
from mqtool.engine.channels.status import ChannelStatus
from mqtool.engine.payload import generate
from mqtool.session import Session
from mqtool.state import Store, SystemRecord

POOL = 50_000_000  # SWBs: the benchmark measures transfers, not the sweeper
PATIENCE = 600.0


@dataclass
class Run:
    seconds: float
    before: int = 0  # bytes of the messages
    wire: int = 0  # bytes of message data as sent (compressed or not)
    frames: int = 0  # bytes of frames (data and control)
    socket: int = 0  # bytes on the socket (after TLS)


def _session(folder: Path, system: str) -> tuple[Store, Session]:
    clock = Clock()
    store = Store.open(folder)
    now = clock.timestamp()
    ensure_complex(store, now)
    with store.transaction() as tx:
        record = tx.get_system("TPF1")
        assert record is not None
        record.attrs["swbpool"] = POOL
        tx.put_system(record)
        if system == "TPF2":
            tpf2 = SystemRecord("TPF2", "ztpf", defaults("ztpf") | {"qmgr": "TPFQM2", "swbpool": POOL})
            tx.put_system(tpf2)
            bootstrap_system(tx, tpf2, now)
    return store, Session(store, clock, system)


def _run(session: Session, *lines: str) -> None:
    for line in lines:
        outcome = session.execute(line)
        if outcome.status != "ok":
            raise SystemExit("\n".join(outcome.lines))


def _serve(folder: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "mqtool", "--state", str(folder), "serve"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=user_env(),
    )  # fmt: skip


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _wait(condition: object, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.02)
    raise SystemExit(f"gave up waiting for {what}")


def _loops(store: Store) -> set[int]:
    """The pids of the serving loops registered on a store."""
    with store.transaction(write=False) as tx:
        found = json.loads(tx.get_meta("http.services") or "{}")
    return {int(data["pid"]) for data in found.values()}


def _port(store: Store) -> int:
    with store.transaction(write=False) as tx:
        system = tx.get_system("TPF2")
        assert system is not None
        for address in listeners.configured(system):
            status = listeners.status_of(tx, "TPF2", address)
            if status.state == listeners.LISTENING:
                return status.port
    return 0


def tcp(work: Path, payloads: list[bytes], compmsg: str, batchsz: int, tls: bool) -> Run:
    """One transfer between two stores over TCP, each run by `mqtool serve`."""
    a_dir, b_dir = work / "a", work / "b"
    b_store, b = _session(b_dir, "TPF2")
    ssl_receiver, ssl_sender, ring = ("", "", "")
    if tls:
        from tls_setup import RING, make_rings

        ssl_receiver, ssl_sender = make_rings(a_dir, b_dir)
        ring = f"ZMQSC ALTER QMGR SSLKEYR-{RING}"
        _run(b, ring)
    _run(b, "ZMQSC START LISTENER PORT-0", "ZMQSC DEFINE QL-DEST",
         f"ZMQSC DEFINE CHL-C CHLTYPE-RCVR COMPMSG-ANY BATCHSZ-{batchsz} {ssl_receiver}")  # fmt: skip
    receiver = _serve(b_dir)
    sender: subprocess.Popen[bytes] | None = None
    try:
        _wait(lambda: _port(b_store) > 0, "the receiver's listener")
        a_store, a = _session(a_dir, "TPF1")
        if ring:
            _run(a, ring)
        _run(a, "ZMQSC DEFINE QL-XQ USAGE-XMITQ", "ZMQSC DEFINE QR-DEST.R RNAME-DEST RQMNAME-TPFQM2 XMITQ-XQ",
             f"ZMQSC DEFINE CHL-C CHLTYPE-SDR CONNAME-'127.0.0.1({_port(b_store)})' XMITQ-XQ "
             f"COMPMSG-{compmsg} BATCHSZ-{batchsz} {ssl_sender}")  # fmt: skip
        _fill(a_store, a.clock, payloads)
        sender = _serve(a_dir)
        # Timed from the START once the sender's loop runs (its start-up is not the channel's).
        _wait(lambda: sender.pid in _loops(a_store), "the sender's serving loop")
        started = time.perf_counter()
        _run(a, "ZMQSC START CHL-C")
        count = len(payloads)
        _wait(lambda: _depth(b_store, "TPF2", "DEST") == count and _depth(a_store, "TPF1", "XQ") == 0, "the transfer")
        seconds = time.perf_counter() - started
        with a_store.transaction(write=False) as tx:
            record = tx.get_object("TPF1", "CHL", "C")
            assert record is not None
            total = ChannelStatus.load(record.status).total
        a_store.close()
        return Run(seconds, total.before, total.wire, total.frames, total.socket)
    finally:
        if sender is not None:
            _stop(sender)
        _stop(receiver)
        b_store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--size", type=int, default=32768)
    parser.add_argument("--batchsz", type=int, default=320, help="both ends' BATCHSZ (320 x 32 KB: 10 MB batches)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="instore,tcp,tls", help="configurations: instore, tcp, tls")
    options = parser.parse_args(argv)
    chosen = {name.strip() for name in options.only.split(",") if name.strip()}
    if "tls" in chosen:
        try:
            import tls_setup  # noqa: F401
        except ImportError as exc:
            print(f"TLS runs left out: {exc}")
            chosen.discard("tls")
    payloads = [generate("xml", options.size, 0, index) for index in range(options.count)]
    print(f"{options.count} messages of {options.size} bytes of generated XML, BATCHSZ {options.batchsz}")
    work = Path(tempfile.mkdtemp(prefix="mqtool-bench-tcp-", dir=os.environ.get("MQTOOL_BENCH_DIR")))
    wanted = [kind for kind in ("instore", "tcp", "tls") if kind in chosen]
    kinds = [(kind, compmsg) for kind in wanted for compmsg in ("NONE", "ZLIBFAST")]
    found: dict[tuple[str, str], list[Run]] = {key: [] for key in kinds}
    try:
        for _ in range(options.rounds):
            for kind, compmsg in kinds:
                folder = work / f"{kind}-{compmsg}"
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                if kind == "instore":
                    old = transfer(folder / "store", payloads, 0, compmsg, options.batchsz)
                    found[(kind, compmsg)].append(Run(old.seconds, old.before, old.wire, old.wire, 0))
                else:
                    found[(kind, compmsg)].append(tcp(folder, payloads, compmsg, options.batchsz, kind == "tls"))
                shutil.rmtree(folder, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    median = {key: statistics.median(run.seconds for run in runs_) for key, runs_ in found.items()}
    missed = []
    for (kind, compmsg), runs_ in found.items():
        run = runs_[0]
        ratio = 100 * (1 - run.wire / run.before) if run.before else 0.0
        rate = options.count / median[(kind, compmsg)]
        print(f"  {kind} {compmsg}: " + ", ".join(f"{r.seconds:.2f}s" for r in runs_))
        print(f"RESULT {kind} {compmsg}: {rate:,.0f} msg/s; bytes: messages {run.before:,}, data on the wire "
              f"{run.wire:,} ({ratio:.1f}% fewer), frames {run.frames:,}, socket {run.socket:,}")  # fmt: skip
    if ("instore", "NONE") in median and ("tcp", "NONE") in median:
        speed = median[("instore", "NONE")] / median[("tcp", "NONE")]
        print(f"RESULT TCP NONE at {speed:.2f}x the in-store NONE rate (target >= 0.70)")
        if speed < 0.7:
            missed.append(f"TCP NONE {speed:.2f}x the in-store rate")
    for compmsg in ("NONE", "ZLIBFAST"):
        if ("tls", compmsg) in median and ("tcp", compmsg) in median:
            cost = median[("tls", compmsg)] / median[("tcp", compmsg)]
            print(f"RESULT TLS {compmsg} costs {cost:.2f}x the same channel without TLS (target <= 1.30)")
            if cost > 1.3:
                missed.append(f"TLS {compmsg} {cost:.2f}x")
    if ("tls", "ZLIBFAST") in found and ("instore", "ZLIBFAST") in found:
        tls_run, store_run = found[("tls", "ZLIBFAST")][0], found[("instore", "ZLIBFAST")][0]
        tls_ratio = 100 * (1 - tls_run.wire / tls_run.before)
        store_ratio = 100 * (1 - store_run.wire / store_run.before)
        print(f"RESULT ZLIBFAST payload ratio on the wire: TLS {tls_ratio:.1f}%, in-store {store_ratio:.1f}% "
              "(target: the same within 1 point)")  # fmt: skip
        if abs(tls_ratio - store_ratio) > 1.0:
            missed.append(f"ZLIBFAST ratio over TLS {tls_ratio:.1f}% against {store_ratio:.1f}%")
    if missed:
        print("MISSED: " + "; ".join(missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
