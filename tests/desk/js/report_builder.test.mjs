// The report view's settings (server/desk/static/js/views/report_builder/settings.js).
import assert from "node:assert/strict";
import test from "node:test";
import { aggregateChoices, pickableColumns, requestArgs, stateFromSettings, reportSettings, totals } from
	"../../../server/desk/static/js/views/report_builder/settings.js";

const meta = { name: "Order", title_field: "customer", fields: [
	{ fieldname: "customer", fieldtype: "Link", label: "Customer", in_list_view: 1 },
	{ fieldname: "sb", fieldtype: "Section Break" },
	{ fieldname: "total", fieldtype: "Currency", label: "Total", in_list_view: 1 },
	{ fieldname: "secret", fieldtype: "Data", hidden: 1 },
	{ fieldname: "items", fieldtype: "Table", label: "Items", options: "Order Item" },
] };
const item = { name: "Order Item", fields: [{ fieldname: "qty", fieldtype: "Int", label: "Qty" }] };

test("columns a user may pick include child-table fields", () => {
	assert.deepEqual(pickableColumns(meta, { "Order Item": item }).map((c) => [c.key, c.label]),
		[["name", "ID"], ["customer", "Customer"], ["total", "Total"], ["items.qty", "Qty (Items)"]]);
});

test("Count, then Sum of and Average of each numeric field", () => {
	assert.deepEqual(aggregateChoices(meta).map((a) => a.label), ["Count", "Sum of Total", "Average of Total"]);
});

test("the request: plain columns and sort, or group-by with its aggregate", () => {
	assert.deepEqual(requestArgs("Order", { columns: ["name", "total"], filters: [["total", ">", 1]], sort: { fieldname: "total", order: "asc" } }),
		{ doctype: "Order", filters: [["total", ">", 1]], start: 0, page_length: 100, fields: ["name", "total"], order_by: "total asc" });
	assert.deepEqual(requestArgs("Order", { columns: ["name"], groupBy: "customer", aggregate: "sum:total" }),
		{ doctype: "Order", filters: [], start: 0, page_length: 100, group_by: "customer", aggregate_function: "sum", aggregate_on_field: "total" });
});

test("totals sum the numeric columns, child lists included", () => {
	assert.deepEqual(totals(["name", "total", "items.qty"], [["A", 1.5, [1, 2]], ["B", 2, [3]]], (k) => k !== "name"), [null, 3.5, 6]);
});

test("saved settings round-trip", () => {
	const state = { columns: ["name", "total"], filters: [["customer", "=", "X"]], sort: { fieldname: "total", order: "asc" }, groupBy: "customer", aggregate: "avg:total" };
	assert.deepEqual(stateFromSettings(reportSettings(state), meta), state);
	assert.deepEqual(stateFromSettings(null, meta).columns, ["name", "customer", "total"]);
});
