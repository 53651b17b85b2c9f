"""Channel security attributes at DEFINE and ALTER (rules.py calls these): a channel's
SSLCIPH must be a CipherSpec of IBM MQ for z/OS (SSLPEER is not checked until the
channel starts, as on z/OS: CSQX640E then); QMGR CONNAUTH must name an AUTHINFO of
AUTHTYPE(IDPWOS); AUTHINFO types mqtool does not have are answered before anything is
stored (`authtype`)."""

from __future__ import annotations

from typing import Any

from mqtool.engine.security import cipherspecs
from mqtool.response import FAILED, Response

from . import PARSER_CSECT, RC_WRONG_TYPE, not_found, refuse, syntax

ALIASES = "ANY, ANY_TLS12, ANY_TLS12_OR_HIGHER, ANY_TLS13, ANY_TLS13_OR_HIGHER"
NOT_BUILT = ("CRLLDAP",)  # IBM MQ for z/OS has it; mqtool does not (no LDAP): MQT0400E
NOT_ZOS = ("IDPWLDAP", "OCSP")  # IBM: not valid on z/OS


def channel(req: Any, attrs: dict[str, Any]) -> Response | None:
    """SSLCIPH: a CipherSpec name, its 4-digit hex code, an alias, or blank."""
    value = str(attrs.get("SSLCIPH") or "")
    if "SSLCIPH" not in req.params or not value.strip():
        return None
    try:
        cipherspecs.canonical(value)
    except cipherspecs.CipherSpecError:
        allowed = f"a CipherSpec of IBM MQ for z/OS (mqtool-zos(7) lists them), its hex code, or {ALIASES}"
        return syntax(req, "CSQ9030E", keyword="SSLCIPH", value=value, allowed=allowed)
    return None


def qmgr(ctx: Any, req: Any, attrs: dict[str, Any]) -> Response | None:
    """CONNAUTH: blank, or an AUTHINFO of AUTHTYPE(IDPWOS)."""
    name = str(attrs.get("CONNAUTH") or "").strip()
    if "CONNAUTH" not in req.params or not name:
        return None
    found = ctx.tx.get_object(ctx.system.name, "AUTHINFO", name)
    if found is None:
        return not_found(req, "AUTHINFO", name)
    kind = str(found.attrs.get("AUTHTYPE"))
    if kind != "IDPWOS":
        return refuse(req, "CSQM110I", RC_WRONG_TYPE, objtype="AUTHINFO", name=name, actual=f"AUTHTYPE({kind})")
    return None


def authtype(req: Any) -> Response | None:
    """DEFINE or ALTER AUTHINFO of a type mqtool does not have: CRLLDAP is IBM's and not
    built here (MQT0400E); IDPWLDAP and OCSP are not on z/OS (CSQ9030E)."""
    kind = req.get("AUTHTYPE")
    if kind in NOT_BUILT:
        words = f"{req.verb.name} AUTHINFO AUTHTYPE({kind})"
        result = Response(status=FAILED, framing="zos", verb_words=f"{req.verb.name} AUTHINFO", csect=PARSER_CSECT)
        result.add("MQT0400E", command=words)
        return result
    if kind in NOT_ZOS:
        allowed = "IDPWOS or CRLLDAP (IDPWLDAP and OCSP are not on IBM MQ for z/OS)"
        return syntax(req, "CSQ9030E", keyword="AUTHTYPE", value=kind, allowed=allowed)
    return None
