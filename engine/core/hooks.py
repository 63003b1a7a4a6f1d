"""The framework's own hooks, in an app's hooks.py format. engine/apps/loader.py registers them as it
registers the apps' hooks, after them (so a core `after_delete` runs after the apps' ones, last)."""

from typing import Any

doc_events: dict[str, dict[str, list[str]]] = {
    # a deleted document takes its attached Files and its Comments with it (Frappe's delete_doc), in
    # the same unit of work
    "*": {"after_delete": ["engine.files.attachments.on_delete", "engine.desk.comments.on_delete",
                           "engine.methods.share.on_delete", "engine.desk.assign_to.on_delete",
                           # the jobs its record still carried (a Notification's) go to the job outbox
                           "engine.jobs.outbox.on_delete"],
          # a cancelled document's open ToDos are cancelled with it (business.md §2.4)
          "on_cancel": ["engine.desk.assign_to.on_cancel"],
          # the Notifications of the doctypes that have one (the lifecycle's `match_notifications` step
          # before the write, `queue_notifications` after it)
          "fw_notifications_match": ["engine.notifications.alerts.match_operation"],
          "fw_notifications": ["engine.notifications.alerts.on_operation"]},
}

scheduler_events: dict[str, Any] = {
    # queued mail that is due (retries, mail queued while SMTP or Redis was away): engine/mail/queue.py
    "cron": {"* * * * *": ["engine.mail.queue.flush"]},
    # Notifications whose event is Days Before or Days After a date of the document
    "daily": ["engine.notifications.alerts.send_daily"],
    # a backup when FW_BACKUP_FREQUENCY says one is due, the oldest beyond FW_BACKUP_KEEP removed:
    # engine/operations/scheduled.py
    "hourly_long": ["engine.operations.scheduled.scheduled_backup"],
}
