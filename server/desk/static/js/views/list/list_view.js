// /app/<doctype>: the list view (desk.md §3). The title (or name), the `in_list_view` columns, the
// status indicator and the modified age; the count of matching rows; 20 rows, then more on request
// (page size 20, 100 or 500); filters from the URL and from the `in_standard_filter` inputs (both
// kept in the URL, so a reload shows the same list); sorting; `Add <Doctype>` when the user may create.
// Two requests per page: the rows and the count (the meta is cached).
import { getCount, getList } from "../../api.js";
import { hasRight } from "../../boot.js";
import { docIndicator } from "../../indicators.js";
import { __ } from "../../i18n.js";
import { formatValue, timeAgo } from "../../format.js";
import { html, useEffect, useMemo, useRef, useState } from "../../lib/html.js";
import { getMeta, loadListScript } from "../../meta.js";
import { newFormUrl, formUrl, searchFromFilters } from "../../routes.js";
import { navigate, replaceSearch, setRouteOptions, takeRouteOptions } from "../../router.js";
import { slug } from "../../boot.js";
import { Indicator } from "../../ui/indicator.js";
import { showError } from "../../ui/messages.js";
import { Page } from "../../ui/page.js";
import { defaultSort, listColumns, listFields, sortableFields, titleField } from "./columns.js";
import { FilterBar } from "./filter_bar.js";

export const PAGE_SIZES = [20, 100, 500];

function listSettings(doctype) {
	const all = (window.frappe && window.frappe.listview_settings) || {};
	return all[doctype] || {};
}

function initialFilters(route) {
	const options = takeRouteOptions();
	const filters = [...(route.filters || [])];
	for (const [field, value] of Object.entries(options || {})) {
		if (!filters.some((f) => f[0] === field)) filters.push(Array.isArray(value) ? [field, value[0], value[1]] : [field, "=", value]);
	}
	return filters;
}

export default function ListView({ route }) {
	const doctype = route.doctype;
	const [meta, setMeta] = useState(null);
	const [failed, setFailed] = useState(null);
	useEffect(() => {
		let cancelled = false;
		getMeta(doctype)
			.then(async (loaded) => {
				await loadListScript(loaded);
				if (!cancelled) setMeta(loaded);
			})
			.catch((error) => !cancelled && setFailed(error));
		return () => {
			cancelled = true;
		};
	}, [doctype]);
	if (failed) return html`<${Page} title=${__(doctype)}><p class="page-message" role="alert">${failed.message}</p></${Page}>`;
	if (!meta) return html`<${Page} title=${__(doctype)}><p class="page-loading" role="status">${__("Loading…")}</p></${Page}>`;
	return html`<${List} meta=${meta} route=${route} />`;
}

