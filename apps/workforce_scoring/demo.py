"""Demo data for trying the app: `fw execute workforce_scoring.demo.load`.

Loads 2 companies, 4 branches, 200 employees, three months (this one and the two before) of daily
values delivered through `receive_data`, violations in every workflow state, the monthly scores of
those months (the two complete ones submitted), and one user per role (password `demo-pass-1`).
The companies, branches and employees may come from spreadsheets first, as the README's tour loads
them (`fw data-import` of apps/hr/demo/companies.csv, branches.csv and employees.csv, the same
records): it takes those that exist and creates the others. It refuses to load twice: the demo
users are its marker.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

import engine as fw
from engine import exceptions as exc
from workforce_scoring.api.external import receive_data
from workforce_scoring.constants import EMPLOYEE_SCORE, WAREHOUSE_VIOLATION
from workforce_scoring.scoring import service
from workforce_scoring.scoring.calculation import MONTHLY, parse_period, period_of

COMPANIES = {"Northwind Logistics": ["Northwind Hamburg", "Northwind Bremen"],
             "Southwind Freight": ["Southwind Munich", "Southwind Stuttgart"]}
EMPLOYEES = 200
VIOLATION_TYPES = {"Blocked Aisle": 5, "Missing Safety Gear": 8, "Late Scan": 2, "Forklift Speeding": 10}
USERS = {"reviewer@demo.example.com": "HR Reviewer", "manager@demo.example.com": "Department Manager",
         "warehouse@demo.example.com": "Warehouse Manager", "employee@demo.example.com": "Employee"}
MANAGER = "manager@demo.example.com"
PASSWORD = "demo-pass-1"
FIRST = ["Anna", "Ben", "Clara", "David", "Emma", "Felix", "Greta", "Hugo", "Ida", "Jonas", "Lena", "Max",
         "Nora", "Oskar", "Paula", "Rafael", "Sofia", "Tom", "Uma", "Viktor"]
LAST = ["Bauer", "Fischer", "Hoffmann", "Koch", "Meyer", "Richter", "Schmidt", "Wagner", "Weber", "Wolf"]
# workflow actions from Draft that leave a violation in each state
PATHS: dict[str, list[str]] = {
    "Draft": [], "Pending": ["Submit for Review"], "Confirmed": ["Submit for Review", "Confirm"],
    "Appealed": ["Submit for Review", "Confirm", "Appeal"],
    "Waived": ["Submit for Review", "Confirm", "Appeal", "Waive"],
    "Rejected to Draft": ["Submit for Review", "Reject"],
}


async def load(ctx: fw.Context, seed: int = 7) -> dict[str, Any]:
    """Load the demo data (once); returns what was created."""
    marker = next(iter(USERS))
    if await fw.exists(ctx, "User", marker):
        raise exc.ValidationError(fw._("The demo data is already loaded (user {0} exists); load it into a "
                                       "fresh database to start over", marker))
    rnd = random.Random(seed)
    today = date.today()
    months = [period_of(MONTHLY, month_before(today, n)) for n in (2, 1, 0)]
    await masters(ctx)
    employees = await staff(ctx, rnd)
    await users(ctx, employees[0]["name"])
    await ctx.commit()
    delivered = await daily_values(ctx, employees, months, today, rnd)
    violations = await violation_history(ctx, employees, months, rnd)
    await ctx.commit()
    scores = {}
    for month in months:
        scores[month] = await service.calculate_period(ctx, parse_period(MONTHLY, month), employees)
    submitted = await submit_months(ctx, months[:-1])
    await ctx.commit()
    return {"companies": len(COMPANIES), "branches": sum(map(len, COMPANIES.values())), "employees": len(employees),
            "daily_values": delivered, "violations": violations, "monthly_scores": scores,
            "submitted_scores": submitted, "users": sorted(USERS), "password": PASSWORD}


def month_before(day: date, months: int) -> date:
    """A day `months` months before the month of `day`."""
    for _ in range(months):
        day = day.replace(day=1) - timedelta(days=1)
    return day


async def masters(ctx: fw.Context) -> None:
    for company, branches in COMPANIES.items():
        if not await fw.exists(ctx, "Company", company):
            await fw.new_doc(ctx, "Company", company_name=company).insert()
        for branch in branches:
            if not await fw.exists(ctx, "Branch", branch):
                await fw.new_doc(ctx, "Branch", branch=branch, company=company).insert()
    for vtype, points in VIOLATION_TYPES.items():
        if not await fw.exists(ctx, "Warehouse Violation Type", vtype):
            await fw.new_doc(ctx, "Warehouse Violation Type", violation_type=vtype, penalty_points=points).insert()


async def staff(ctx: fw.Context, rnd: random.Random) -> list[dict[str, Any]]:
    """The demo's employees (apps/hr/demo/employees.csv holds the same rows): those imported already,
    else created here."""
    branches = [(company, branch) for company, names in COMPANIES.items() for branch in names]
    rows = []
    for i in range(EMPLOYEES):
        company, branch = branches[i % len(branches)]
        rows.append({"employee_name": f"{rnd.choice(FIRST)} {rnd.choice(LAST)}", "employee_number": f"D-{1001 + i}",
                     "company": company, "branch": branch, "status": "Left" if i % 50 == 49 else "Active",
                     "date_of_joining": f"20{15 + i % 10}-0{1 + i % 9}-15",
                     "shift": ["Day", "Night", "Rotating"][i % 3]})
    numbers = [r["employee_number"] for r in rows]
    imported = await fw.get_all(ctx, "Employee", filters=[["employee_number", "in", numbers]], limit_page_length=0,
                                fields=["name", "employee_number", "employee_name", "status", "company", "branch"])
    if imported:  # (the random names above are drawn all the same: the values that follow stay the same)
        return sorted(imported, key=lambda e: e["employee_number"])
    result = await fw.insert_many(ctx, "Employee", rows)
    if result.failed or result.duplicates:
        raise exc.ValidationError(fw._("The demo employees could not be created: {0}",
                                       next(iter(result.failed.values()), "duplicates")))
    return [{"name": result.names[i], **rows[i]} for i in sorted(result.names)]


async def users(ctx: fw.Context, first_employee: str) -> None:
    for email, role in USERS.items():
        if not await fw.exists(ctx, "User", email):
            await fw.new_doc(ctx, "User", email=email, first_name=role, new_password=PASSWORD,
                             roles=[{"role": role}]).insert()
    employee = await fw.get_doc(ctx, "Employee", first_employee)
    employee.user_id = "employee@demo.example.com"
    await employee.save()
    # the Department Manager reviews the scores of one company: a User Permission says so (and makes it
    # the default company of the Employee Score Report), no code does
    restriction = {"user": MANAGER, "allow": "Company", "for_value": next(iter(COMPANIES)),
                   "apply_to_all_doctypes": 0, "applicable_for": EMPLOYEE_SCORE}
    if not await fw.exists(ctx, "User Permission", restriction):
        await fw.new_doc(ctx, "User Permission", **restriction, is_default=1).insert()


async def daily_values(ctx: fw.Context, employees: list[dict[str, Any]], months: list[str], today: date,
                       rnd: random.Random) -> int:
    """Every active employee's daily value of every day so far, delivered month by month."""
    created = 0
    for month in months:
        period = parse_period(MONTHLY, month)
        days = [period.start + timedelta(days=n) for n in range((min(period.end, today) - period.start).days + 1)]
        data = [{"employee_code": e["employee_number"], "date": day.isoformat(),
                 "value": round(min(100.0, max(5.0, rnd.gauss(55 + (i % 7) * 4, 12))), 1)}
                for day in days for i, e in enumerate(employees) if e["status"] == "Active"]
        result = await receive_data(ctx, data)
        created += result["created"]
    return created


