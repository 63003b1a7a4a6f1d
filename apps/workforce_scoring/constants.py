"""Names the app's modules share: doctypes, roles, sources and workflow states."""

from __future__ import annotations

MODULE = "Workforce Scoring"

EMPLOYEE = "Employee"
EMPLOYEE_SCORE = "Employee Score"
WAREHOUSE_VIOLATION = "Warehouse Violation"
VIOLATION_TYPE = "Warehouse Violation Type"
SCORING_SETTINGS = "Scoring Settings"

HR_REVIEWER = "HR Reviewer"
DEPARTMENT_MANAGER = "Department Manager"
WAREHOUSE_MANAGER = "Warehouse Manager"
EMPLOYEE_ROLE = "Employee"
ROLES: tuple[str, ...] = (HR_REVIEWER, DEPARTMENT_MANAGER, WAREHOUSE_MANAGER, EMPLOYEE_ROLE)
# roles that see every Employee Score (everyone else sees only their own)
SEE_ALL_SCORES: frozenset[str] = frozenset({"System Manager", HR_REVIEWER, DEPARTMENT_MANAGER})

# Employee Score.source
EXTERNAL_SYSTEM = "external_system"
CALCULATION = "calculation"
DAILY = "Daily"

WORKFLOW = "Warehouse Violation Workflow"
WORKFLOW_STATES: tuple[str, ...] = ("Draft", "Pending", "Approved", "Rejected", "Confirmed", "Appealed", "Waived")

# printing (fixtures/print_format.json, fixtures/letter_head.json)
WARNING_LETTER = "Warning Letter"
LETTER_HEAD = "Workforce Scoring"
