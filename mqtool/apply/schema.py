"""The JSON Schema of the complex document that `mqtool export --format yaml|json` writes
and `mqtool apply` reads, built from the keyword tables and the system settings.

The schema is published in the package as mqtool/schema/complex.schema.json (for
editors and other tools); `python -m mqtool.apply.schema` writes it again after a
table changes, and a test fails while the file is out of date.
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

SCHEMA_FILE = "complex.schema.json"
SCHEMA_ID = "https://mqtool.invalid/schema/complex.schema.json"
PLATFORMS = {"ztpf": "ztpf_mq", "zos": "zos"}
# Tables whose objects a system of the platform also holds (the z/TPF MQI channel directory).
MORE_TABLES = {"ztpf": ("ztpf_mqid",)}


def schema_text() -> str:
    """The published schema file, as the package holds it."""
    return resources.files("mqtool").joinpath("schema", SCHEMA_FILE).read_text(encoding="utf-8")


def load_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(schema_text())
    return schema


def keyword_schema(spec: Any) -> dict[str, Any]:
    """One attribute's values, from its keyword table row."""
    out: dict[str, Any] = {"description": spec.help} if spec.help else {}
    if spec.type == "int":
        number: dict[str, Any] = {"type": "integer"}
        if spec.min is not None:
            number["minimum"] = spec.min
        if spec.max is not None:
            number["maximum"] = spec.max
        if spec.words:
            words = [int(word) if word.isdigit() else word for word in spec.words]
            return out | {"anyOf": [number, {"enum": words}]}
        return out | number
    if spec.type == "enum":
        return out | {"enum": list(spec.values)}
    if spec.type == "switch":
        return out | {"enum": ["YES", "NO"]}
    if spec.type == "names":
        names: dict[str, Any] = {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": spec.max or 48, "pattern": "^[A-Za-z0-9./_%]+$"},
        }
        if spec.max_items is not None:
            names["maxItems"] = spec.max_items
        return out | names
    if spec.type == "list":
        each: dict[str, Any] = {"enum": list(spec.values)} if spec.values else {"type": "string"}
        items: dict[str, Any] = {"type": "array", "items": each, "uniqueItems": True}
        if spec.max_items is not None:
            items["maxItems"] = spec.max_items
        return out | items
    text: dict[str, Any] = {"type": "string"}
    if spec.max is not None:
        text["maxLength"] = spec.max
    return out | text


def written(obj: Any) -> list[Any]:
    """The attributes of an object type that a document holds (what export writes)."""
    from mqtool.commands.ztpf_mq.export import written_keywords

    return written_keywords(obj)


def definable(table: Any) -> list[str]:
    """The object types a document may hold: those DEFINE or ALTER take, in table order."""
    wanted = {o for verb in ("DEFINE", "ALTER") for o in table.verbs[verb].objects}
    return [name for name in table.objects if name in wanted]


def _name_schema(table: Any, obj: Any) -> dict[str, Any]:
    if obj.name in ("PSID", "BUFFPOOL"):
        return {"type": "string", "pattern": "^[0-9]{1,2}$"}
    rule = obj.name_rule
    out: dict[str, Any] = {"type": "string", "minLength": 1, "pattern": "^[A-Za-z0-9./_%]+$"}
    if rule is not None:
        out["maxLength"] = rule.max
        if rule.reserved:
            out["not"] = {"enum": list(rule.reserved)}
    if obj.nameless:
        out = {"type": "string", "minLength": 1, "maxLength": 48}
    return out


def _setting_schema(setting: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"description": setting.help}
    if setting.kind == "int":
        return out | {"type": "integer", "minimum": setting.low, "maximum": setting.high}
    if setting.kind == "choice":
        return out | {"enum": list(setting.choices)}
    if setting.kind == "pattern":
        return out | {"type": "string", "pattern": f"^{setting.pattern}$"}
    if setting.kind == "offset":
        return out | {"type": "string", "pattern": "^[+-][0-9]{2}:[0-9]{2}$"}
    if setting.kind == "cpf":
        return out | {"type": "string", "minLength": 1, "maxLength": 8}
    if setting.kind == "qmgr":
        return out | {"type": "string", "minLength": 1, "maxLength": 48}
    return out | {"type": "string", "maxLength": 256}


def _parameter_schema(group: str, name: str, default: Any) -> dict[str, Any]:
    """A z/OS log or archive parameter: the z/OS table's SET row where there is one,
    else the ranges mqtool.complex checks."""
    from mqtool import tables
    from mqtool.complex import LOG_RULES

    spec = tables.load("zos").objects[group.upper()].keywords.get(name)
    if spec is not None:
        return keyword_schema(spec)
    rule = LOG_RULES.get(name) if group == "log" else None
    if isinstance(rule, tuple) and rule and isinstance(rule[0], int):
        return {"type": "integer", "minimum": rule[0], "maximum": rule[1]}
    if rule:
        return {"enum": list(rule)}
    if str(default).upper() in ("YES", "NO"):
        return {"enum": ["YES", "NO"]}
    if isinstance(default, int):
        return {"type": "integer", "minimum": 0}
    if isinstance(default, list):
        return {"type": "array", "items": {"type": "string"}}
    return {"type": "string", "maxLength": 44}