async def violation_history(ctx: fw.Context, employees: list[dict[str, Any]], months: list[str],
                            rnd: random.Random) -> dict[str, int]:
    """Violations in every workflow state, spread over the months (recalculated at the end instead
    of one job per violation)."""
    counts: dict[str, int] = {}
    active = [e for e in employees if e["status"] == "Active"]
    for n in range(48):
        outcome = list(PATHS)[n % len(PATHS)]
        month = parse_period(MONTHLY, months[n % len(months)])
        day = month.start + timedelta(days=rnd.randrange(min(28, (date.today() - month.start).days + 1)))
        doc = fw.new_doc(ctx, WAREHOUSE_VIOLATION, employee=rnd.choice(active)["name"], date=day.isoformat(),
                         violation_type=rnd.choice(list(VIOLATION_TYPES)),
                         description=fw._("Recorded by the demo data loader"))
        doc.flags["skip_recalculation"] = True
        await doc.insert()
        for action in PATHS[outcome]:
            await fw.apply_workflow(ctx, doc, action)
        counts[doc.workflow_state] = counts.get(doc.workflow_state, 0) + 1
    return counts


async def submit_months(ctx: fw.Context, months: list[str]) -> int:
    names = await fw.get_all(ctx, EMPLOYEE_SCORE, pluck="name", filters=[
        ["period_type", "=", MONTHLY], ["period_value", "in", months], ["docstatus", "=", 0]])
    for name in names:
        await (await fw.get_doc(ctx, EMPLOYEE_SCORE, name)).submit()
    return len(names)
