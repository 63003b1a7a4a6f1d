"""The framework's own hooks, in an app's hooks.py format. engine/apps/loader.py registers them as it
registers the apps' hooks, after them (so a core `after_delete` runs after the apps' ones, last)."""

from typing import Any

doc_events: dict[str, dict[str, list[str]]] = {
    # a deleted document takes its attached Files and its Comments with it (Frappe's delete_doc), in
    # the same unit of work
    "*": {"after_delete": ["engine.files.attachments.on_delete", "engine.desk.comments.on_delete",
                           "engine.methods.share.on_delete"]},
}

scheduler_events: dict[str, Any] = {
    # queued mail that is due (retries, mail queued while SMTP or Redis was away): engine/mail/queue.py
    "cron": {"* * * * *": ["engine.mail.queue.flush"]},
}
