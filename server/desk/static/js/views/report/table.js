// The rows as an accessible table (not frappe-datatable: it builds its cells as markup from the
// values, which the Desk never does, needs a global Sortable, and draws a grid of divs). Cells are
// formatted by column type and precision, Link cells open their documents, a header button sorts by
// its column (ascending, descending, the report's order; `aria-sort` says which), the total row the
// report asked for stays last in the footer.
import { slug } from "../../boot.js";
import { __ } from "../../i18n.js";
import { html } from "../../lib/html.js";
import { formUrl } from "../../routes.js";
import { cellText, cellValue, isNumeric } from "./report_data.js";

function typeClass(column) {
	return `col-${String(column.fieldtype || "Data").replace(/ /g, "-").toLowerCase()}${isNumeric(column) ? " numeric" : ""}`;
}

function Cell({ row, column, index, formatter }) {
	const value = cellValue(row, column, index);
	// a Frappe formatter returns HTML: its text is shown (tags dropped), never parsed as markup
	const text = formatter
		? String(formatter(value, row, column, row, (v, _r, c) => cellText(v, c || column)) ?? "").replace(/<[^>]*>/g, "")
		: cellText(value, column);
	const doctype = column.fieldtype === "Dynamic Link" ? row && row[column.options] : column.options;
	if ((column.fieldtype === "Link" || column.fieldtype === "Dynamic Link") && doctype && value) {
		return html`<td class=${typeClass(column)}><a href=${formUrl(String(doctype), String(value), slug)}>${text}</a></td>`;
	}
	return html`<td class=${typeClass(column)}>${text}</td>`;
}

function sortState(sort, column) {
	if (!sort || sort.fieldname !== column.fieldname) return "none";
	return sort.order === "asc" ? "ascending" : "descending";
}

export function ReportTable({ title, columns, rows, total, sort, onSort, formatter }) {
	return html`<div class="report-table-wrap">
		<table class="report-table">
			<caption class="sr-only">${title}</caption>
			<thead>
				<tr>
					${columns.map((column) => {
						const state = sortState(sort, column);
						return html`<th scope="col" class=${typeClass(column)} aria-sort=${state}
							style=${column.width ? { minWidth: `${Number(column.width) || 0}px` } : undefined}>
							<button type="button" class="sort-header" onClick=${() => onSort(column.fieldname)}>
								${column.label || column.fieldname}
								<span class="sort-mark" aria-hidden="true">${state === "ascending" ? " ▲" : state === "descending" ? " ▼" : ""}</span>
							</button>
						</th>`;
					})}
				</tr>
			</thead>
			<tbody>
				${rows.map(
					(row, r) => html`<tr key=${r}>
						${columns.map((column, i) => html`<${Cell} key=${column.fieldname} row=${row} column=${column} index=${i} formatter=${formatter} />`)}
					</tr>`,
				)}
			</tbody>
			${total
				? html`<tfoot>
						<tr class="report-total" aria-label=${__("Total")}>
							${columns.map((column, i) => html`<td key=${column.fieldname} class=${typeClass(column)}>${
								typeof total[i] === "number" ? cellText(total[i], column) : String(total[i] ?? "")
							}</td>`)}
						</tr>
					</tfoot>`
				: null}
		</table>
	</div>`;
}
