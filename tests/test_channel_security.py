"""Channel security from the command line: `mqtool keyring`, the MQSC of CHLAUTH,
AUTHINFO and the SSL attributes beyond the golden transcripts (zos_chlauth, zos_tls),
the migration of an older store, export and replay, DISPLAY CHSTATUS's SSL fields and
the TLS context a channel gets from its definitions."""

from __future__ import annotations

import json
import os
import socket
import ssl
import threading
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization

from mqtool.engine.security import tls
from mqtool.state import Store
from tests import certs
from tests.conftest import MQ

# -- mqtool keyring ----------------------------------------------------------------------------


@pytest.fixture
def pems(tmp_path: Path) -> dict[str, Path]:
    issued, other = certs.queue_manager("CSQ1"), certs.queue_manager("QM2", kind="EC")
    files = {
        "cert": issued.cert_pem,
        "key": issued.key_pem,
        "ca": certs.authority(0).cert_pem,
        "other_key": other.key_pem,
        "encrypted": issued.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.BestAvailableEncryption(b"pw")
        ),
        "garbage": b"not a certificate\n",
    }
    out = {}
    for name, data in files.items():
        path = tmp_path / f"{name}.pem"
        path.write_bytes(data)
        out[name] = path
    return out


def test_keyring_create_add_list_remove(mq: MQ, pems: dict[str, Path]) -> None:
    result = mq("keyring", "create", "CSQ1RING")
    assert result.exit_code == 0, result.output
    ring = mq.state_dir / "keyrings" / "CSQ1RING"
    assert result.output == f"Created key ring CSQ1RING at {ring}.\n"
    result = mq("keyring", "add", "CSQ1RING", "--label", "ibmWebSphereMQCSQ1", "--cert", str(pems["cert"]),
                "--key", str(pems["key"]))  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Added ibmWebSphereMQCSQ1 to CSQ1RING: CN=CSQ1,OU=MQ,O=mqtool tests,C=GB, valid")
    result = mq("keyring", "add-ca", "CSQ1RING", "--label", "Test CA", "--cert", str(pems["ca"]))
    assert result.exit_code == 0, result.output
    listed = json.loads(mq("keyring", "list", "CSQ1RING", "--format", "json", clock=None).output)
    assert [(row["label"], row["kind"], row["state"], row["key"]) for row in listed] == [
        ("Test CA", "ca", "VALID", "RSA 2048"),
        ("ibmWebSphereMQCSQ1", "personal", "VALID", "RSA 2048"),
    ]
    assert listed[1]["issuer"] == "CN=Test CA 0,O=mqtool tests,C=GB" and len(listed[1]["fingerprint"]) == 95
    table = mq("keyring", "list", "CSQ1RING").output
    assert table.splitlines()[0].split() == ["LABEL", "KIND", "SUBJECT", "NOT", "AFTER", "STATE", "KEY"]
    # --clock shows what a certificate will be: expired in 2099, not valid yet in 2021.
    assert {row["state"] for row in json.loads(mq("keyring", "list", "CSQ1RING", "--format", "json").output)} == {
        "NOT YET VALID"
    }
    later = json.loads(mq("keyring", "list", "CSQ1RING", "--format", "json", clock="2099-01-01T00:00:00Z").output)
    assert {row["state"] for row in later} == {"EXPIRED"}
    assert mq("keyring", "remove", "CSQ1RING", "--label", "Test CA").output == "Removed Test CA from CSQ1RING.\n"
    csv = mq("keyring", "list", "CSQ1RING", "--format", "csv").output.splitlines()
    assert csv[0].startswith("label,kind,subject,issuer") and len(csv) == 2


