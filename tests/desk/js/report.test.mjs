// The report page's pure logic (server/desk/static/js/views/report/report_data.js): filters' starting
// values, required filters, the total row, sorting, cell text by type and precision and the chart's
// escaped labels (the export is the server's: tests/server/test_export_http.py).
import assert from "node:assert/strict";
import test from "node:test";
import { loadBoot } from "../../../server/desk/static/js/boot.js";
import {
	cellText, chartOptions, initialValues, mergeFilters, missingRequired, nextSort, sortRows, splitTotal,
} from "../../../server/desk/static/js/views/report/report_data.js";

loadBoot({ sysdefaults: { number_format: "#,###.##", float_precision: 3, date_format: "dd-mm-yyyy" } });

const columns = [
	{ fieldname: "employee", label: "Employee", fieldtype: "Link", options: "Employee" },
	{ fieldname: "value", label: "Value", fieldtype: "Float", precision: 1 },
];

test("filters: the script's replace the JSON's; defaults, URL values and required ones", () => {
	const json = [{ fieldname: "company", fieldtype: "Link", options: "Company", default: "Acme" },
		{ fieldname: "period", reqd: 1, default: "2024-03" }, { fieldname: "secret", hidden: 1 }];
	const filters = mergeFilters(json, []);
	assert.deepEqual(filters.map((f) => [f.fieldname, f.fieldtype]), [["company", "Link"], ["period", "Data"]]);
	assert.deepEqual(mergeFilters(json, [{ fieldname: "status", fieldtype: "Select" }]).map((f) => f.fieldname), ["status"]);
	assert.deepEqual(initialValues(filters, ""), { company: "Acme", period: "2024-03" });
	assert.deepEqual(initialValues(filters, "?period=2024-01&other=x"), { company: "Acme", period: "2024-01" });
	assert.deepEqual(missingRequired(filters, { company: "", period: "" }).map((f) => f.fieldname), ["period"]);
	assert.deepEqual(missingRequired(filters, { company: "", period: "2024-01" }), []);
});

test("the total row is split from the rows only when the report asks for one", () => {
	const result = [{ value: 1 }, { value: 2 }, ["Total", 3]];
	assert.deepEqual(splitTotal({ result, add_total_row: 1 }), { rows: [{ value: 1 }, { value: 2 }], total: ["Total", 3] });
	assert.equal(splitTotal({ result: [{ value: 1 }], add_total_row: 0 }).total, null);
	assert.deepEqual(splitTotal(null), { rows: [], total: null });
});

test("sorting: numbers as numbers, text naturally, empty values last, stable", () => {
	const rows = [{ employee: "E-10", value: 5 }, { employee: "E-9", value: null }, { employee: "E-2", value: 40 }, { employee: "e-1", value: 5 }];
	assert.deepEqual(sortRows(rows, columns, { fieldname: "value", order: "asc" }).map((r) => r.employee), ["E-10", "e-1", "E-2", "E-9"]);
	assert.deepEqual(sortRows(rows, columns, { fieldname: "value", order: "desc" }).map((r) => r.employee), ["E-2", "E-10", "e-1", "E-9"]);
	assert.deepEqual(sortRows(rows, columns, { fieldname: "employee", order: "asc" }).map((r) => r.employee), ["e-1", "E-2", "E-9", "E-10"]);
	assert.equal(sortRows(rows, columns, null), rows);
	assert.deepEqual(nextSort(null, "value"), { fieldname: "value", order: "asc" });
	assert.deepEqual(nextSort({ fieldname: "value", order: "asc" }, "value"), { fieldname: "value", order: "desc" });
	assert.equal(nextSort({ fieldname: "value", order: "desc" }, "value"), null);
});

test("cells by type and precision", () => {
	assert.equal(cellText(72.456, columns[1]), "72.5");
	assert.equal(cellText(1234.5, { fieldtype: "Currency", precision: 2 }), "1,234.50");
	assert.equal(cellText(3, { fieldtype: "Int" }), "3");
	assert.equal(cellText("2024-03-07", { fieldtype: "Date" }), "07-03-2024");
	assert.equal(cellText("<b>x</b>", { fieldtype: "Data" }), "<b>x</b>"); // text, rendered as text
	assert.equal(cellText(null, columns[1]), "");
});

test("chart labels and names are escaped for frappe-charts (it inserts them as markup)", () => {
	const options = chartOptions({ type: "bar", data: { labels: ["<img src=x onerror=alert(1)>", "Ada"], datasets: [{ name: "A&B", values: [1, "2"] }] }, colors: ["#2490EF"] });
	assert.deepEqual(options.data.labels, ["&lt;img src=x onerror=alert(1)&gt;", "Ada"]);
	assert.equal(options.data.datasets[0].name, "A&amp;B");
	assert.deepEqual(options.data.datasets[0].values, [1, 2]);
	assert.equal(options.type, "bar");
	assert.equal(chartOptions(null), null);
	assert.equal(chartOptions({ data: { labels: [], datasets: [] } }), null);
});

test("summary cards: values by datatype, a bare Float as the report rounded it", async () => {
	const { summaryText } = await import("../../../server/desk/static/js/views/report/summary.js");
	assert.equal(summaryText({ value: 65.5, datatype: "Float" }), "65.5");
	assert.equal(summaryText({ value: 65.456, datatype: "Float", precision: 2 }), "65.46");
	assert.equal(summaryText({ value: 1200, datatype: "Int" }), "1,200");
	assert.equal(summaryText({ value: 12.5, datatype: "Percent" }), "12.5%");
	assert.equal(summaryText({ value: "text" }), "text");
});
