// The report view of a list, /app/<doctype>/view/report[/<Report>] (business.md §5, §6): picked
// columns (child-table fields too), sort, the list's filters, "Group By" a field with Count, "Sum of
// <label>" or "Average of <label>", a totals row, Export (the server's export_query) and "Save As"
// a Report Builder Report shared with roles; the saved ones are listed in the sidebar. Rows come
// from fw.desk.reportview.get with the user's permissions.
import { call } from "../../api.js";
import { hasRight, slug } from "../../boot.js";
import { downloadFile } from "../../download.js";
import { formatValue } from "../../format.js";
import { __ } from "../../i18n.js";
import { html, useEffect, useMemo, useState } from "../../lib/html.js";
import { getMeta } from "../../meta.js";
import { navigate } from "../../router.js";
import { showError } from "../../ui/messages.js";
import { Page } from "../../ui/page.js";
import { FilterBar } from "../list/filter_bar.js";
import { openPickColumns, openSaveAs } from "./dialogs.js";
import { AGGREGATE_KEY, NUMERIC, aggregateChoices, groupableFields, pickableColumns, reportSettings, requestArgs,
	stateFromSettings, totals } from "./settings.js";

export function reportViewUrl(doctype, report = null) {
	const base = `/app/${encodeURIComponent(slug(doctype))}/view/report`;
	return report ? `${base}/${encodeURIComponent(report)}` : base;
}

export default function ReportBuilderView({ route }) {
	const doctype = route.doctype;
	const [loaded, setLoaded] = useState(null);
	const [failed, setFailed] = useState(null);
	useEffect(() => {
		let cancelled = false;
		(async () => {
			const meta = await getMeta(doctype);
			const childMetas = {};
			for (const df of meta.fields || []) {
				if (df.fieldtype === "Table" || df.fieldtype === "Table MultiSelect") childMetas[df.options] = await getMeta(df.options);
			}
			const saved = route.report ? (await call("fw.desk.reportview.get_report", { name: route.report }, { httpMethod: "GET" })).message : null;
			if (!cancelled) setLoaded({ meta, childMetas, saved });
		})().catch((error) => !cancelled && setFailed(error));
		return () => {
			cancelled = true;
		};
	}, [doctype, route.report]);
	const title = route.report || __("{0} Report", [__(doctype)]);
	if (failed) return html`<${Page} title=${title}><p class="page-message" role="alert">${failed.message}</p></${Page}>`;
	if (!loaded) return html`<${Page} title=${title}><p class="page-loading" role="status">${__("Loading…")}</p></${Page}>`;
	return html`<${ReportBuilder} key=${`${doctype}/${route.report || ""}`} title=${title} report=${route.report} ...${loaded} />`;
}

