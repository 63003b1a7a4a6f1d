// The list's table: the title (a link to the form), the status indicator, the `in_list_view` columns
// and the modified age. Sortable columns have a header button (aria-sort tells the current order);
// from a row's link the arrow keys, Home and End move between rows (keys.js), Enter opens it.
// With `selection` ({selected, toggle(name), toggleAll(on)}) each row has a checkbox and the header one
// selects or clears every row shown (the bulk actions of bulk.js).
// An app's `listview_settings.formatters[field](value, df, doc)` may change a cell's text: its answer
// is shown as text (Frappe's formatters return HTML; markup is dropped, never parsed).
import { slug } from "../../boot.js";
import { formatValue, timeAgo } from "../../format.js";
import { __ } from "../../i18n.js";
import { docIndicator } from "../../indicators.js";
import { html } from "../../lib/html.js";
import { formUrl } from "../../routes.js";
import { Indicator } from "../../ui/indicator.js";
import { ariaSort, rowMove, sortAfterHeaderClick } from "./keys.js";

const TAGS = /<[^>]*>/g;

function typeClass(df) {
	return `col-${df.fieldtype.replace(/ /g, "-").toLowerCase()}`;
}

/** A cell's text: the app's formatter (as text), else the value formatted by its field type. */
export function cellText(row, df, settings) {
	const formatter = settings.formatters && settings.formatters[df.fieldname];
	if (typeof formatter === "function") {
		try {
			const answer = formatter(row[df.fieldname], df, row);
			if (answer !== undefined && answer !== null) return String(answer).replace(TAGS, "");
		} catch (error) {
			console.error(`listview_settings.formatters.${df.fieldname} failed`, error);
		}
	}
	return formatValue(row[df.fieldname], df);
}

function HeaderCell({ label, fieldname, sort, onSort, className = "" }) {
	if (!onSort || !fieldname) return html`<th scope="col" class=${className}>${label}</th>`;
	// the arrow is drawn by list.css from aria-sort, so the header's text stays its label
	return html`<th scope="col" class=${`${className} sortable`} aria-sort=${ariaSort(sort, fieldname)}>
		<button type="button" class="th-sort" onClick=${() => onSort(sortAfterHeaderClick(sort, fieldname))}>${label}</button>
	</th>`;
}

function onRowKey(event) {
	const link = event.target.closest && event.target.closest("a.list-row-link");
	if (!link) return;
	const links = [...event.currentTarget.querySelectorAll("a.list-row-link")];
	const next = rowMove(event.key, links.indexOf(link), links.length);
	if (next === null) return;
	event.preventDefault();
	links[next].focus();
}

function rowText(row, title) {
	return row[title] === undefined || row[title] === null || row[title] === "" ? row.name : row[title];
}

function SelectAll({ rows, selection }) {
	const count = rows.filter((row) => selection.selected.has(row.name)).length;
	const all = rows.length > 0 && count === rows.length;
	return html`<th scope="col" class="list-check">
		<input type="checkbox" aria-label=${__("Select all")} checked=${all}
			ref=${(el) => el && (el.indeterminate = count > 0 && !all)} onChange=${() => selection.toggleAll(!all)} />
	</th>`;
}

export function ListTable({ meta, rows, columns, title, settings, sort, sortable, onSort, selection = null }) {
	const doctype = meta.name;
	const titleDf = (meta.fields || []).find((df) => df.fieldname === title);
	const canSort = (fieldname) => (sortable.has(fieldname) ? onSort : null);
	return html`<div class="list-table-wrap">
		<table class="list-table">
			<caption class="sr-only">${__(doctype)}</caption>
			<thead>
				<tr>
					${selection ? html`<${SelectAll} rows=${rows} selection=${selection} />` : null}
					<${HeaderCell} label=${titleDf ? __(titleDf.label || title) : __("ID")} fieldname=${title} sort=${sort} onSort=${canSort(title)} />
					<th scope="col">${__("Status")}</th>
					${columns.map((df) => html`<${HeaderCell} key=${df.fieldname} label=${__(df.label || df.fieldname)} fieldname=${df.fieldname}
						sort=${sort} onSort=${canSort(df.fieldname)} className=${typeClass(df)} />`)}
					<${HeaderCell} label=${__("Last Updated")} fieldname="modified" sort=${sort} onSort=${canSort("modified")} className="col-modified" />
				</tr>
			</thead>
			<tbody onKeyDown=${onRowKey}>
				${rows.map((row) => {
					const indicator = docIndicator(row, meta, settings);
					const text = rowText(row, title);
					return html`<tr key=${row.name}>
						${selection
							? html`<td class="list-check"><input type="checkbox" aria-label=${__("Select {0}", [String(text)])}
									checked=${selection.selected.has(row.name)} onChange=${() => selection.toggle(row.name)} /></td>`
							: null}
						<th scope="row" class="list-title">
							<a class="list-row-link" href=${formUrl(doctype, row.name, slug)}>${String(text)}</a>
							${title !== "name" && String(text) !== row.name ? html`<span class="list-name">${row.name}</span>` : null}
						</th>
						<td class="list-indicator">${indicator ? html`<${Indicator} ...${indicator} />` : null}</td>
						${columns.map((df) => html`<td class=${typeClass(df)}>${cellText(row, df, settings)}</td>`)}
						<td class="col-modified"><time datetime=${row.modified} title=${row.modified}>${timeAgo(row.modified)}</time></td>
					</tr>`;
				})}
			</tbody>
		</table>
	</div>`;
}
