// /app/<doctype>: the list view (desk.md §3). The title (or name), the `in_list_view` columns, the
// status indicator and the modified age (list_table.js); the count of matching rows; 20 rows, then
// more on request (page size 20, 100 or 500); filters from the URL, from Frappe's `route_options`,
// from the `in_standard_filter` inputs and, when none is given, the list script's default `filters`
// (all kept in the URL, so a reload shows the same list) and the filter builder; sorting by the sort
// control or a column header; the last filters and sort remembered per user (user_settings.js: used
// when the URL and the route options give no filters) with the chosen columns (column_picker.js);
// the group-by sidebar (group_by.js); row
// selection and bulk actions (bulk.js); `Add <Doctype>` when the user may create. Another user's
// change reloads the list (live.js: `list_update`). Two requests per page: the rows and the count (the meta is cached);
// "More" and a larger page size fetch only the rows not yet shown.
import { getCount, getList } from "../../api.js";
import { hasRight, slug } from "../../boot.js";
import { __ } from "../../i18n.js";
import { html, useEffect, useMemo, useRef, useState } from "../../lib/html.js";
import { getMeta, loadListScript } from "../../meta.js";
import { newFormUrl, searchFromFilters } from "../../routes.js";
import { navigate, replaceSearch, setRouteOptions, takeRouteOptions } from "../../router.js";
import { listSettingsOf } from "../../script_settings.js";
import { showError } from "../../ui/messages.js";
import { Page } from "../../ui/page.js";
import { getUserSettings, listPatch, listState, saveUserSettings } from "../../user_settings.js";
import { BulkBar } from "./bulk.js";
import { ColumnPicker } from "./column_picker.js";
import { defaultSort, listColumns, listFields, sortableFields, titleField } from "./columns.js";
import { FilterBar } from "./filter_bar.js";
import { GroupBySidebar } from "./group_by.js";
import { ListMenu } from "./list_menu.js";
import { ListTable } from "./list_table.js";
import { useListUpdates } from "./live.js";
import { SavedReports } from "../report_builder/saved_reports.js";

export const PAGE_SIZES = [20, 100, 500];

/** The filters a list opens with: the URL's and the route options'; without any, the user's last
 * filters (`saved`, when there are some remembered), else the list script's default `filters`
 * (Frappe's `listview_settings.filters`). */
export function initialFilters(route, options, settings = {}, saved = undefined) {
	const filters = [...(route.filters || [])];
	for (const [field, value] of Object.entries(options || {})) {
		if (!filters.some((f) => f[0] === field)) filters.push(Array.isArray(value) ? [field, value[0], value[1]] : [field, "=", value]);
	}
	if (!filters.length && Array.isArray(saved)) return [...saved];
	if (!filters.length && Array.isArray(settings.filters)) {
		for (const f of settings.filters) if (Array.isArray(f) && f.length >= 3) filters.push([f[0], f[1], f[2]]);
	}
	return filters;
}

export default function ListView({ route }) {
	const doctype = route.doctype;
	const [meta, setMeta] = useState(null);
	const [saved, setSaved] = useState(null);
	const [failed, setFailed] = useState(null);
	useEffect(() => {
		let cancelled = false;
		getMeta(doctype)
			.then(async (loaded) => {
				await loadListScript(loaded);
				const remembered = await getUserSettings(doctype); // usually sent with the meta: no request
				if (!cancelled) {
					setSaved(listState(remembered, doctype));
					setMeta(loaded);
				}
			})
			.catch((error) => !cancelled && setFailed(error));
		return () => {
			cancelled = true;
		};
	}, [doctype]);
	if (failed) return html`<${Page} title=${__(doctype)}><p class="page-message" role="alert">${failed.message}</p></${Page}>`;
	if (!meta) return html`<${Page} title=${__(doctype)}><p class="page-loading" role="status">${__("Loading…")}</p></${Page}>`;
	return html`<${List} meta=${meta} route=${route} saved=${saved || {}} />`;
}

function validSort(meta, sort, chosen) {
	return sort && sortableFields(meta, chosen).some((o) => o.fieldname === sort.fieldname) ? sort : null;
}