function ReportBuilder({ title, report, meta, childMetas, saved }) {
	const doctype = meta.name;
	const [state, setState] = useState(() => stateFromSettings(saved && saved.json, meta));
	const [data, setData] = useState({ keys: [], values: [], loading: true });
	const [reports, setReports] = useState([]);
	const choices = useMemo(() => pickableColumns(meta, childMetas), [meta]);
	const byKey = useMemo(() => new Map(choices.map((c) => [c.key, c])), [choices]);
	const aggregates = useMemo(() => aggregateChoices(meta), [meta]);
	const update = (changes) => setState((s) => ({ ...s, ...changes }));

	useEffect(() => {
		call("fw.desk.reportview.get_reports", { doctype }, { httpMethod: "GET" })
			.then((body) => setReports(body.message || []))
			.catch((error) => showError(error));
	}, [doctype, report]);
	useEffect(() => {
		let cancelled = false;
		setData((d) => ({ ...d, loading: true }));
		call("fw.desk.reportview.get", requestArgs(doctype, { ...state, pageLength: 500 }))
			.then((body) => !cancelled && setData({ ...(body.message || { keys: [], values: [] }), loading: false }))
			.catch((error) => {
				if (cancelled) return;
				setData({ keys: [], values: [], loading: false });
				showError(error);
			});
		return () => {
			cancelled = true;
		};
	}, [JSON.stringify(state)]);

	const aggregate = aggregates.find((a) => a.value === state.aggregate) || aggregates[0];
	const dfOf = (key) => (byKey.get(key) || {}).df || null;
	function label(key) {
		if (key === "count") return __("Count");
		if (key === AGGREGATE_KEY) return aggregate.label;
		return (byKey.get(key) || {}).label || key;
	}
	const isNumeric = (key) => key === "count" || (key === AGGREGATE_KEY && aggregate.func === "sum") || (!state.groupBy && Boolean(dfOf(key) && NUMERIC.has(dfOf(key).fieldtype)));
	function cell(key, value) {
		if (Array.isArray(value)) return value.map((v) => formatValue(v, dfOf(key) || {})).join(", ");
		if (key === "count") return formatValue(value, { fieldtype: "Int" });
		if (key === AGGREGATE_KEY) return formatValue(value, { fieldtype: "Float", precision: 2 });
		return formatValue(value, dfOf(key) || {});
	}
	const sums = totals(data.keys, data.values, isNumeric);
	const sortable = choices.filter((c) => !c.table && state.columns.includes(c.key));

	function exportRows() {
		const fields = state.columns.filter((k) => !k.includes("."));
		downloadFile("fw.desk.reportview.export_query", { doctype, file_format_type: "Excel", title, fields,
			filters: state.filters, order_by: state.sort ? `${state.sort.fieldname} ${state.sort.order}` : null })
			.catch((error) => showError(error));
	}
	const actions = html`<div class="report-builder-actions">
		<button type="button" class="btn btn-default" onClick=${() => openPickColumns({ choices, chosen: state.columns, onChange: (columns) => update({ columns }) })}>${__("Pick Columns")}</button>
		${hasRight(doctype, "export") ? html`<button type="button" class="btn btn-default" onClick=${exportRows}>${__("Export")}</button>` : null}
		<button type="button" class="btn btn-primary" onClick=${() => openSaveAs({ doctype, initialName: report || "", settings: reportSettings(state),
			onSaved: (name) => navigate(reportViewUrl(doctype, name)) })}>${__("Save As")}</button>
	</div>`;
	return html`<${Page} title=${title} className="report-builder-page" actions=${actions}>
		<div class="report-builder">
			<nav class="report-builder-sidebar" aria-label=${__("Saved Reports")}>
				<h2>${__("Saved Reports")}</h2>
				<ul>${reports.map((r) => html`<li key=${r.name}><a href=${reportViewUrl(doctype, r.name)}>${r.name}</a></li>`)}</ul>
				<a href=${`/app/${encodeURIComponent(slug(doctype))}`}>${__("Back to {0}", [__(doctype)])}</a>
			</nav>
			<div class="report-builder-main">
				<${FilterBar} meta=${meta} filters=${state.filters} onChange=${(filters) => update({ filters })} />
				<div class="report-builder-controls">
					<label>${__("Sort By")}
						<select class="form-control" disabled=${Boolean(state.groupBy)} value=${state.sort ? state.sort.fieldname : ""}
							onChange=${(e) => update({ sort: e.target.value ? { fieldname: e.target.value, order: state.sort ? state.sort.order : "desc" } : null })}>
							<option value="">${__("Default")}</option>
							${sortable.map((c) => html`<option key=${c.key} value=${c.key}>${c.label}</option>`)}
						</select></label>
					<label>${__("Sort Order")}
						<select class="form-control" disabled=${!state.sort || Boolean(state.groupBy)} value=${state.sort ? state.sort.order : "desc"}
							onChange=${(e) => update({ sort: { ...state.sort, order: e.target.value } })}>
							<option value="desc">${__("Descending")}</option><option value="asc">${__("Ascending")}</option>
						</select></label>
					<label>${__("Group By")}
						<select class="form-control" value=${state.groupBy} onChange=${(e) => update({ groupBy: e.target.value })}>
							<option value="">${__("None")}</option>
							${groupableFields(meta).map((df) => html`<option key=${df.fieldname} value=${df.fieldname}>${__(df.label || df.fieldname)}</option>`)}
						</select></label>
					${state.groupBy ? html`<label>${__("Aggregate")}
						<select class="form-control" value=${state.aggregate} onChange=${(e) => update({ aggregate: e.target.value })}>
							${aggregates.map((a) => html`<option key=${a.value} value=${a.value}>${a.label}</option>`)}
						</select></label>` : null}
				</div>
				<div class="report-builder-table" aria-busy=${data.loading ? "true" : "false"}>
					<table class="report-table">
						<caption class="sr-only">${title}</caption>
						<thead><tr>${data.keys.map((k) => html`<th key=${k} scope="col">${label(k)}</th>`)}</tr></thead>
						<tbody>${data.values.map((row, i) => html`<tr key=${i}>${row.map((v, j) => html`<td key=${j}>${cell(data.keys[j], v)}</td>`)}</tr>`)}</tbody>
						${data.values.length ? html`<tfoot><tr class="report-total-row">${sums.map((sum, j) => html`<td key=${j}>${j === 0 && sum === null ? __("Total") : sum === null ? "" : cell(data.keys[j] === "count" ? "count" : AGGREGATE_KEY, sum)}</td>`)}</tr></tfoot>` : null}
					</table>
					${!data.loading && !data.values.length ? html`<p class="page-message">${__("No rows")}</p>` : null}
				</div>
			</div>
		</div>
	</${Page}>`;
}
