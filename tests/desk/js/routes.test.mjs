// Routes of desk.md §1 as data (server/desk/static/js/routes.js).
import assert from "node:assert/strict";
import test from "node:test";
import { filtersFromSearch, formUrl, listUrl, parseRoute, routeToUrl, searchFromFilters } from "../../../server/desk/static/js/routes.js";

const slug = (doctype) => doctype.toLowerCase().replace(/ /g, "-");
const known = { "warehouse-violation": "Warehouse Violation", "scoring-settings": "Scoring Settings", employee: "Employee" };
const ctx = { doctypeForSlug: (s) => known[s] || null, isSingle: (dt) => dt === "Scoring Settings" };

test("home, lists, forms, new forms, singles, reports", () => {
	assert.deepEqual(parseRoute("/app", "", ctx), { kind: "home" });
	assert.deepEqual(parseRoute("/app/", "", ctx), { kind: "home" });
	assert.deepEqual(parseRoute("/app/warehouse-violation", "?employee=HR-EMP-00001", ctx), {
		kind: "list", doctype: "Warehouse Violation", filters: [["employee", "=", "HR-EMP-00001"]],
	});
	assert.deepEqual(parseRoute("/app/warehouse-violation/new", "", ctx), { kind: "form", doctype: "Warehouse Violation", name: null, isNew: true });
	assert.deepEqual(parseRoute("/app/warehouse-violation/WV-2024-00001", "", ctx), {
		kind: "form", doctype: "Warehouse Violation", name: "WV-2024-00001", isNew: false,
	});
	assert.deepEqual(parseRoute("/app/employee/A%2FB%20C", "", ctx), { kind: "form", doctype: "Employee", name: "A/B C", isNew: false });
	assert.deepEqual(parseRoute("/app/scoring-settings", "", ctx), { kind: "form", doctype: "Scoring Settings", name: "Scoring Settings", isNew: false });
	assert.deepEqual(parseRoute("/app/query-report/Employee%20Score%20Report", "", ctx), { kind: "query-report", report: "Employee Score Report" });
});

test("unknown paths are not found", () => {
	assert.equal(parseRoute("/app/no-such-thing", "", ctx).kind, "not-found");
	assert.equal(parseRoute("/app/employee/a/b", "", ctx).kind, "not-found");
	assert.equal(parseRoute("/app/query-report", "", ctx).kind, "not-found");
	assert.deepEqual(parseRoute("/app/customize-form", "?doc_type=Warehouse%20Violation", ctx), {
		kind: "customize-form", doctype: "Warehouse Violation" });
	assert.deepEqual(parseRoute("/app/customize-form", "", ctx), { kind: "customize-form", doctype: null });
	assert.equal(parseRoute("/elsewhere", "", ctx).kind, "not-found");
	assert.equal(parseRoute("/app/employee/%E0%A4%A", "", ctx).name, "%E0%A4%A"); // a bad escape stays as typed
});

test("URL filters: plain values, Frappe's [op, value] JSON, field names checked", () => {
	assert.deepEqual(filtersFromSearch('?status=["!=","Left"]&company=A%26B&bad-name=x&__proto__=1'), [
		["status", "!=", "Left"], ["company", "=", "A&B"], ["__proto__", "=", "1"],
	]);
	assert.deepEqual(filtersFromSearch("?x=[not json"), [["x", "=", "[not json"]]);
	const filters = [["employee", "=", "HR-EMP-1"], ["penalty_points", ">", 5], ["status", "in", ["A", "B"]]];
	assert.deepEqual(filtersFromSearch(searchFromFilters(filters)), [
		["employee", "=", "HR-EMP-1"], ["penalty_points", ">", 5], ["status", "in", ["A", "B"]],
	]);
	assert.equal(searchFromFilters([]), "");
});

test("URLs and Frappe's set_route arguments", () => {
	assert.equal(listUrl("Warehouse Violation", [["employee", "=", "X"]], slug), "/app/warehouse-violation?employee=X");
	assert.equal(formUrl("Employee", "A/B", slug), "/app/employee/A%2FB");
	assert.equal(routeToUrl(["List", "Employee Score", { employee: "HR-EMP-1" }], slug), "/app/employee-score?employee=HR-EMP-1");
	assert.equal(routeToUrl([["Form", "Employee", "HR-EMP-1"]], slug), "/app/employee/HR-EMP-1");
	assert.equal(routeToUrl(["Form", "Employee"], slug), "/app/employee/new");
	assert.equal(routeToUrl(["query-report", "Employee Score Report"], slug), "/app/query-report/Employee%20Score%20Report");
	assert.equal(routeToUrl(["/app/employee"], slug), "/app/employee");
	assert.equal(routeToUrl([""], slug), "/app");
});

test("the report view of a list, and a saved Report Builder report", () => {
	assert.deepEqual(parseRoute("/app/warehouse-violation/view/report", "", ctx), { kind: "report-view", doctype: "Warehouse Violation", report: null });
	assert.deepEqual(parseRoute("/app/warehouse-violation/view/report/Points%20by%20branch", "", ctx),
		{ kind: "report-view", doctype: "Warehouse Violation", report: "Points by branch" });
	assert.equal(parseRoute("/app/warehouse-violation/view/report/a/b", "", ctx).kind, "not-found");
	assert.equal(parseRoute("/app/scoring-settings/view/report", "", ctx).kind, "not-found");
});
