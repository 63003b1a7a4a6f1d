// The Data Import form's tools (business.md §3.1, §6): "Download Template", the preview of the
// attached file (its columns with the field each one fills, changeable; the first rows; every problem
// found before anything is written), "Start Import" (a job; a progress bar follows its
// `data_import_progress` events) and the per-row log, whose created documents are links: a page of
// LOG_PAGE rows at a time, the failed ones first (an import of 100,000 rows has as many logs).
import { call } from "../../api.js";
import { slug } from "../../boot.js";
import { downloadFile } from "../../download.js";
import { __ } from "../../i18n.js";
import { html, useEffect, useState } from "../../lib/html.js";
import { off, on } from "../../realtime.js";
import { formUrl } from "../../routes.js";
import { showError } from "../../ui/messages.js";

const PATH = "fw.core.doctype.data_import.data_import";
const LOG_PAGE = 500;

function optionsOf(doc) {
	try {
		return doc.template_options ? JSON.parse(doc.template_options) : {};
	} catch {
		return {};
	}
}

function Template({ doctype }) {
	const [format, setFormat] = useState("CSV");
	async function download() {
		try {
			await downloadFile(`${PATH}.download_template`, { doctype, file_type: format });
		} catch (error) {
			showError(error);
		}
	}
	return html`<div class="import-template">
		<label>${__("Template format")}
			<select value=${format} onChange=${(e) => setFormat(e.currentTarget.value)}>
				<option value="CSV">CSV</option><option value="Excel">Excel</option>
			</select>
		</label>
		<button type="button" class="btn btn-default" disabled=${!doctype} onClick=${download}>${__("Download Template")}</button>
	</div>`;
}

function Mapping({ preview, onChange }) {
	return html`<table class="list-table import-mapping">
		<caption>${__("Column mapping")}</caption>
		<thead><tr><th scope="col">${__("Column")}</th><th scope="col">${__("Field")}</th></tr></thead>
		<tbody>
			${preview.columns.map((c) => html`<tr key=${c.index}>
				<th scope="row">${c.letter}: ${c.header}</th>
				<td><select aria-label=${__("Field for column {0}", [c.header || c.letter])} value=${c.map_to}
					onChange=${(e) => onChange(c.index, e.currentTarget.value)}>
					<option value="">${__("Don't Import")}</option>
					${preview.fields.map((f) => html`<option value=${f.value}>${f.label}</option>`)}
				</select></td>
			</tr>`)}
		</tbody>
	</table>`;
}

function Rows({ preview }) {
	return html`<table class="list-table import-preview">
		<caption>${__("Preview")}</caption>
		<thead><tr><th scope="col">${__("Row")}</th>${preview.columns.map((c) => html`<th scope="col">${c.header}</th>`)}</tr></thead>
		<tbody>
			${preview.data.map((row) => html`<tr key=${row[0]}>${row.map((cell, i) =>
				i === 0 ? html`<th scope="row">${String(cell)}</th>` : html`<td>${cell === null || cell === undefined ? "" : String(cell)}</td>`)}</tr>`)}
		</tbody>
	</table>`;
}

function Log({ logs, doctype, more, onMore }) {
	if (!logs.length) return null;
	return html`<div class="import-log-block"><table class="list-table import-log">
		<caption>${__("Import Log")}</caption>
		<thead><tr><th scope="col">${__("Row")}</th><th scope="col">${__("Status")}</th><th scope="col">${__("Document")}</th><th scope="col">${__("Messages")}</th></tr></thead>
		<tbody>
			${logs.map((log) => html`<tr key=${log.log_index}>
				<th scope="row">${(log.row_indexes || []).join(", ")}</th>
				<td>${log.success ? __("Success") : __("Failed")}</td>
				<td>${log.docname ? html`<a href=${formUrl(doctype, log.docname, slug)}>${log.docname}</a>` : ""}</td>
				<td>${(log.messages || []).join(" ")}</td>
			</tr>`)}
		</tbody>
	</table>
	${more ? html`<button type="button" class="btn btn-default btn-sm" onClick=${onMore}>${__("Show more rows")}</button>` : null}
	</div>`;
}

