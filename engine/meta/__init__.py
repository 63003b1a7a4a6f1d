"""Doctype metadata: JSON schema models, field types, loading and the per-site registry."""

from engine.meta.schema import DocFieldSchema, DocPermSchema, DocTypeSchema, IndexSchema, Meta, scrub

__all__ = ["DocFieldSchema", "DocPermSchema", "DocTypeSchema", "IndexSchema", "Meta", "scrub"]
