"""`mqtool http`: writes z/TPF HTTP server configuration files (`init`) and lists the
servers of the complex with their state (`list`)."""

from __future__ import annotations

from typing import Any

import click

from mqtool.cli.main import App, fail, platform_system
from mqtool.listing import Column, emit, format_option

_CONTEXT = {"help_option_names": ["-h", "--help"]}


def _ztpf_system(app: App, wanted: str | None) -> Any:
    """The z/TPF system named (by option, --system of mqtool, or the current one)."""
    return platform_system(app, wanted, "ztpf", "system {name} is z/OS; HTTP servers belong to z/TPF systems")


@click.group(context_settings=_CONTEXT)
def http() -> None:
    """z/TPF HTTP server configuration files (etc/tpf_httpserver/NAME.conf of a
    system). The servers are started, stopped and shown with ZHTPS commands.

    \b
    Examples:
      mqtool http init HTTP81PORT --port 8081 --comp deflate,gzip --compsizehw 20000
      mqtool cmd 'ZHTPS START SERVER-HTTP81PORT'
      mqtool http list
    """


@http.command(context_settings=_CONTEXT)
@click.argument("name")
# The numbers are taken as typed and checked by the file's own rules (ASCII digits,
# in range), so `--port ٣` is refused like PORT-٣ in the file.
@click.option("--port", required=True, metavar="N", help="TCP port, 1-65535, or 0 to let the system choose.")
@click.option("--comp", default="", metavar="CODINGS", help="deflate, gzip or both, in priority order [none].")
@click.option("--compsizehw", default="0", metavar="N", help="Smallest body compressed in hardware; 0 = never [0].")
@click.option("--compsizesw", default="0", metavar="N", help="Smallest body compressed in software; 0 = never [0].")
@click.option("--system", "system_name", metavar="NAME", help="The z/TPF system [the current one].")
@click.option("--force", is_flag=True, help="Replace an existing file.")
@click.pass_obj
def init(
    app: App,
    name: str,
    port: str,
    comp: str,
    compsizehw: str,
    compsizesw: str,
    system_name: str | None,
    force: bool,
) -> None:
    """Write a commented NAME.conf with every keyword, and create its document root
    (www/NAME next to the file). ZHTPS START SERVER-NAME then starts the server.

    \b
    Examples:
      mqtool http init HTTP81PORT --port 8081 --comp gzip,deflate --compsizehw 20000
      mqtool http init WEB1 --port 0 --comp gzip --compsizesw 1000 --system TPF2
    """
    from mqtool.engine.http.config import template
    from mqtool.engine.http.records import conf_path
    from mqtool.tables import check_name, load

    name = name.upper()
    rule = load("ztpf_http").objects["SERVER"].name_rule
    assert rule is not None
    reason = check_name(rule, name, generic_ok=False)
    if reason:
        fail(f"{name} is not a server name: {reason}")
    codings = [part.strip().lower() for part in comp.split(",") if part.strip()] if comp.strip() else []
    try:
        text = template(name, port, codings, compsizehw, compsizesw)
    except ValueError as exc:
        fail(str(exc))
    system = _ztpf_system(app, system_name)
    path = conf_path(app.state_dir, system.name, name)
    if path.exists() and not force:
        fail(f"{path} exists; use --force to replace it")
    docroot = path.parent / "www" / name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        docroot.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")
    click.echo(f"Wrote {path} for {system.name}; document root {docroot}.")
    click.echo(f"Start it with: mqtool cmd 'ZHTPS START SERVER-{name}'")


@http.command(name="list", context_settings=_CONTEXT)
@click.option("--system", "system_name", metavar="NAME", help="Only this z/TPF system [all].")
@format_option()
@click.pass_obj
def list_servers(app: App, system_name: str | None, output_format: str) -> None:
    """List the HTTP servers of the z/TPF systems: those with a configuration file
    and those started once. LISTENING shows the port of a running loop's listener.

    \b
    Examples:
      mqtool http list
      mqtool http list --system TPF1 --format json
    """
    from mqtool.commands.ztpf_http import read_options
    from mqtool.engine.http.records import HTTPSERVER, ServerStatus, conf_path, config_names, shown_path

    folder = app.state_dir
    session = app.session()
    if system_name:
        systems = [_ztpf_system(app, system_name)]
    else:
        systems = [system for system in session.systems() if system.platform == "ztpf"]
    rows: list[dict[str, Any]] = []
    with app.store.transaction(write=False) as tx:
        for system in systems:
            records = {record.name: record for record in tx.objects(system.name, HTTPSERVER)}
            for name in sorted(set(records) | set(config_names(folder, system.name))):
                record = records.get(name)
                status = ServerStatus.of(record)
                owner = status.live_owner() if record is not None else None
                options = read_options(folder, system.name, name)
                rows.append(
                    {
                        "system": system.name,
                        "server": name,
                        "state": status.state,
                        "listening": owner.port if owner is not None and owner.port is not None else None,
                        "port": None if isinstance(options, str) else options.port,
                        "comp": None if isinstance(options, str) else ",".join(options.comp),
                        "file": shown_path(folder, system.name, conf_path(folder, system.name, name)),
                        "error": options if isinstance(options, str) else "",
                    }
                )
    emit(rows, output_format, _TABLE, _FIELDS, empty="No HTTP servers: mqtool http init NAME --port N writes one.")
    if output_format == "table":
        # A file with an error is a row like the others; its error goes below the table.
        for row in rows:
            if row["error"]:
                click.echo(f"{row['system']} {row['server']}: {row['error']}")


# The table of `http list` (csv has every field: _FIELDS).
_TABLE = (
    Column("system", "SYSTEM"),
    Column("server", "SERVER"),
    Column("state", "STATE"),
    Column("listening", "LISTENING", show=lambda port: "NO" if port is None else f"YES {port}"),
    Column("port", "PORT", show=lambda port: "ERROR" if port is None else str(port)),
    Column("comp", "COMP", show=lambda comp: "" if comp is None else comp or "NONE"),
    Column("file", "FILE"),
)
_FIELDS = ("system", "server", "state", "listening", "port", "comp", "file", "error")