export default function DataImportPanel({ frm }) {
	const doc = frm.doc;
	const saved = !frm.is_new();
	const [preview, setPreview] = useState(null);
	const [failed, setFailed] = useState(null);
	const [progress, setProgress] = useState(null);
	const [logs, setLogs] = useState([]);
	const [moreLogs, setMoreLogs] = useState(false);
	const options = optionsOf(doc);

	async function loadPreview(templateOptions = options) {
		if (!saved || !doc.import_file) return setPreview(null);
		try {
			const body = await call(`${PATH}.get_preview_from_template`, {
				data_import: doc.name, import_file: doc.import_file, template_options: templateOptions,
			});
			setPreview(body.message);
			setFailed(null);
		} catch (error) {
			setPreview(null);
			setFailed(error.message);
		}
	}

	async function loadLogs(start = 0) {
		if (!saved) return;
		const body = await call(`${PATH}.get_import_logs`,
			{ data_import: doc.name, start, page_length: LOG_PAGE, failed_first: 1 }, { httpMethod: "GET" });
		const page = body.message || [];
		setLogs((shown) => (start ? [...shown, ...page] : page));
		setMoreLogs(page.length === LOG_PAGE);
	}

	useEffect(() => {
		loadPreview();
		loadLogs().catch(showError);
	}, [doc.name, doc.import_file, doc.modified]);

	useEffect(() => {
		const handler = (message) => {
			if (!message || message.data_import !== doc.name) return;
			setProgress(message);
			if (message.current >= message.total) frm.reload_doc();
		};
		on("data_import_progress", handler);
		return () => off("data_import_progress", handler);
	}, [doc.name]);

	function remap(index, target) {
		const map = { ...(options.column_to_field_map || {}) };
		for (const c of preview.columns) if (!(String(c.index) in map)) map[String(c.index)] = c.map_to;
		map[String(index)] = target;
		const next = { ...options, column_to_field_map: map };
		frm.set_value("template_options", JSON.stringify(next));
		loadPreview(next);
	}

	async function start() {
		try {
			if (frm.is_dirty()) await frm.save();
			// before the call: a short import's progress events can arrive before its answer does
			setProgress({ current: 0, total: preview ? preview.payload_count : 0, success: 0, failed: 0 });
			await call(`${PATH}.form_start_import`, { data_import: doc.name });
		} catch (error) {
			setProgress(null);
			showError(error);
		}
	}

	const percent = progress && progress.total ? Math.round((progress.current * 100) / progress.total) : 0;
	const done = doc.status === "Success";
	return html`<section class="data-import-panel" aria-label=${__("Import")}>
		<${Template} doctype=${doc.reference_doctype} />
		${!saved ? html`<p class="page-message">${__("Save, then attach the file to import")}</p>` : null}
		${failed ? html`<p class="page-message" role="alert">${failed}</p>` : null}
		${saved && doc.import_file && !done
			? html`<button type="button" class="btn btn-primary" disabled=${!preview} onClick=${start}>
					${doc.status === "Partial Success" || doc.status === "Error" ? __("Retry Failed Rows") : __("Start Import")}</button>`
			: null}
		${progress
			? html`<div class="progress-track" role="progressbar" aria-label=${__("Import progress")} aria-valuemin="0"
					aria-valuemax="100" aria-valuenow=${percent}><div class="progress-fill" style=${{ width: `${percent}%` }}></div></div>
				<p role="status">${__("{0} of {1} imported, {2} failed", [progress.success || 0, progress.total || 0, progress.failed || 0])}</p>`
			: null}
		${preview
			? html`<div class="import-preview-block">
					<p role="status">${__("{0} documents in the file", [preview.payload_count])}</p>
					${preview.warnings.length ? html`<ul class="import-warnings" aria-label=${__("Warnings")}>${preview.warnings.map((w) => html`<li>${w}</li>`)}</ul>` : null}
					${preview.problems.length
						? html`<ul class="import-problems" aria-label=${__("Problems")}>${preview.problems.map((p) => html`<li>${p}</li>`)}</ul>`
						: html`<p class="import-ok">${__("No problems found")}</p>`}
					<${Mapping} preview=${preview} onChange=${remap} />
					<${Rows} preview=${preview} />
				</div>`
			: null}
		<${Log} logs=${logs} doctype=${doc.reference_doctype} more=${moreLogs}
			onMore=${() => loadLogs(logs.length).catch(showError)} />
	</section>`;
}
