"""hooks.py of workforce_scoring: how fw wires the app in (Frappe's hooks.py keys).

Module-level names that are not hooks must start with `_` (fw refuses unknown keys).
"""

from workforce_scoring import constants as _c

app_name = "workforce_scoring"
app_title = "Workforce Scoring"
app_publisher = "fw"
app_description = "Warehouse violations, external daily scores, period scoring and reporting per employee"
app_email = "dev@example.com"
app_license = "MIT"
app_version = "0.1.0"

required_apps = ["hr"]

# the form script of Warehouse Violation (served under /assets after `fw build`)
doctype_js = {"Warehouse Violation": "doctype/warehouse_violation/warehouse_violation.js"}

# both idempotent: default Scoring Settings and the app's roles
after_install = "workforce_scoring.install.after_install"
after_migrate = "workforce_scoring.install.after_migrate"

doc_events = {
    "Warehouse Violation": {
        # a confirmed or withdrawn violation changes the month's penalty: recalculate (in a job)
        "on_submit": "workforce_scoring.events.recalculate_for_violation",
        "on_cancel": "workforce_scoring.events.recalculate_for_violation",
    },
}

scheduler_events = {
    "daily": ["workforce_scoring.tasks.calculate_current_month"],
    "cron": {
        # 03:00 on the 1st: last month is complete, its drafts become final
        "0 3 1 * *": ["workforce_scoring.tasks.submit_previous_month"],
    },
}

permission_query_conditions = {
    "Employee Score": "workforce_scoring.permissions.employee_score_conditions",
}

fixtures = [
    {"dt": "Role", "filters": [["name", "in", list(_c.ROLES)]]},
    {"dt": "Custom Field", "filters": [["module", "=", _c.MODULE]]},
    {"dt": "Workflow", "filters": [["document_type", "=", _c.WAREHOUSE_VIOLATION]]},
    {"dt": "Workflow State", "filters": [["name", "in", list(_c.WORKFLOW_STATES)]]},
    # the Warning Letter of a confirmed Warehouse Violation, printed on the app's letter head
    {"dt": "Print Format", "filters": [["name", "in", [_c.WARNING_LETTER]]]},
    {"dt": "Letter Head", "filters": [["name", "in", [_c.LETTER_HEAD]]]},
    # the employee hears (bell and mail) of a confirmed violation and of a new monthly score
    {"dt": "Notification", "filters": [["module", "=", _c.MODULE]]},
]
