"""The framework's own hooks, in an app's hooks.py format. engine/apps/loader.py registers them as it
registers the apps' hooks, after them (so a core `after_delete` runs after the apps' ones, last)."""

doc_events = {
    # a deleted document takes its attached Files and its Comments with it (Frappe's delete_doc), in
    # the same unit of work
    "*": {"after_delete": ["engine.files.attachments.on_delete", "engine.desk.comments.on_delete",
                           "engine.methods.share.on_delete"]},
}
