// /app/query-report/<Report Name> (desk.md §6): the report's filters (get_script: the JSON's, or its
// `<report>.js` loaded by URL, `frappe.query_reports[name]`), run on every change once the required
// ones have a value (fw.desk.query_report.run); then the `message`, the `report_summary` cards, the
// `chart` and the rows, sortable, exported to CSV or XLSX by the server (fw.desk.query_report.export_query,
// the rows shown in their order as `visible_idx`). The filter values stay in the URL, so a
// reload or a shared link shows the same report. A report that fails shows the server's message.
import { call } from "../../api.js";
import { hasRight } from "../../boot.js";
import { __, addMessages } from "../../i18n.js";
import { html, useEffect, useMemo, useRef, useState } from "../../lib/html.js";
import { loadScript } from "../../meta.js";
import { replaceSearch } from "../../router.js";
import { reportSettingsOf } from "../../script_settings.js";
import { showError } from "../../ui/messages.js";
import { Page } from "../../ui/page.js";
import { ReportChart } from "./chart.js";
import { ReportFilters } from "./filter_bar.js";
import { downloadFile } from "../../download.js";
import {
	initialValues, mergeFilters, missingRequired, nextSort, sortRows, splitTotal,
} from "./report_data.js";
import { ReportSummary } from "./summary.js";
import { ReportTable } from "./table.js";

async function loadDefinition(name) {
	const body = await call("fw.desk.query_report.get_script", { report_name: name }, { httpMethod: "GET" });
	const definition = body.message || {};
	addMessages(definition.__messages);
	if (definition.script_url) await loadScript(definition.script_url).catch((error) => console.error(error));
	return definition;
}

export default function ReportView({ route }) {
	const name = route.report;
	const [definition, setDefinition] = useState(null);
	const [failed, setFailed] = useState(null);
	useEffect(() => {
		let cancelled = false;
		loadDefinition(name)
			.then((loaded) => !cancelled && setDefinition(loaded))
			.catch((error) => !cancelled && setFailed(error));
		return () => {
			cancelled = true;
		};
	}, [name]);
	const title = __(name);
	if (failed) return html`<${Page} title=${title}><p class="page-message" role="alert">${failed.message}</p></${Page}>`;
	if (!definition) return html`<${Page} title=${title}><p class="page-loading" role="status">${__("Loading…")}</p></${Page}>`;
	return html`<${Report} name=${name} title=${title} definition=${definition} />`;
}

function searchOf(values) {
	const params = new URLSearchParams();
	for (const [key, value] of Object.entries(values)) {
		if (value !== null && value !== undefined && typeof value !== "object") params.set(key, String(value));
	}
	const text = params.toString();
	return text ? `?${text}` : "";
}

function Report({ name, title, definition }) {
	const settings = reportSettingsOf(name);
	const filters = useMemo(() => mergeFilters(definition.filters, settings.filters), [definition]);
	const [values, setValues] = useState(() => initialValues(filters, location.search));
	const [state, setState] = useState({ data: null, loading: false, error: null });
	const [sort, setSort] = useState(null);
	const generation = useRef(0);
	const missing = missingRequired(filters, values);

	async function run() {
		const mine = ++generation.current;
		setState((s) => ({ ...s, loading: true, error: null }));
		try {
			const body = await call("fw.desk.query_report.run", { report_name: name, filters: values });
			if (mine === generation.current) setState({ data: body.message || {}, loading: false, error: null });
		} catch (error) {
			if (mine === generation.current) setState({ data: null, loading: false, error });
		}
	}

	// Frappe's report object, for the script's `onload(report)` and filters' `on_change(report)`
	const report = useRef({});
	Object.assign(report.current, {
		report_name: name,
		get_filter_value: (fieldname) => values[fieldname],
		get_values: () => ({ ...values }),
		set_filter_value: (fieldname, value) => setValues((v) => ({ ...v, [fieldname]: value })),
		refresh: run,
	});
	useEffect(() => {
		if (typeof settings.onload === "function") settings.onload(report.current);
	}, []);

	useEffect(() => {
		replaceSearch(searchOf(values));
		if (!missingRequired(filters, values).length) run();
		else setState({ data: null, loading: false, error: null });
	}, [JSON.stringify(values)]);

	function onFilterChange(fieldname, value) {
		setValues((v) => ({ ...v, [fieldname]: value }));
		const df = filters.find((f) => f.fieldname === fieldname);
		if (df && typeof df.on_change === "function") setTimeout(() => df.on_change(report.current));
	}

	const data = state.data;
	const columns = (data && data.columns) || [];
	const { rows, total } = useMemo(() => splitTotal(data), [data]);
	const shown = useMemo(() => sortRows(rows, columns, sort), [rows, sort]);

	// exporting needs the `export` right on the report's doctype (business.md §3.2)
	const mayExport = hasRight(definition.ref_doctype, "export");
	// the server runs the report again with these filters and writes the rows shown, in their order
	async function exportAs(fileFormat) {
		try {
			await downloadFile("fw.desk.query_report.export_query", {
				report_name: name, filters: values, file_format_type: fileFormat,
				visible_idx: shown.map((row) => rows.indexOf(row)),
			});
		} catch (error) {
			showError(error);
		}
	}

	const actions = html`
		<button type="button" class="btn btn-default" disabled=${state.loading || Boolean(missing.length)} onClick=${run}>${__("Refresh")}</button>
		${mayExport
			? html`<button type="button" class="btn btn-default" disabled=${!data || !columns.length} onClick=${() => exportAs("CSV")}>${__("Export")}</button>
				<button type="button" class="btn btn-default" disabled=${!data || !columns.length} onClick=${() => exportAs("Excel")}>${__("Download XLSX")}</button>`
			: null}`;
	return html`<${Page} title=${title} actions=${actions} className="report-page">
		<${ReportFilters} filters=${filters} values=${values} onChange=${onFilterChange} />
		${missing.length
			? html`<p class="page-message" role="status">${__("Please set filters: {0}", [missing.map((df) => __(df.label || df.fieldname)).join(", ")])}</p>`
			: null}
		${state.error ? html`<p class="page-message report-error" role="alert">${state.error.message}</p>` : null}
		${data && data.message ? html`<p class="report-message" role="status">${String(data.message)}</p>` : null}
		${data ? html`<${ReportSummary} summary=${data.report_summary} />` : null}
		${data && data.chart ? html`<${ReportChart} chart=${data.chart} title=${title} />` : null}
		${data
			? shown.length
				? html`<${ReportTable} title=${title} columns=${columns} rows=${shown} total=${total} sort=${sort} formatter=${settings.formatter}
						onSort=${(fieldname) => setSort(nextSort(sort, fieldname))} />`
				: html`<p class="report-empty">${__("Nothing to show")}</p>`
			: null}
		<p class="report-status" role="status" aria-live="polite">
			${state.loading ? __("Loading…") : data ? __("{0} rows", [rows.length]) : ""}
		</p>
	</${Page}>`;
}
