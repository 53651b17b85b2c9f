"""The persistent state store: the complex of systems, object definitions and messages."""

from mqtool.state.records import ObjectRecord, SystemRecord
from mqtool.state.store import SCHEMA_VERSION, Store, StoreError, Transaction

__all__ = ["SCHEMA_VERSION", "ObjectRecord", "Store", "StoreError", "SystemRecord", "Transaction"]