def test_keyring_takes_an_absolute_path(mq: MQ, tmp_path: Path) -> None:
    ring = tmp_path / "elsewhere" / "RING"
    assert mq("keyring", "create", str(ring)).exit_code == 0
    assert (ring / "ring.json").is_file()
    assert "is empty" in mq("keyring", "list", str(ring)).output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("add", "R", "--label", "L", "--cert", "{cert}", "--key", "{other_key}"), "does not belong"),
        (("add", "R", "--label", "L", "--cert", "{cert}", "--key", "{encrypted}"), "encrypted"),
        (("add", "R", "--label", "L", "--cert", "{garbage}", "--key", "{key}"), "no PEM"),
        (("add", "R", "--label", "L", "--cert", "{missing}", "--key", "{key}"), "cannot read"),
        (("add", "R", "--label", "L", "--cert", "{huge}", "--key", "{key}"), "larger than"),
        (("add-ca", "R", "--label", "", "--cert", "{ca}"), "label"),
        (("list", "NOSUCHRING"), "not a key ring"),
        (("remove", "R", "--label", "nothing"), "no label"),
        (("create", "R"), "already"),
    ],
)
def test_keyring_errors_are_one_line_and_change_nothing(
    mq: MQ, pems: dict[str, Path], tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    huge = tmp_path / "huge.pem"
    with open(huge, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)
    files = {name: str(path) for name, path in pems.items()} | {"missing": str(tmp_path / "no"), "huge": str(huge)}
    assert mq("keyring", "create", "R").exit_code == 0
    before = sorted(os.listdir(mq.state_dir / "keyrings" / "R"))
    result = mq("keyring", *[arg.format(**files) for arg in args])
    assert result.exit_code == 2
    # in process click says "Error:"; the installed command says "mqtool: error:" (test_process.py)
    assert result.output.startswith("Error: ") and message in result.output and result.output.count("\n") == 1
    assert sorted(os.listdir(mq.state_dir / "keyrings" / "R")) == before


# -- the store: migration, export and replay ----------------------------------------------------


def test_a_queue_manager_of_an_older_store_keeps_running_as_before(tmp_path: Path) -> None:
    from store_versions import store_at

    from mqtool.commands.zos.builtin import builtin_attrs

    conn = store_at(tmp_path / "mqtool.db", 6)
    conn.execute("INSERT INTO systems (name, platform, position, attrs) VALUES ('CSQ1', 'zos', 1, '{}')")
    conn.execute("INSERT INTO systems (name, platform, position, attrs) VALUES ('TPF1', 'ztpf', 2, '{}')")
    conn.execute(
        "INSERT INTO objects (system, type, name, attrs, status, created, altered) "
        "VALUES ('CSQ1', 'QMGR', 'CSQ1', '{\"DESCR\":\"old\"}', '{}', 7, 7)"
    )
    conn.execute(
        "INSERT INTO objects (system, type, name, attrs, status, created, altered) "
        "VALUES ('TPF1', 'QMGR', 'TPFQM', '{}', '{}', 7, 7)"
    )
    conn.close()
    store = Store.open(tmp_path)
    try:
        with store.transaction(write=False) as tx:
            qmgr = tx.get_object("CSQ1", "QMGR", "CSQ1")
            assert qmgr is not None and qmgr.attrs == {"DESCR": "old", "CHLAUTH": "DISABLED"}
            authinfo = tx.get_object("CSQ1", "AUTHINFO", "SYSTEM.DEFAULT.AUTHINFO.IDPWOS")
            assert authinfo is not None and authinfo.attrs == builtin_attrs("AUTHINFO", authinfo.name)
            assert tx.objects("CSQ1", "CHLAUTHREC") == []  # no back-stop records
            tpf = tx.get_object("TPF1", "QMGR", "TPFQM")
            assert tpf is not None and tpf.attrs == {}
            assert tx.get_object("TPF1", "AUTHINFO", "SYSTEM.DEFAULT.AUTHINFO.IDPWOS") is None
    finally:
        store.close()


SETUP = (
    "ALTER QMGR SSLKEYR(CSQ1RING) SSLTASKS(2) CHLAUTH(ENABLED)",
    "DEFINE AUTHINFO(USE.PW) AUTHTYPE(IDPWOS) FAILDLAY(3) CHCKCLNT(OPTIONAL)",
    "ALTER QMGR CONNAUTH(USE.PW)",
    "ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) ADOPTCTX(YES)",
    "DEFINE CHANNEL(TO.CSQ1) CHLTYPE(RCVR) SSLCIPH(ANY_TLS13) SSLPEER('CN=QM2') MCAUSER(MQAPP)",
    "SET CHLAUTH('TO.*') TYPE(QMGRMAP) QMNAME('QM*') USERSRC(MAP) MCAUSER('PARTNER') DESCR('it''s ok')",
    "SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('10.66.*','192.168.0.1-9')",
    "SET CHLAUTH('APP.SVRCONN') TYPE(USERMAP) CLNTUSER('alice') USERSRC(CHANNEL) CHCKCLNT(REQUIRED)",
    "SET CHLAUTH('SYSTEM.*') TYPE(ADDRESSMAP) ADDRESS('*') ACTION(REMOVE)",
    "SET CHLAUTH('*') TYPE(BLOCKUSER) USERLIST('*MQADMIN','nobody')",
)


def test_export_replays_into_a_new_queue_manager(mq: MQ, tmp_path: Path) -> None:
    assert mq("--system", "CSQ1", "cmd", *SETUP).exit_code == 0
    exported = mq("--system", "CSQ1", "export").output
    assert "-CSQ1 SET CHLAUTH('SYSTEM.*') TYPE(ADDRESSMAP) ADDRESS('*') ACTION(REMOVE)" in exported
    assert "-CSQ1 SET CHLAUTH('*') TYPE(BLOCKUSER) USERLIST('*MQADMIN','nobody') DESCR(" in exported
    assert "-CSQ1 DEFINE AUTHINFO(USE.PW) AUTHTYPE(IDPWOS) CHCKCLNT(OPTIONAL) FAILDLAY(3) REPLACE" in exported
    script = tmp_path / "replay.mqsc"
    script.write_text(exported)
    other = MQ(tmp_path / "other")
    replay = other("run", str(script))
    assert replay.exit_code == 0, replay.output
    assert other("--system", "CSQ1", "export").output == exported
    only = mq("--system", "CSQ1", "export", "-t", "CHLAUTH", "-n", "TO.*").output.splitlines()
    assert [line for line in only if not line.startswith("*")] == [
        "-CSQ1 SET CHLAUTH('TO.*') TYPE(QMGRMAP) QMNAME('QM*') USERSRC(MAP) MCAUSER('PARTNER') DESCR('it''s ok') "
        "ACTION(REPLACE)"
    ]
    full = mq("--system", "CSQ1", "export", "-a").output
    assert full.count("ACTION(REPLACE)") == 5  # every record, as dmpmqcfg writes them
    assert full.count("ACTION(REMOVE)") == 1


def test_apply_makes_authinfo_and_connauth_match(mq: MQ, tmp_path: Path) -> None:
    assert mq("--system", "CSQ1", "cmd", *SETUP[:4]).exit_code == 0
    document = tmp_path / "complex.yaml"
    assert mq("export", "--format", "yaml", "--all", "-o", str(document)).exit_code == 0
    other = MQ(tmp_path / "other")
    result = other("apply", str(document))
    assert result.exit_code == 0, result.output
    assert "DEFINE AUTHINFO(USE.PW) AUTHTYPE(IDPWOS)" in result.output
    lines = other("cmd", "-CSQ1 DIS QMGR CONNAUTH SSLKEYR SSLTASKS", "-CSQ1 DIS AUTHINFO(*) ADOPTCTX").output
    assert "CONNAUTH(USE.PW)" in lines and "SSLKEYR(CSQ1RING)" in lines and "SSLTASKS(2)" in lines
    assert lines.count("ADOPTCTX(YES)") == 1
    assert "0 created, 0 updated, 0 deleted" in other("apply", str(document)).output  # a second run: no change


def test_set_chlauth_is_bounded(mq: MQ) -> None:
    many = ",".join(f"'10.0.{i // 200}.{i % 200}'" for i in range(300))
    result = mq("cmd", f"SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST({many})")
    assert "CSQ9030E" in result.output and "at most 256 values" in result.output
    result = mq(
        "cmd", "SET CHLAUTH(X) TYPE(SSLPEERMAP) SSLPEER('" + ",".join(["OU=x"] * 300)[:1024] + "') USERSRC(CHANNEL)"
    )
    assert "CSQM181E" in result.output and "ATTRIBUTES" in result.output
    result = mq("cmd", "SET CHLAUTH(X) TYPE(ADDRESSMAP) ADDRESS('" + "9" * 129 + "') USERSRC(CHANNEL)")
    assert "CSQ9030E" in result.output
    assert "3 CHLAUTH FOUND" in mq("cmd", "DISPLAY CHLAUTH(*)").output  # nothing was added


# -- DISPLAY CHSTATUS and the transport's functions ---------------------------------------------


def test_chstatus_shows_what_the_transport_keeps(mq: MQ) -> None:
    assert mq("cmd", "DEFINE CHANNEL(TO.CSQ1) CHLTYPE(RCVR) MCAUSER(MQRCVR)").exit_code == 0
    fields = {
        "sslciph": "TLS_AES_256_GCM_SHA384",
        "sslpeer": "SERIALNUMBER=10:CF,CN=QM2,OU=MQ,O=Lab,C=GB",
        "sslcerti": "CN=Lab CA,O=Lab,C=GB",
        "sslcertu": "",
        "sslrkeys": 0,
        "sslkeyda": "",
        "sslkeyti": "",
    }
    store = Store.open(mq.state_dir)
    try:
        with store.transaction() as tx:
            record = tx.get_object("CSQ1", "CHANNEL", "TO.CSQ1")
            assert record is not None
            record.status = {"state": "RUNNING", "mcauser": "PARTNER", **fields}
            tx.put_object(record)
    finally:
        store.close()
    shown = mq("cmd", "DIS CHSTATUS(TO.CSQ1) SSLCIPH SSLPEER SSLCERTI SSLRKEYS MCAUSER").output.splitlines()
    assert "SSLCIPH(TLS_AES_256_GCM_SHA384)" in shown
    assert "SSLPEER(SERIALNUMBER=10:CF,CN=QM2,OU=MQ,O=Lab,C=GB)" in shown
    assert "SSLCERTI(CN=Lab CA,O=Lab,C=GB)" in shown and "SSLRKEYS(0)" in shown and "MCAUSER(PARTNER)" in shown


def _handshake(server: ssl.SSLContext, client: ssl.SSLContext) -> tuple[Any, Any]:
    a, b = socket.socketpair()
    a.settimeout(30)
    b.settimeout(30)
    found: dict[str, Any] = {}

    def serve() -> None:
        try:
            with server.wrap_socket(a, server_side=True) as sock:
                found["server"] = tls.chstatus_fields(sock)
                sock.sendall(b"x")
        except Exception as exc:
            found["server"] = tls.classify(exc, tls.SERVER)

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        with client.wrap_socket(b) as sock:
            sock.recv(1)
            found["client"] = tls.chstatus_fields(sock)
    except Exception as exc:
        found["client"] = tls.classify(exc, tls.CLIENT)
    thread.join(60)
    return found["server"], found["client"]


def test_a_channels_context_comes_from_its_definitions(tmp_path: Path) -> None:
    from mqtool.engine.security.keyring import KeyRing, ring_path

    for qmgr in ("CSQ1", "QM2"):
        ring = KeyRing(ring_path(tmp_path, f"{qmgr}RING"))
        ring.create()
        issued = certs.queue_manager(qmgr)
        ring.add_certificate(f"ibmWebSphereMQ{qmgr}", issued.cert_pem, issued.key_pem)
        ring.add_ca("CA", certs.authority(0).cert_pem)
    csq1 = {"SSLKEYR": "CSQ1RING", "SSLTASKS": 2}
    qm2 = {"SSLKEYR": "QM2RING"}  # a z/TPF queue manager: no SSLTASKS
    receiver = {"SSLCIPH": "ANY_TLS12_OR_HIGHER", "SSLCAUTH": "REQUIRED"}
    sender = {"SSLCIPH": "C030"}
    server = tls.for_channel(tmp_path, "CSQ1", csq1, receiver, tls.SERVER, "TO.CSQ1")
    client = tls.for_channel(tmp_path, "QM2", qm2, sender, tls.CLIENT, "TO.CSQ1")
    served, sent = _handshake(server, client)
    assert served["sslciph"] == sent["sslciph"] == "ECDHE_RSA_AES_256_GCM_SHA384"
    assert ",CN=QM2," in served["sslpeer"] and ",CN=CSQ1," in sent["sslpeer"]
    with pytest.raises(tls.TLSSetupError) as caught:
        tls.for_channel(tmp_path, "CSQ1", csq1 | {"SSLTASKS": 0}, receiver, tls.SERVER, "TO.CSQ1")
    assert caught.value.failure.msg_id == "CSQX630E"
    with pytest.raises(tls.TLSSetupError) as caught:
        tls.for_channel(tmp_path, "QM2", qm2 | {"CERTLABL": "missing"}, sender, tls.CLIENT, "TO.CSQ1")
    assert caught.value.failure.msg_id == "CSQX645E"
    failure = caught.value.failure
    assert failure.message_fields("TO.CSQ1", "10.1.2.3(1414)")["label"] == "missing"
    with pytest.raises(tls.TLSSetupError) as caught:
        tls.for_channel(tmp_path, "QM2", {}, sender, tls.CLIENT, "TO.CSQ1")  # no SSLKEYR
    assert caught.value.failure.msg_id == "CSQX630E"
    ztpf = tls.for_channel(tmp_path, "QM2", qm2, {"SSLCIPH": "AES256-SHA256"}, tls.CLIENT, "X")
    plain = tls.for_channel(tmp_path, "CSQ1", csq1, {"SSLCIPH": "TLS_RSA_WITH_AES_256_CBC_SHA256"}, tls.SERVER, "X")
    served, sent = _handshake(plain, ztpf)
    assert served["sslciph"] == "TLS_RSA_WITH_AES_256_CBC_SHA256"
