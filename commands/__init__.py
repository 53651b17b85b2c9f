"""The command dialects: one package per dialect with its keyword table
(keywords.yaml) and one module per verb."""
