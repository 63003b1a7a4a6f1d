// The list's "Export" (business.md §3.2): a dialog to pick the columns, the format (CSV or Excel) and
// the rows (the selected ones, or all that match the list's filters); the server writes the file
// (fw.desk.reportview.export_query) with the rows the user may read.
import { __ } from "../../i18n.js";
import { downloadFile } from "../../download.js";
import { html, useState } from "../../lib/html.js";
import { openDialog } from "../../ui/layers.js";
import { showError } from "../../ui/messages.js";
import { listColumns, titleField } from "./columns.js";

// fields with no value of their own, or none a spreadsheet cell can hold
const NOT_EXPORTED = new Set(["Section Break", "Column Break", "Tab Break", "HTML", "Button", "Image", "Fold", "Heading",
	"Table", "Table MultiSelect", "Password", "Signature", "Geolocation"]);

/** The fields a user may export: the ID, then every field with a value, in the form's order. */
export function exportableFields(meta) {
	return [{ fieldname: "name", label: __("ID") },
		...(meta.fields || []).filter((df) => df.fieldname && !df.hidden && !NOT_EXPORTED.has(df.fieldtype))];
}

function ExportForm({ meta, chosen, filters, sort, selected, done }) {
	const fields = exportableFields(meta);
	const initial = new Set(["name", titleField(meta), ...listColumns(meta, chosen).map((df) => df.fieldname)]);
	const [picked, setPicked] = useState(initial);
	const [format, setFormat] = useState("CSV");
	const [onlySelected, setOnlySelected] = useState(selected.length > 0);
	const [busy, setBusy] = useState(false);

	function toggle(fieldname) {
		const next = new Set(picked);
		if (next.has(fieldname)) next.delete(fieldname);
		else next.add(fieldname);
		setPicked(next);
	}

	async function run() {
		setBusy(true);
		try {
			await downloadFile("fw.desk.reportview.export_query", {
				doctype: meta.name,
				file_format_type: format,
				title: __(meta.name),
				fields: fields.map((df) => df.fieldname).filter((f) => picked.has(f)),
				filters,
				order_by: sort ? `${sort.fieldname} ${sort.order}` : null,
				selected_items: onlySelected ? selected : null,
			});
			done();
		} catch (error) {
			showError(error);
		} finally {
			setBusy(false);
		}
	}

	return html`<div class="export-form">
		<fieldset class="export-columns">
			<legend>${__("Columns")}</legend>
			${fields.map((df) => html`<label class="column-choice" key=${df.fieldname}>
				<input type="checkbox" checked=${picked.has(df.fieldname)} onChange=${() => toggle(df.fieldname)} />
				${__(df.label || df.fieldname)}
			</label>`)}
		</fieldset>
		<fieldset class="export-format">
			<legend>${__("File Type")}</legend>
			${["CSV", "Excel"].map((kind) => html`<label class="column-choice" key=${kind}>
				<input type="radio" name="export-format" checked=${format === kind} onChange=${() => setFormat(kind)} />
				${__(kind)}
			</label>`)}
		</fieldset>
		<fieldset class="export-rows">
			<legend>${__("Rows")}</legend>
			<label class="column-choice">
				<input type="radio" name="export-rows" checked=${!onlySelected} onChange=${() => setOnlySelected(false)} />
				${__("All rows that match the filters")}
			</label>
			<label class="column-choice">
				<input type="radio" name="export-rows" disabled=${!selected.length} checked=${onlySelected} onChange=${() => setOnlySelected(true)} />
				${__("Selected rows ({0})", [selected.length])}
			</label>
		</fieldset>
		<button type="button" class="btn btn-primary" disabled=${busy || !picked.size} onClick=${run}>${__("Download")}</button>
	</div>`;
}

export function openExportDialog({ meta, chosen, filters, sort, selected }) {
	const handle = openDialog({
		title: __("Export {0}", [__(meta.name)]),
		body: html`<${ExportForm} meta=${meta} chosen=${chosen} filters=${filters} sort=${sort} selected=${selected}
			done=${() => handle.close()} />`,
	});
	return handle;
}