def _settings(platform: str) -> dict[str, Any]:
    from mqtool.complex import ARCHIVE_DEFAULTS, LOG_DEFAULTS, SETTINGS

    properties = {name: _setting_schema(s) for name, s in SETTINGS.items() if platform in s.platforms}
    if platform == "zos":
        for group, defaults in (("log", LOG_DEFAULTS), ("archive", ARCHIVE_DEFAULTS)):
            properties[group] = {
                "description": f"CSQ6{'LOGP' if group == 'log' else 'ARVP'} parameters",
                "type": "object",
                "additionalProperties": False,
                "properties": {key: _parameter_schema(group, key, value) for key, value in defaults.items()},
            }
    return {"type": "object", "additionalProperties": False, "properties": properties}


def _chlauth() -> dict[str, Any]:
    """z/OS channel authentication records: a list of SET CHLAUTH keyword mappings (the
    keywords each TYPE takes are checked when the document is planned)."""
    from mqtool import tables
    from mqtool.commands.zos.chlauth import FIELDS, LISTS
    from mqtool.engine.security.chlauth import TYPES

    table = tables.load("zos").objects["CHLAUTH"]
    properties: dict[str, Any] = {
        "CHLAUTH": {"type": "string", "minLength": 1, "description": "the record's profile (a channel name pattern)"},
        "TYPE": {"enum": list(TYPES)},
    }
    for keyword in FIELDS:
        spec = table.keywords.get(keyword)
        help_text = spec.help if spec is not None else ""
        if keyword in LISTS:
            properties[keyword] = {"type": "array", "items": {"type": "string"}, "description": help_text}
        else:
            properties[keyword] = {"type": "string", "description": help_text}
    return {
        "description": "channel authentication records (SET CHLAUTH): the whole list the queue manager should have",
        "type": "array",
        "items": {
            "type": "object",
            "required": ["CHLAUTH", "TYPE"],
            "additionalProperties": False,
            "properties": properties,
        },
    }


def build_schema() -> dict[str, Any]:
    """The whole schema, from the tables (deterministic: the file is compared with it)."""
    from mqtool import tables
    from mqtool.complex import PLATFORM_NAMES, SYSTEM_NAME

    definitions: dict[str, Any] = {}
    branches = []
    for platform, dialect in PLATFORMS.items():
        kinds: dict[str, Any] = {}
        owners = [tables.load(each) for each in (dialect, *MORE_TABLES.get(platform, ()))]
        for table, name in ((owner, name) for owner in owners for name in definable(owner)):
            obj = table.objects[name]
            ref = f"{platform}.{name}"
            definitions[ref] = {
                "description": obj.help,
                "type": "object",
                "additionalProperties": False,
                "properties": {spec.name: keyword_schema(spec) for spec in written(obj)},
            }
            kinds[name] = {
                "type": "object",
                "propertyNames": _name_schema(table, obj),
                "additionalProperties": {"$ref": f"#/$defs/{ref}"},
            }
        branches.append(
            {
                "if": {"properties": {"platform": {"const": platform}}},
                "then": {
                    "description": f"a {PLATFORM_NAMES[platform]} system",
                    "properties": {
                        "settings": _settings(platform),
                        "objects": {"type": "object", "additionalProperties": False, "properties": kinds},
                        **({"chlauth": _chlauth()} if platform == "zos" else {}),
                    },
                },
            }
        )
    names = "|".join(pattern.pattern.strip("^$") for pattern, _ in SYSTEM_NAME.values())
    definitions["system"] = {
        "type": "object",
        "required": ["platform"],
        "additionalProperties": False,
        "properties": {
            "platform": {"enum": list(PLATFORMS)},
            "settings": {"type": "object"},
            "objects": {"type": "object"},
            "chlauth": {"type": "array"},
        },
        "allOf": branches,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "mqtool complex",
        "description": "Systems with their settings and definitions, as mqtool export writes them and mqtool apply "
        "reads them. Attributes left out take their DEFINE defaults.",
        "type": "object",
        "required": ["kind", "version", "systems"],
        "additionalProperties": False,
        "properties": {
            "kind": {"const": "mqtool-complex"},
            "version": {"const": 1},
            "generated": {"type": "string", "description": "the export command that wrote the document"},
            "systems": {
                "type": "object",
                "propertyNames": {"pattern": f"^({names})$"},
                "additionalProperties": {"$ref": "#/$defs/system"},
            },
        },
        "$defs": definitions,
    }


def render() -> str:
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


def main() -> None:
    """Writes the schema file where schema_text reads it: mqtool/schema/ in the source tree."""
    path = Path(__file__).parent.parent / "schema" / SCHEMA_FILE  # mqtool/schema, where schema_text reads it
    path.parent.mkdir(exist_ok=True)
    path.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"written: {path}\n")


if __name__ == "__main__":
    main()
