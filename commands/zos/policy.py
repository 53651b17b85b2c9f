"""SET POLICY, DISPLAY POLICY and DELETE POLICY: Advanced Message Security policies,
named as the queue each protects, stored as POLICY objects. mqtool signs and encrypts
nothing (AMS is not built): a policy is kept, shown and exported, and puts and gets
ignore it; the queue manager's SPLCAP stays DISABLED.

SET POLICY takes IBM's keywords (SIGNALG, ENCALG, SIGNER, RECIP, ENFORCE|TOLERATE,
KEYREUSE) and ACTION: REPLACE (the policy becomes what the command gives, the rest
defaults), ADD (SIGNER and RECIP join the policy's lists, the other keywords given
replace), REMOVE (the SIGNER and RECIP given leave the lists). DISPLAY POLICY(*) shows
the policies there are; DISPLAY POLICY(name) shows a policy even when none is set, the
default one with no protection (IBM's documented behaviour); a policy name takes no
wildcard."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response
from mqtool.state import ObjectRecord

from . import RC_NOT_FOUND, active_only, object_spec, refuse, reply, rule, syntax
from .display import _attributes
from .pubsub import _blocks as detail_blocks

OBJ = "POLICY"
LISTS = ("SIGNER", "RECIP")


@active_only
def handle(ctx: Any, req: Any) -> Response:
    verb = req.verb.name
    if verb == "SET":
        return set_policy(ctx, req)
    if verb == "DELETE":
        return delete_policy(ctx, req)
    return display_policy(ctx, req)


def defaults() -> dict[str, Any]:
    """A policy with no protection: every attribute at its default."""
    spec = object_spec(OBJ)
    return {
        k.name: (list(k.default) if isinstance(k.default, list) else k.default)
        for k in spec.keywords.values()
        if k.display and k.default is not None
    }


def set_policy(ctx: Any, req: Any) -> Response:
    name = str(req.name)
    existing = ctx.tx.get_object(ctx.system.name, OBJ, name)
    action = str(req.get("ACTION", "REPLACE"))
    given = {key: value for key, value in req.params.items() if key != "ACTION"}
    for key in LISTS:
        for dn in given.get(key) or []:
            if "=" not in str(dn):
                allowed = "a distinguished name, ATTRIBUTE=value pairs separated by commas (CN=name,O=org)"
                return syntax(req, "CSQ9030E", keyword=key, value=str(dn), allowed=allowed)
    if action == "REMOVE":
        others = [key for key in given if key not in LISTS]
        if others:
            return syntax(
                req,
                "CSQ9030E",
                keyword="ACTION",
                value="REMOVE",
                allowed=f"REMOVE with SIGNER and RECIP only, not {others[0]}",
            )
        if not given:
            return syntax(req, "CSQ9031E", keyword="SET POLICY ACTION(REMOVE)", what="SIGNER(dn) or RECIP(dn)")
        if existing is None:
            return refuse(req, "CSQM125I", RC_NOT_FOUND, objtype=OBJ, name=name)
        attrs = dict(existing.attrs)
        for key in LISTS:
            gone = {str(dn) for dn in given.get(key) or []}
            attrs[key] = [dn for dn in attrs.get(key) or [] if dn not in gone]
    elif action == "ADD" and existing is not None:
        attrs = dict(existing.attrs) | {key: value for key, value in given.items() if key not in LISTS}
        for key in LISTS:
            have = list(attrs.get(key) or [])
            attrs[key] = have + [dn for dn in given.get(key) or [] if dn not in have]
    else:  # REPLACE, or ADD to a policy not set yet
        attrs = defaults() | given
    problem = _rules(req, attrs)
    if problem is not None:
        return problem
    created = existing.created if existing is not None else ctx.now
    ctx.tx.put_object(ObjectRecord(ctx.system.name, OBJ, name, attrs, {}, created, ctx.now))
    return reply(req)


def _rules(req: Any, attrs: dict[str, Any]) -> Response | None:
    """IBM's rules between a policy's attributes: recipients with encryption, signers
    with a signature algorithm, key reuse with encryption."""
    encrypts = attrs.get("ENCALG", "NONE") != "NONE"
    if encrypts and not attrs.get("RECIP"):
        return rule(req, "ENCALG", attrs["ENCALG"], "AN ENCRYPTION ALGORITHM NEEDS AT LEAST ONE RECIP")
    if attrs.get("RECIP") and not encrypts:
        return rule(req, "RECIP", attrs["RECIP"][0], "RECIPIENTS NEED AN ENCRYPTION ALGORITHM (ENCALG)")
    if attrs.get("SIGNER") and attrs.get("SIGNALG", "NONE") == "NONE":
        return rule(req, "SIGNER", attrs["SIGNER"][0], "SIGNERS NEED A SIGNATURE ALGORITHM (SIGNALG)")
    if str(attrs.get("KEYREUSE", "DISABLED")) != "DISABLED" and not encrypts:
        return rule(req, "KEYREUSE", attrs["KEYREUSE"], "KEY REUSE NEEDS AN ENCRYPTION ALGORITHM (ENCALG)")
    return None


def delete_policy(ctx: Any, req: Any) -> Response:
    name = str(req.name)
    if ctx.tx.get_object(ctx.system.name, OBJ, name) is None:
        return refuse(req, "CSQM125I", RC_NOT_FOUND, objtype=OBJ, name=name)
    ctx.tx.delete_object(ctx.system.name, OBJ, name)
    return reply(req)


def display_policy(ctx: Any, req: Any) -> Response:
    name = str(req.name)
    if req.select:  # IBM's DISPLAY POLICY takes the name only: every attribute is shown
        return syntax(req, "CSQ9001E", keyword=req.select[0])
    if name == "*":
        records = sorted(ctx.tx.objects(ctx.system.name, OBJ, "*"), key=lambda r: r.name)
    elif name.endswith("*"):
        allowed = "a policy name, or * for every policy (policy names take no wildcard)"
        return syntax(req, "CSQ9030E", keyword=OBJ, value=name, allowed=allowed)
    else:
        found = ctx.tx.get_object(ctx.system.name, OBJ, name)
        records = [found or ObjectRecord(ctx.system.name, OBJ, name, defaults())]
    return detail_blocks(req, [_attributes(ctx, OBJ, record, None) for record in records], OBJ)