function List({ meta, route, saved }) {
	const doctype = meta.name;
	const settings = listSettingsOf(doctype);
	const [filters, setFilters] = useState(() => initialFilters(route, takeRouteOptions(), settings, saved.filters));
	const [chosen, setChosen] = useState(() => saved.columns || null); // the user's columns (null: the doctype's)
	const [sort, setSort] = useState(() => validSort(meta, saved.sort, saved.columns) || defaultSort(meta));
	const [selected, setSelected] = useState(() => new Set());
	const [busy, setBusy] = useState(null);
	const [version, setVersion] = useState(0); // counts the list's reloads (the sidebar's counts follow)
	const restored = useRef(true); // the first filters and sort are not a change to remember
	const [pageLength, setPageLength] = useState(PAGE_SIZES[0]);
	const [state, setState] = useState({ rows: [], hasMore: false, count: null, loading: true, error: null });
	const generation = useRef(0);
	const chosenKey = JSON.stringify(chosen);
	const columns = useMemo(() => listColumns(meta, chosen), [meta, chosenKey]);
	const fields = useMemo(() => listFields(meta, settings, chosen), [meta, settings, chosenKey]);
	const title = titleField(meta);
	const sortable = useMemo(() => new Set(sortableFields(meta, chosen).map((o) => o.fieldname)), [meta, chosenKey]);

	// `refresh` reloads as many rows as are shown (a realtime update keeps "More" pages loaded)
	async function load({ append = false, refresh = false, limit: wanted = null } = {}) {
		const mine = ++generation.current;
		const start = append ? state.rows.length : 0;
		const limit = wanted || (refresh ? Math.max(pageLength, state.rows.length) : pageLength);
		setState((s) => ({ ...s, loading: true, error: null }));
		try {
			const orderBy = `${sort.fieldname} ${sort.order}`;
			const [page, count] = await Promise.all([
				getList(doctype, { fields, filters, orderBy, start, limit }),
				append ? Promise.resolve(state.count) : getCount(doctype, { filters }),
			]);
			if (mine !== generation.current) return;
			const rows = append ? [...state.rows, ...(page.data || [])] : page.data || [];
			setState({ rows, hasMore: Boolean(page.has_next_page), count, loading: false, error: null });
			if (!append) {
				const names = new Set(rows.map((row) => row.name));
				setSelected((current) => new Set([...current].filter((name) => names.has(name))));
				setVersion((v) => v + 1);
			}
		} catch (error) {
			if (mine !== generation.current) return;
			setState((s) => ({ ...s, loading: false, error }));
			if (error.type !== "SessionExpired" && error.status !== 417) showError(error);
		}
	}

	useEffect(() => {
		replaceSearch(searchFromFilters(filters));
		load();
		if (restored.current) restored.current = false;
		else saveUserSettings(doctype, listPatch(doctype, filters, sort, chosen));
	}, [JSON.stringify(filters), sort.fieldname, sort.order, chosenKey]);
	useListUpdates(doctype, () => load({ refresh: true }));

	// a new page size shows that many rows: only the missing ones are fetched (the count stays);
	// a smaller one keeps the first rows
	function changePageLength(size) {
		if (size === pageLength) return;
		setPageLength(size);
		const shown = state.rows.length;
		if (size < shown) {
			generation.current++; // a request still running would bring rows back
			setState((s) => ({ ...s, rows: s.rows.slice(0, size), hasMore: true, loading: false }));
		} else if (state.hasMore && size > shown) {
			load({ append: true, limit: size - shown });
		}
	}

	// a sort by a column no longer shown goes back to the doctype's default
	function chooseColumns(next) {
		setChosen(next);
		if (!validSort(meta, sort, next)) setSort(defaultSort(meta));
	}

	function addNew() {
		const values = {};
		for (const [field, op, value] of filters) if (op === "=") values[field] = value;
		setRouteOptions(values);
		navigate(newFormUrl(doctype, slug));
	}

	const label = __(doctype);
	const actions = html`<${ListMenu} meta=${meta} chosen=${chosen} filters=${filters} sort=${sort} selected=${selected} />
		${hasRight(doctype, "create")
			? html`<button type="button" class="btn btn-primary" onClick=${addNew}>${__("Add {0}", [label])}</button>`
			: null}`;
	const shown = state.rows.length;
	const selection = {
		selected,
		toggle: (name) => setSelected((current) => {
			const next = new Set(current);
			if (next.has(name)) next.delete(name);
			else next.add(name);
			return next;
		}),
		toggleAll: (on) => setSelected(on ? new Set(state.rows.map((row) => row.name)) : new Set()),
	};
	// checkboxes only where a bulk action may be offered: a workflow, or the right to delete
	const canBulk = hasRight(doctype, "delete") || Boolean(meta.__workflow && meta.__workflow.field);
	const titles = Object.fromEntries(state.rows.map((row) => [row.name, row[title] ? String(row[title]) : row.name]));
	return html`<${Page} title=${label} actions=${actions} className="list-page">
		<div class="list-layout">
		<div class="list-side">
		<${GroupBySidebar} meta=${meta} filters=${filters} version=${version} onChange=${setFilters} />
		${hasRight(doctype, "report") ? html`<${SavedReports} doctype=${doctype} />` : null}
		</div>
		<div class="list-main">
		<${FilterBar} meta=${meta} filters=${filters} onChange=${setFilters} />
		${selected.size
			? html`<${BulkBar} meta=${meta} rows=${state.rows} selected=${selected} titles=${titles} busy=${busy}
					onClear=${() => setSelected(new Set())} onStart=${setBusy}
					onDone=${() => (setBusy(null), setSelected(new Set()), load({ refresh: true }))} />`
			: null}
		<div class="list-toolbar">
			<p class="list-count" role="status" aria-live="polite">
				${state.count === null ? "" : __("{0} of {1}", [shown, state.count])}
			</p>
			<div class="list-view-controls">
				<${ColumnPicker} meta=${meta} chosen=${chosen} onChange=${chooseColumns} />
				<${SortControl} meta=${meta} chosen=${chosen} sort=${sort} onChange=${setSort} />
			</div>
		</div>
		${state.error && state.error.status === 417
			? html`<p class="page-message" role="alert">${state.error.message}</p>`
			: null}
		${!state.loading && !shown && !state.error
			? html`<${EmptyState} label=${label} filtered=${filters.length > 0} mayCreate=${hasRight(doctype, "create")} onAdd=${addNew} />`
			: html`<${ListTable} meta=${meta} rows=${state.rows} columns=${columns} title=${title} settings=${settings}
					sort=${sort} sortable=${sortable} onSort=${setSort} selection=${canBulk ? selection : null} />`}
		<div class="list-paging">
			${state.hasMore
				? html`<button type="button" class="btn btn-default" disabled=${state.loading} onClick=${() => load({ append: true })}>${__("More")}</button>`
				: null}
			<div class="page-sizes" role="group" aria-label=${__("Rows per page")}>
				${PAGE_SIZES.map(
					(size) => html`<button type="button" class=${`btn btn-sm ${size === pageLength ? "btn-active" : "btn-default"}`}
						aria-pressed=${size === pageLength ? "true" : "false"} onClick=${() => changePageLength(size)}>${size}</button>`,
				)}
			</div>
		</div>
		${state.loading ? html`<p class="page-loading" role="status">${__("Loading…")}</p>` : null}
		</div>
		</div>
	</${Page}>`;
}

function SortControl({ meta, chosen, sort, onChange }) {
	const options = sortableFields(meta, chosen);
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

// "Clear filters" is in the filter bar already; a list that is empty unfiltered offers the first one
function EmptyState({ label, filtered, mayCreate, onAdd }) {
	return html`<div class="list-empty">
		<p>${filtered ? __("No {0} matches these filters", [label]) : __("No {0} found", [label])}</p>
		${!filtered && mayCreate
			? html`<button type="button" class="btn btn-default" onClick=${onAdd}>${__("Create your first {0}", [label])}</button>`
			: null}
	</div>`;
}
