// What the report page does with a run's answer, as pure functions (`node --test` covers them): the
// filters' starting values and the required ones still empty, the total row split from the rows,
// sorting by a column and a cell's display text (the export is written by the server).
import { formatValue } from "../../format.js";

const NUMERIC = new Set(["Int", "Long Int", "Float", "Currency", "Percent", "Duration", "Rating"]);

export function isNumeric(column) {
	return NUMERIC.has(column && column.fieldtype);
}

/** Filter definitions: the JSON's (served by get_script), replaced by the script's
 * (`frappe.query_reports[name].filters`) when it declares any; hidden or nameless ones are dropped. */
export function mergeFilters(fromJson, fromScript) {
	const list = Array.isArray(fromScript) && fromScript.length ? fromScript : fromJson || [];
	return list.filter((df) => df && df.fieldname && !df.hidden).map((df) => ({ fieldtype: "Data", ...df }));
}

/** Starting values: a value from the URL (`?period=2024-01`), else the filter's default. */
export function initialValues(filters, search) {
	const params = new URLSearchParams(search || "");
	const values = {};
	for (const df of filters) {
		if (params.has(df.fieldname)) values[df.fieldname] = params.get(df.fieldname);
		else if (df.default !== undefined && df.default !== null) values[df.fieldname] = df.default;
		else values[df.fieldname] = df.fieldtype === "Check" ? 0 : "";
	}
	return values;
}

function isEmpty(value) {
	return value === undefined || value === null || value === "" || (Array.isArray(value) && !value.length);
}

/** The required filters without a value (the report does not run until they have one). */
export function missingRequired(filters, values) {
	return filters.filter((df) => df.reqd && isEmpty(values[df.fieldname]));
}

/** `{rows, total}`: the server appends the total row (a list in column order) when the report asks. */
export function splitTotal(message) {
	const rows = Array.isArray(message && message.result) ? [...message.result] : [];
	let total = null;
	if (message && message.add_total_row && rows.length && Array.isArray(rows[rows.length - 1])) total = rows.pop();
	return { rows, total };
}

/** A row's value of a column (rows are dicts; a list row is in column order). */
export function cellValue(row, column, index) {
	if (Array.isArray(row)) return row[index];
	return row ? row[column.fieldname] : undefined;
}

function compare(a, b, numeric) {
	const emptyA = a === null || a === undefined || a === "";
	const emptyB = b === null || b === undefined || b === "";
	if (emptyA || emptyB) return emptyA === emptyB ? 0 : emptyA ? 1 : -1; // empty values last
	if (numeric) return Number(a) - Number(b);
	return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: "base" });
}

/** The rows sorted by one column (stable; empty values last in both orders), a new array. */
export function sortRows(rows, columns, sort) {
	if (!sort) return rows;
	const index = columns.findIndex((c) => c.fieldname === sort.fieldname);
	if (index < 0) return rows;
	const column = columns[index];
	const sign = sort.order === "desc" ? -1 : 1;
	return rows
		.map((row, position) => ({ row, position }))
		.sort((x, y) => {
			const a = cellValue(x.row, column, index);
			const b = cellValue(y.row, column, index);
			const emptyA = a === null || a === undefined || a === "";
			const emptyB = b === null || b === undefined || b === "";
			const order = emptyA || emptyB ? compare(a, b, false) : sign * compare(a, b, isNumeric(column));
			return order || x.position - y.position;
		})
		.map((item) => item.row);
}

/** The next sort after a click on a column's header: ascending, then descending, then the server's order. */
export function nextSort(sort, fieldname) {
	if (!sort || sort.fieldname !== fieldname) return { fieldname, order: "asc" };
	return sort.order === "asc" ? { fieldname, order: "desc" } : null;
}

/** A cell's display text: by the column's type and precision (always text, never markup). */
export function cellText(value, column) {
	return formatValue(value, { fieldtype: column.fieldtype || "Data", precision: column.precision, options: column.options });
}

/** The chart's text HTML-escaped: frappe-charts inserts labels and names as markup, and the Desk
 * never lets a value be parsed as markup (an employee called `<img onerror=...>` stays text). */
export function escapeChartText(text) {
	return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/** The `chart` of a run as frappe-charts' options, every label and dataset name escaped. */
export function chartOptions(chart) {
	if (!chart || !chart.data || !Array.isArray(chart.data.datasets) || !chart.data.datasets.length) return null;
	const data = {
		...chart.data,
		labels: (chart.data.labels || []).map(escapeChartText),
		datasets: chart.data.datasets.map((set) => ({ ...set, name: escapeChartText(set.name), values: (set.values || []).map((v) => Number(v) || 0) })),
	};
	const options = { type: chart.type || "bar", data, height: chart.height || 240 };
	if (Array.isArray(chart.colors)) options.colors = chart.colors;
	if (chart.axisOptions) options.axisOptions = chart.axisOptions;
	if (chart.barOptions) options.barOptions = chart.barOptions;
	if (chart.lineOptions) options.lineOptions = chart.lineOptions;
	return options;
}
