"""The scoring rules of workforce_scoring.

`levels` and `calculation` are pure: plain data in, plain data out, no engine and no database, so
they are tested (and reasoned about) on their own. `service` applies them to stored documents.
"""
