"""Automation: the complex document `mqtool apply` reads (document.py), its published
JSON Schema (schema.py), and the plan that makes a store match it (plan.py)."""