function List({ meta, route }) {
	const doctype = meta.name;
	const settings = listSettings(doctype);
	const [filters, setFilters] = useState(() => initialFilters(route));
	const [sort, setSort] = useState(() => defaultSort(meta));
	const [pageLength, setPageLength] = useState(PAGE_SIZES[0]);
	const [state, setState] = useState({ rows: [], hasMore: false, count: null, loading: true, error: null });
	const generation = useRef(0);
	const columns = useMemo(() => listColumns(meta), [meta]);
	const fields = useMemo(() => listFields(meta, settings), [meta, settings]);
	const title = titleField(meta);

	async function load({ append = false } = {}) {
		const mine = ++generation.current;
		const start = append ? state.rows.length : 0;
		setState((s) => ({ ...s, loading: true, error: null }));
		try {
			const orderBy = `${sort.fieldname} ${sort.order}`;
			const [page, count] = await Promise.all([
				getList(doctype, { fields, filters, orderBy, start, limit: pageLength }),
				append ? Promise.resolve(state.count) : getCount(doctype, { filters }),
			]);
			if (mine !== generation.current) return;
			const rows = append ? [...state.rows, ...(page.data || [])] : page.data || [];
			setState({ rows, hasMore: Boolean(page.has_next_page), count, loading: false, error: null });
		} catch (error) {
			if (mine !== generation.current) return;
			setState((s) => ({ ...s, loading: false, error }));
			if (error.type !== "SessionExpired" && error.status !== 417) showError(error);
		}
	}

	useEffect(() => {
		replaceSearch(searchFromFilters(filters));
		load();
	}, [JSON.stringify(filters), sort.fieldname, sort.order, pageLength]);

	function addNew() {
		const values = {};
		for (const [field, op, value] of filters) if (op === "=") values[field] = value;
		setRouteOptions(values);
		navigate(newFormUrl(doctype, slug));
	}

	const label = __(doctype);
	const actions = hasRight(doctype, "create")
		? html`<button type="button" class="btn btn-primary" onClick=${addNew}>${__("Add {0}", [label])}</button>`
		: null;
	const shown = state.rows.length;
	return html`<${Page} title=${label} actions=${actions} className="list-page">
		<${FilterBar} meta=${meta} filters=${filters} onChange=${setFilters} />
		<div class="list-toolbar">
			<p class="list-count" role="status" aria-live="polite">
				${state.count === null ? "" : __("{0} of {1}", [shown, state.count])}
			</p>
			<${SortControl} meta=${meta} sort=${sort} onChange=${setSort} />
		</div>
		${state.error && state.error.status === 417
			? html`<p class="page-message" role="alert">${state.error.message}</p>`
			: null}
		${!state.loading && !shown && !state.error
			? html`<div class="list-empty"><p>${__("No {0} found", [label])}</p></div>`
			: html`<${ListTable} meta=${meta} rows=${state.rows} columns=${columns} title=${title} settings=${settings} />`}
		<div class="list-paging">
			${state.hasMore
				? html`<button type="button" class="btn btn-default" disabled=${state.loading} onClick=${() => load({ append: true })}>${__("More")}</button>`
				: null}
			<div class="page-sizes" role="group" aria-label=${__("Rows per page")}>
				${PAGE_SIZES.map(
					(size) => html`<button type="button" class=${`btn btn-sm ${size === pageLength ? "btn-active" : "btn-default"}`}
						aria-pressed=${size === pageLength ? "true" : "false"} onClick=${() => setPageLength(size)}>${size}</button>`,
				)}
			</div>
		</div>
		${state.loading ? html`<p class="page-loading" role="status">${__("Loading…")}</p>` : null}
	</${Page}>`;
}

function SortControl({ meta, sort, onChange }) {
	const options = sortableFields(meta);
	return html`<div class="sort-control">
		<label class="sort-label" for="list-sort">${__("Sort by")}</label>
		<select id="list-sort" value=${sort.fieldname} onChange=${(e) => onChange({ ...sort, fieldname: e.currentTarget.value })}>
			${options.map((o) => html`<option value=${o.fieldname}>${__(o.label)}</option>`)}
		</select>
		<button type="button" class="btn btn-default btn-sm" onClick=${() => onChange({ ...sort, order: sort.order === "asc" ? "desc" : "asc" })}>
			${sort.order === "asc" ? __("Ascending") : __("Descending")}
		</button>
	</div>`;
}

function ListTable({ meta, rows, columns, title, settings }) {
	const doctype = meta.name;
	const titleDf = (meta.fields || []).find((df) => df.fieldname === title);
	return html`<div class="list-table-wrap">
		<table class="list-table">
			<caption class="sr-only">${__(doctype)}</caption>
			<thead>
				<tr>
					<th scope="col">${titleDf ? __(titleDf.label || title) : __("ID")}</th>
					<th scope="col">${__("Status")}</th>
					${columns.map((df) => html`<th scope="col" class=${`col-${df.fieldtype.replace(/ /g, "-").toLowerCase()}`}>${__(df.label || df.fieldname)}</th>`)}
					<th scope="col" class="col-modified">${__("Last Updated")}</th>
				</tr>
			</thead>
			<tbody>
				${rows.map((row) => {
					const indicator = docIndicator(row, meta, settings);
					const text = row[title] === undefined || row[title] === null || row[title] === "" ? row.name : row[title];
					return html`<tr key=${row.name}>
						<th scope="row" class="list-title">
							<a href=${formUrl(doctype, row.name, slug)}>${String(text)}</a>
							${title !== "name" && String(text) !== row.name ? html`<span class="list-name">${row.name}</span>` : null}
						</th>
						<td class="list-indicator">${indicator ? html`<${Indicator} ...${indicator} />` : null}</td>
						${columns.map((df) => html`<td class=${`col-${df.fieldtype.replace(/ /g, "-").toLowerCase()}`}>${formatValue(row[df.fieldname], df)}</td>`)}
						<td class="col-modified"><time datetime=${row.modified} title=${row.modified}>${timeAgo(row.modified)}</time></td>
					</tr>`;
				})}
			</tbody>
		</table>
	</div>`;
}
